package checks

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
)

// Exit codes of the checks commands (the same as plumb check's).
const (
	exitOK       = 0
	exitFailed   = 1
	exitProblems = 2
)

// ListOptions configures `plumb checks list`.
type ListOptions struct {
	Group  string
	Env    map[string]any
	Format string // text | json
}

// listEntry is one check in `checks list --format json`.
type listEntry struct {
	ID           string         `json:"id"`
	Name         string         `json:"name"`
	Group        string         `json:"group"`
	Severity     Severity       `json:"severity"`
	TargetType   TargetType     `json:"target_type"`
	Kinds        []string       `json:"kinds,omitempty"`
	Metadata     map[string]any `json:"metadata"`
	Customizable bool           `json:"customizable"`
	File         string         `json:"file"`
}

// List prints the usable checks that apply in opts.Env (Wanda's catalog
// filter: an empty env lists everything), optionally of one group.
func List(w io.Writer, cat *Catalog, opts ListOptions) error {
	var checks []*Check
	for _, c := range cat.Filter(opts.Env) {
		if opts.Group == "" || strings.EqualFold(c.Group, opts.Group) {
			checks = append(checks, c)
		}
	}
	if opts.Format == "json" {
		entries := make([]listEntry, 0, len(checks))
		for _, c := range checks {
			entries = append(entries, listEntry{c.ID, c.Name, c.Group, c.Severity, c.TargetType, c.Kinds(), c.Metadata, c.Customizable(), c.File})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(entries)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSEVERITY\tTARGET\tGROUP\tNAME")
	for _, c := range checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.ID, c.Severity, targetText(c), c.Group, c.Name)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d checks. `plumb checks show ID` prints one with its remediation.\n", len(checks))
	return err
}

// WriteProblems prints the catalog's errors, each at its file:line, for the
// commands that only read a catalog (list): a check that does not lint is
// left out of the listing and cannot run, and saying nothing would hide it.
// It returns exit code 2 when there are errors.
func WriteProblems(w io.Writer, cat *Catalog) int {
	errs := cat.Errors()
	for _, d := range errs {
		fmt.Fprintf(w, "plumb: %s\n", d)
	}
	if len(errs) > 0 {
		fmt.Fprintf(w, "plumb: %d errors in the catalog: the checks that have them are not listed and do not run (plumb checks lint shows every problem)\n", len(errs))
		return exitProblems
	}
	return exitOK
}

func targetText(c *Check) string {
	if c.TargetType == TargetGroup {
		return "render target"
	}
	if ks := c.Kinds(); len(ks) > 0 {
		if len(ks) > 3 {
			return strings.Join(ks[:3], ",") + fmt.Sprintf(",+%d", len(ks)-3)
		}
		return strings.Join(ks, ",")
	}
	return "any object"
}

// Show prints one check for a terminal: what it checks, why and how to
// fix it, then its facts, values and expectations.
func Show(w io.Writer, c *Check) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s\n", c.ID, c.Name)
	fmt.Fprintf(&b, "group: %s · severity: %s · target: ", c.Group, c.Severity)
	if c.TargetType == TargetGroup {
		b.WriteString("each render target (group)")
	} else if ks := c.Kinds(); len(ks) > 0 {
		fmt.Fprintf(&b, "each %s (object)", strings.Join(ks, ", "))
	} else {
		b.WriteString("each object")
	}
	fmt.Fprintf(&b, "\nfile: %s\n", c.File)
	var meta []string
	for k, v := range c.Metadata {
		if k != "target_type" && k != "kind" {
			meta = append(meta, fmt.Sprintf("%s=%s", k, display(v)))
		}
	}
	slices.Sort(meta)
	if len(meta) > 0 {
		fmt.Fprintf(&b, "applies when env has: %s\n", strings.Join(meta, ", "))
	}
	if c.When != nil {
		fmt.Fprintf(&b, "when: %s\n", oneLine(c.When.Source))
	}
	if c.Exclude != nil {
		fmt.Fprintf(&b, "exclude: %s\n", oneLine(c.Exclude.Source))
	}
	section(&b, "Description", c.Description)
	section(&b, "Remediation", c.Remediation)
	b.WriteString("\nFacts\n")
	for _, f := range c.Facts {
		fmt.Fprintf(&b, "  %s: %s %s\n", f.Name, f.Gatherer, f.Argument)
	}
	if len(c.Values) > 0 {
		b.WriteString("\nValues\n")
		for _, v := range c.Values {
			custom := "customizable"
			if !c.valueCustomizable(v) {
				custom = "not customizable"
			}
			fmt.Fprintf(&b, "  %s = %s (%s)\n", v.Name, display(v.Default), custom)
			for _, cond := range v.Conditions {
				src := ""
				if cond.When != nil {
					src = oneLine(cond.When.Source)
				}
				fmt.Fprintf(&b, "    %s when %s\n", display(cond.Value), src)
			}
		}
	}
	b.WriteString("\nExpectations\n")
	for _, e := range c.Expectations {
		src := ""
		if e.Expr != nil {
			src = e.Expr.Source
		}
		within := ""
		if e.Type == ExpectSame && c.comparedWithin() {
			within = ", within each application (env.application)"
		}
		fmt.Fprintf(&b, "  %s (%s%s)\n", e.Name, e.Type, within)
		b.WriteString(indent(strings.TrimRight(src, "\n"), "    "))
		b.WriteString("\n")
	}
	if len(c.Diagnostics) > 0 {
		b.WriteString("\nProblems")
		if c.HasErrors() || c.broken {
			b.WriteString(" (the check does not run until they are fixed)")
		}
		b.WriteString("\n")
		diags := slices.Clone(c.Diagnostics)
		sortDiagnostics(diags)
		for _, d := range diags {
			fmt.Fprintf(&b, "  %s\n", d)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func section(b *strings.Builder, title, text string) {
	fmt.Fprintf(b, "\n%s\n%s\n", title, indent(strings.TrimRight(text, "\n"), "  "))
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Lint prints every diagnostic of a catalog and a summary line; it returns
// exit code 2 when there are errors.
func Lint(w io.Writer, cat *Catalog, format string) int {
	errs := countErrors(cat.Diagnostics)
	if format == "json" {
		diags := cat.Diagnostics
		if diags == nil {
			diags = []Diagnostic{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(diags)
	} else {
		for _, d := range cat.Diagnostics {
			fmt.Fprintln(w, d)
		}
		fmt.Fprintf(w, "%d checks: %d with errors; %d errors, %d warnings\n",
			len(cat.Checks), countChecksWithErrors(cat), errs, len(cat.Diagnostics)-errs)
	}
	if errs > 0 {
		return exitProblems
	}
	return exitOK
}

func countChecksWithErrors(cat *Catalog) int {
	n := 0
	for _, c := range cat.Checks {
		if c.HasErrors() || c.broken {
			n++
		}
	}
	return n
}

// EvalCommand is `plumb checks eval`.
type EvalCommand struct {
	// Catalogs are catalog directories; none means the default catalog.
	Catalogs []string
	Facts    string
	Env      map[string]any
	Format   string // json | text
	// FailOn is critical, warning or never: the result at or above which the
	// command exits 1.
	FailOn string
}

// Run evaluates the facts file and prints the Result. Problems with the
// catalog or the facts file are printed on stderr with file:line and make
// the exit code 2 (after the Result, when evaluation was possible).
func (e EvalCommand) Run(ctx context.Context, stdout, stderr io.Writer) int {
	switch e.FailOn {
	case "", Critical, Warning, "never":
	default:
		fmt.Fprintf(stderr, "plumb: --fail-on %q: want critical, warning or never\n", e.FailOn)
		return exitProblems
	}
	var sources []Source
	for _, d := range e.Catalogs {
		sources = append(sources, Source{FS: DirFS(d), Dir: ".", Display: filepath.ToSlash(d)})
	}
	if len(sources) == 0 {
		sources = []Source{DefaultSource()}
	}
	cat := Load(sources...)
	code := exitOK
	for _, d := range cat.Diagnostics {
		fmt.Fprintf(stderr, "plumb: %s\n", d)
		if d.Level == LevelError {
			code = exitProblems
		}
	}
	data, err := os.ReadFile(e.Facts)
	if err != nil {
		fmt.Fprintf(stderr, "plumb: --facts %s: %v\n", e.Facts, cleanFSError(err))
		return exitProblems
	}
	ff, diags := ParseFakeFacts(filepath.ToSlash(e.Facts), data)
	for _, d := range diags {
		fmt.Fprintf(stderr, "plumb: %s\n", d)
	}
	if ff == nil || countErrors(diags) > 0 {
		return exitProblems
	}
	res, diags, err := Eval(ctx, cat, ff, EvalOptions{Env: e.Env})
	for _, d := range diags {
		fmt.Fprintf(stderr, "plumb: %s\n", d)
		if d.Level == LevelError {
			code = exitProblems
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "plumb: %v\n", err)
		return exitProblems
	}
	if e.Format == "text" {
		err = WriteResultText(stdout, res)
	} else {
		var b []byte
		if b, err = res.MarshalIndent(); err == nil {
			_, err = stdout.Write(b)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "plumb: %v\n", err)
		return exitProblems
	}
	if code != exitOK {
		return code
	}
	switch {
	case e.FailOn == "never":
	case res.Result == Critical, res.Result == Warning && e.FailOn == Warning:
		return exitFailed
	}
	return exitOK
}

// WriteResultText prints a Result for people: each check with its result,
// each expectation, and each target's outcome with its message.
func WriteResultText(w io.Writer, r *Result) error {
	var b strings.Builder
	crit, warn, pass := r.Counts()
	fmt.Fprintf(&b, "execution %s: %s (%d critical, %d warning, %d passing)\n", r.ExecutionID, r.Result, crit, warn, pass)
	if len(r.Timeout) > 0 {
		fmt.Fprintf(&b, "timed out: %s\n", strings.Join(r.Timeout, ", "))
	}
	for _, cr := range r.CheckResults {
		custom := ""
		if cr.Customized {
			custom = " (customized)"
		}
		fmt.Fprintf(&b, "\n%s %s%s\n", cr.CheckID, cr.Result, custom)
		for _, er := range cr.ExpectationResults {
			fmt.Fprintf(&b, "  %s %s: %s", er.Type, er.Name, display(er.Result))
			if er.FailureMessage != nil {
				fmt.Fprintf(&b, " — %s", *er.FailureMessage)
			}
			b.WriteString("\n")
			writeDiffering(&b, cr.same[er.Name])
		}
		for a := range cr.AgentsCheckResults.All() {
			switch {
			case a.IsError():
				fmt.Fprintf(&b, "    %s: %s", a.AgentID, a.ErrorType)
				for _, f := range a.Facts {
					if f.Error != nil {
						fmt.Fprintf(&b, "; fact %s: %s: %s", f.Name, f.Error.Type, f.Error.Message)
					}
				}
				b.WriteString("\n")
			case a.Status == StatusExcluded:
				fmt.Fprintf(&b, "    %s: excluded by %s\n", a.AgentID, oneLine(*a.ExcludeExpression))
			default:
				for _, ev := range a.Evaluations {
					if ev.Error != nil {
						fmt.Fprintf(&b, "    %s: %s: %s error: %s\n", a.AgentID, ev.Name, ev.Error.Type, ev.Error.Message)
						continue
					}
					fmt.Fprintf(&b, "    %s: %s = %s", a.AgentID, ev.Name, short(ev.ReturnValue))
					if ev.FailureMessage != nil {
						fmt.Fprintf(&b, " — %s", *ev.FailureMessage)
					}
					b.WriteString("\n")
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteGatherers prints the gatherers a check can use, with their
// arguments, for check authors.
func WriteGatherers(w io.Writer) error {
	var b strings.Builder
	for _, g := range Gatherers() {
		targets := "object checks"
		if g.Group {
			targets = "object and group checks"
		}
		fmt.Fprintf(&b, "%s (%s)\n%s\n  argument: %s\n\n", g.Name, targets, indent(wrap(g.Summary, 76), "  "), g.Argument)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// wrap breaks text into lines of at most width characters.
func wrap(text string, width int) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
