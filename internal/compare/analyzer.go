package compare

import (
	"context"
	"fmt"
	"os"
	"path"
	"runtime"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/parallel"
	"github.com/plumb-ci/plumb/internal/render"
)

// Analyzer is the reference comparison inside `plumb check`: every render
// target's objects are compared with the reference on their own.
type Analyzer struct {
	Ref  *Reference
	Opts Options
	// Targets are doublestar patterns of the render targets to compare
	// (all when empty).
	Targets []string
}

// Name implements analyzer.Analyzer; it is also the JSON report section.
func (*Analyzer) Name() string { return "compare" }

// Analyze implements analyzer.Analyzer.
func (a *Analyzer) Analyze(ctx context.Context, in *analyzer.Input) (*analyzer.Output, error) {
	if a.Ref == nil {
		// The reference did not load (reported as setup findings); only
		// the rules are described, so every finding has its descriptor.
		return &analyzer.Output{Rules: Rules()}, nil
	}
	var targets []*render.Target
	for _, t := range in.Targets {
		if a.selected(t.Name) {
			targets = append(targets, t)
		}
	}
	type targetResult struct {
		findings []finding.Finding
		report   *Output
	}
	results := make([]targetResult, len(targets))
	// Many small targets: one per worker, each compared sequentially; few
	// large ones: one at a time, objects in parallel.
	workers := runtime.GOMAXPROCS(0)
	perTarget := a.Opts
	if len(targets) >= workers {
		perTarget.Workers = 1
	} else {
		workers = 1
	}
	parallel.ForEach(workers, len(targets), func(i int) {
		name := targets[i].Name
		if fs, rep, ok := a.loadCached(in.Cache, name); ok {
			results[i] = targetResult{findings: fs, report: rep}
			return
		}
		res := a.Ref.Compare(ctx, targets[i].Objects, perTarget)
		results[i] = targetResult{findings: a.findings(name, res), report: res.Report(ReportOptions{AllResources: true})}
		a.storeCached(in.Cache, name, res, results[i].findings, results[i].report)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := &analyzer.Output{Rules: Rules()}
	section := map[string]*Output{}
	for i, t := range targets {
		out.Findings = append(out.Findings, results[i].findings...)
		section[t.Name] = results[i].report
	}
	out.Section = section
	return out, nil
}

func (a *Analyzer) selected(target string) bool {
	if len(a.Targets) == 0 {
		return true
	}
	for _, p := range a.Targets {
		if ok, _ := doublestar.Match(p, target); ok {
			return true
		}
	}
	return false
}

// Rule ids of the reference comparison.
const (
	RuleDrift      = "compare/drift"
	RuleMissing    = "compare/missing"
	RuleUnmatched  = "compare/unmatched"
	RuleValidation = "compare/validation"
	RuleReference  = "compare/reference"
)

// Rules describes the comparison's rules.
func Rules() []finding.Rule {
	return []finding.Rule{
		{ID: RuleDrift, Name: "Drift from the reference", Level: finding.Error, Precision: "high",
			Short: "A field differs from the reference configuration",
			Full:  "The object was compared with the reference template it correlates with (kube-compare semantics); this field differs from what the template allows.",
			Help:  "Change the field to what the reference expects (the diff shows `-` reference and `+` this object), or, if the deviation is intended, accept it with a user override (`reference.overrides`)."},
		{ID: RuleMissing, Name: "Missing from the reference", Level: finding.Error, Precision: "high",
			Short: "A required reference object is missing",
			Full:  "A component of the reference requires this template, and no object of the render target matched it.",
			Help:  "Add the object the template describes to this render target, or check why the object present does not correlate (kind, apiVersion, namespace and name must match the template's fixed fields)."},
		{ID: RuleValidation, Name: "Reference component rule broken", Level: finding.Error, Precision: "high",
			Short: "Objects matched templates a component forbids together",
			Full:  "A oneOf or anyOneOf component matched more than one template, or a noneOf component matched one.",
			Help:  "Keep exactly one of the alternatives (oneOf, anyOneOf), or remove the object (noneOf)."},
		{ID: RuleUnmatched, Name: "Not in the reference", Level: finding.Note, Precision: "high",
			Short: "No reference template correlates with this object",
			Help:  "Nothing to do if the object is not meant to be covered by the reference; otherwise check its kind, apiVersion, namespace and name against the reference templates."},
		{ID: RuleReference, Name: "Reference problem", Level: finding.Error, Precision: "very-high",
			Short: "The reference, diff configuration or overrides cannot be used as written",
			Help:  "Fix the file at the reported line; the message says what kube-compare would reject."},
	}
}

// ProblemFindings turns load problems (reference, diff configuration,
// overrides) into findings: errors are input errors (exit 2), warnings stay
// warnings.
func ProblemFindings(ps Problems) []finding.Finding {
	var out []finding.Finding
	for _, p := range ps {
		f := finding.Finding{Source: finding.SourceCompare, RuleID: RuleReference, Level: finding.Error,
			Title: "Reference problem", Message: p.Message, Location: p.Location, InputError: !p.Warning, ConfigError: !p.Warning, Key: p.Message}
		switch {
		case p.Info:
			f.Level = finding.Note
		case p.Warning:
			f.Level = finding.Warning
		}
		f.SetFingerprint()
		out = append(out, f)
	}
	return out
}

// findings turns one target's comparison into findings.
func (a *Analyzer) findings(target string, res *Result) []finding.Finding {
	var out []finding.Finding
	add := func(f finding.Finding) {
		f.Source = finding.SourceCompare
		f.SetFingerprint()
		out = append(out, f)
	}
	for _, p := range res.Errors {
		add(finding.Finding{RuleID: RuleReference, Level: finding.Error, Title: "Reference template failed",
			Message: p.Message, Location: p.Location, InputError: true, Key: target + "\x00" + p.Message})
	}
	for _, c := range res.Compared {
		for _, f := range a.driftFindings(c) {
			add(f)
		}
	}
	for _, is := range res.Issues {
		for _, f := range a.issueFindings(target, res, is) {
			add(f)
		}
	}
	for _, u := range res.Unmatched {
		if u.Err != nil {
			continue // reported as a template failure
		}
		l, _ := u.Object.Locate(nil)
		add(finding.Finding{RuleID: RuleUnmatched, Level: finding.Note, Title: "Not in the reference",
			Message:  fmt.Sprintf("%s matches no template of the reference %s", describeID(u.ID), res.Ref.Entry),
			Help:     ruleHelp(RuleUnmatched),
			Object:   u.Object.ID,
			Location: l})
	}
	return out
}

func describeID(id identity) string {
	name := id.Name
	if id.Namespace != "" {
		name = id.Namespace + "/" + name
	}
	return strings.TrimSpace(id.Kind + " " + name)
}

func ruleHelp(id string) string {
	for _, r := range Rules() {
		if r.ID == id {
			return r.Help
		}
	}
	return ""
}

// driftFindings reports each drifted field at the source line that supplied
// it, with the hunks that show it.
func (a *Analyzer) driftFindings(c *Compared) []finding.Finding {
	fields := c.driftFields()
	if len(fields) == 0 {
		return nil // most objects: nothing below is needed
	}
	var out []finding.Finding
	file, _ := c.Object.Locate(nil)
	header := fmt.Sprintf("--- reference/%s\n+++ %s\n", c.Template.Path, file.File)
	secret := append(secretPaths(c.Reference, c.Live), c.Secret...)
	for _, f := range fields {
		l, _ := c.Object.Locate(f.path)
		help := ruleHelp(RuleDrift)
		if c.Template.Description != "" {
			help += "\n\nReference: " + c.Template.Description
		}
		out = append(out, finding.Finding{
			RuleID: RuleDrift, Level: finding.Error, Title: "Drift from the reference",
			Message:  driftMessage(c, f.path, secret),
			Help:     help,
			Object:   c.Object.ID,
			Path:     f.path,
			Location: l,
			Diff:     c.fieldDiff(f, header),
			Related:  []finding.Related{{Location: loc(c.Template.File, 0), Message: "reference template"}},
		})
	}
	return out
}

func driftMessage(c *Compared, p manifest.Path, secret []manifest.Path) string {
	what := describeID(c.ID)
	field := p.String()
	if field == "" {
		field = "the object"
	}
	rv, inRef := manifest.Lookup(c.Reference, p)
	lv, inLive := manifest.Lookup(c.Live, p)
	tpl := c.Template.Path
	switch {
	case inRef && !inLive:
		return fmt.Sprintf("%s: %s is missing; the reference template %s expects it", what, field, tpl)
	case !inRef && inLive:
		return fmt.Sprintf("%s: %s is not in the reference template %s", what, field, tpl)
	}
	if overlaps(p, secret) {
		return fmt.Sprintf("%s: %s differs from the reference template %s (secret value not shown)", what, field, tpl)
	}
	rs, rok := shortScalar(rv)
	ls, lok := shortScalar(lv)
	if rok && lok {
		return fmt.Sprintf("%s: %s is %s, the reference template %s expects %s", what, field, ls, tpl, rs)
	}
	return fmt.Sprintf("%s: %s differs from the reference template %s", what, field, tpl)
}

// overlaps reports whether p is one of paths, below one or above one.
func overlaps(p manifest.Path, paths []manifest.Path) bool {
	for _, q := range paths {
		if p.HasPrefix(q) || q.HasPrefix(p) {
			return true
		}
	}
	return false
}

// shortScalar prints a scalar for a one-line message.
func shortScalar(v any) (string, bool) {
	switch v.(type) {
	case map[string]any, []any:
		return "", false
	}
	s := strings.TrimSuffix(yamlText(v), "\n")
	if strings.Contains(s, "\n") || len(s) > 80 {
		return "", false
	}
	return s, true
}

// issueFindings reports a component's validation issue: each missing
// template at its entry in the metadata file, each object that broke a
// oneOf/anyOneOf/noneOf rule at the object.
func (a *Analyzer) issueFindings(target string, res *Result, is *Issue) []finding.Finding {
	where := fmt.Sprintf("part %s, component %s", is.Part.Name, is.Component.Name)
	var out []finding.Finding
	switch is.Msg {
	case MsgMissing:
		for _, t := range is.Templates {
			msg := fmt.Sprintf("Missing CRs: %s requires template %s (%s) and no object of target %s matches it",
				res.Ref.Entry, t.Path, where, target)
			if id := describeID(t.fixed); id != "" {
				msg = fmt.Sprintf("Missing CRs: %s requires %s (template %s, %s) and no object of target %s matches it",
					res.Ref.Entry, id, t.Path, where, target)
			}
			help := ruleHelp(RuleMissing)
			if t.Description != "" {
				help += "\n\nReference: " + t.Description
			}
			out = append(out, finding.Finding{RuleID: RuleMissing, Level: finding.Error, Title: "Missing from the reference",
				Message: msg, Help: help, Object: t.fixed.objectID(target), Location: loc(res.Ref.Entry, t.Line),
				Related: []finding.Related{{Location: loc(t.File, 0), Message: "reference template"}}, Key: t.Path})
		}
	case MsgOneRequired:
		var names []string
		for _, t := range is.Templates {
			names = append(names, t.Path)
		}
		out = append(out, finding.Finding{RuleID: RuleMissing, Level: finding.Error, Title: "Missing from the reference",
			Message: fmt.Sprintf("%s (%s): %s; no object of target %s matches any", MsgOneRequired, where, strings.Join(names, ", "), target),
			Help:    ruleHelp(RuleMissing), Object: manifest.ObjectID{Target: target},
			Location: loc(res.Ref.Entry, is.Component.Line), Key: is.Part.Name + "/" + is.Component.Name})
	default:
		var names []string
		for _, t := range is.Templates {
			names = append(names, t.Path)
		}
		for _, c := range res.Compared {
			if c.Template.Component != is.Component {
				continue
			}
			l, _ := c.Object.Locate(nil)
			out = append(out, finding.Finding{RuleID: RuleValidation, Level: finding.Error, Title: "Reference component rule broken",
				Message: fmt.Sprintf("%s: %s (%s): %s matched template %s", is.Msg, strings.Join(names, ", "), where, describeID(c.ID), c.Template.Path),
				Help:    ruleHelp(RuleValidation), Object: c.Object.ID, Location: l,
				Related: []finding.Related{{Location: loc(res.Ref.Entry, is.Component.Line), Message: "component"}}})
		}
	}
	return out
}

// Setup says where the check-mode comparison reads its files. Each file has
// a local path to open and a display path for findings.
type Setup struct {
	Reference, ReferenceDisplay   string
	DiffConfig, DiffConfigDisplay string
	Overrides, OverridesDisplay   string
	Targets                       []string
}

// NewAnalyzer loads the reference, diff configuration and overrides. Their
// problems come back as findings (errors as input errors, which make the run
// exit 2); when they make the reference unusable, the analyzer compares
// nothing.
func NewAnalyzer(s Setup) (*Analyzer, []finding.Finding) {
	if IsURL(s.Reference) {
		// plumb check makes no network calls but GitHub's: a reference is
		// part of the repository or of the runner's checkout.
		return &Analyzer{}, ProblemFindings(Problems{{Location: loc(s.Reference, 0),
			Message: "plumb check reads references from files only: check the reference out (or download it) and give its path; plumb compare -r accepts URLs"}})
	}
	display := s.ReferenceDisplay
	if st, err := os.Stat(s.Reference); err == nil && !st.IsDir() {
		display = path.Dir(display)
	}
	ref, ps := LoadPath(s.Reference, display)
	if ref == nil {
		return &Analyzer{}, ProblemFindings(ps)
	}
	a := &Analyzer{Ref: ref, Targets: s.Targets}
	if s.DiffConfig != "" {
		cfg, more := ReadUserConfig(s.DiffConfig, s.DiffConfigDisplay, ref)
		ps = append(ps, more...)
		a.Opts.UserConfig = cfg
	}
	if s.Overrides != "" {
		ov, more := ReadOverrides(s.Overrides, s.OverridesDisplay)
		ps = append(ps, more...)
		ps = append(ps, ov.check(ref)...)
		a.Opts.Overrides = ov
	}
	if len(ps.Errors()) > 0 {
		return &Analyzer{}, ProblemFindings(ps)
	}
	return a, ProblemFindings(ps)
}
