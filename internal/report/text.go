package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/mdtext"
)

// Text writes findings grouped by file, one per line in the
// file:line:col: level: message [rule] form that editors and terminals
// link, followed by a one-line summary.
type Text struct {
	// Color adds ANSI colours (only when writing to a terminal).
	Color bool
	TextOptions
}

// TextOptions are the reader's choices for the text report; JSON and SARIF
// always keep everything.
type TextOptions struct {
	// MinLevel hides findings less severe than it (--min-level); nil
	// shows every level.
	MinLevel *finding.Level
	// Verbose lists the files that were skipped as not Kubernetes objects.
	Verbose bool
}

// digestThreshold is the number of printed findings past which the report
// ends with a digest per rule, so a reader sees what dominates.
const digestThreshold = 300

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiDim    = "\x1b[2m"
)

// Write implements Sink.
func (t Text) Write(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	paint := func(code, s string) string {
		if !t.Color {
			return s
		}
		return code + s + ansiReset
	}
	targets := sharedLines(r.Findings)
	file := "\x00"
	printed, hidden := 0, 0
	var digest ruleDigest
	for i := range r.Findings {
		f := &r.Findings[i]
		if t.MinLevel != nil && !f.Level.AtLeast(*t.MinLevel) {
			hidden++
			continue
		}
		shared, ok := targets[i]
		if !ok {
			continue // printed on the line of its first copy
		}
		printed++
		digest.add(f)
		if f.Location.File != file {
			if file != "\x00" {
				bw.WriteByte('\n')
			}
			file = f.Location.File
		}
		level := f.Level.String()
		switch f.Level {
		case finding.Error:
			level = paint(ansiRed+ansiBold, level)
		case finding.Warning:
			level = paint(ansiYellow+ansiBold, level)
		default:
			level = paint(ansiCyan, level)
		}
		loc := lineStart(singleLine(manifest.FormatLocation(f.Location)))
		if loc == "" {
			loc = "(no file)"
		}
		extra := lineExtras(f)
		if len(shared) > 1 {
			names := make([]string, len(shared))
			for k, t := range shared {
				names[k] = singleLine(t)
			}
			extra = append(extra, "targets "+strings.Join(names, ", "))
		}
		suffix := ""
		if len(extra) > 0 {
			suffix = " (" + strings.Join(extra, "; ") + ")"
		}
		fmt.Fprintf(bw, "%s: %s: %s %s%s\n", paint(ansiBold, loc), level, singleLine(f.Message),
			paint(ansiDim, "["+f.RuleID+"]"), suffix)
	}
	if printed > 0 {
		bw.WriteByte('\n')
	}
	if printed > digestThreshold {
		digest.write(bw, paint)
	}
	if t.Verbose {
		writeSkipped(bw, r.Skipped)
	}
	bw.WriteString(summaryLine(r))
	if hidden > 0 {
		fmt.Fprintf(bw, " (%d below --min-level %s not shown)", hidden, *t.MinLevel)
	}
	bw.WriteByte('\n')
	if n := fixable(r); n > 0 {
		fmt.Fprintf(bw, "%s a mechanical fix: plumb fix makes the edits (plumb fix --dry-run shows them)\n", plural(n, "finding")+map[bool]string{true: " has", false: " have"}[n == 1])
	}
	if line := skippedLine(r.Skipped, t.Verbose); line != "" {
		bw.WriteString(line)
		bw.WriteByte('\n')
	}
	bw.WriteString(fetchedLines(r.Fetched))
	return bw.Flush()
}

// lineExtras are the notes in parentheses after a finding's rule.
func lineExtras(f *finding.Finding) []string {
	var extra []string
	if f.Status != "" {
		extra = append(extra, f.Status)
	}
	if f.Suppressed != nil {
		extra = append(extra, "suppressed: "+singleLine(f.Suppressed.Reason))
	}
	return extra
}

// sharedLines finds the findings whose lines would read exactly alike: a
// file shared by several render targets (a kustomize base under two
// overlays) gives one finding per target at the same position with the
// same message. Such findings are printed once, on one line that names
// every target. The result maps the index of each line to print to its
// targets (nil for a finding of its own); the other copies are absent.
func sharedLines(fs []finding.Finding) map[int][]string {
	key := func(f *finding.Finding) string {
		return manifest.FormatLocation(f.Location) + "\x00" + f.Level.String() + "\x00" + f.Message + "\x00" + f.RuleID + "\x00" + strings.Join(lineExtras(f), "\x00")
	}
	first := make(map[string]int, len(fs))
	out := make(map[int][]string, len(fs))
	for i := range fs {
		k := key(&fs[i])
		j, seen := first[k]
		if !seen {
			first[k] = i
			out[i] = nil
			if t := fs[i].Object.Target; t != "" {
				out[i] = []string{t}
			}
			continue
		}
		if t := fs[i].Object.Target; t != "" && !slices.Contains(out[j], t) {
			out[j] = append(out[j], t)
		}
	}
	return out
}

// singleLine keeps one finding on one line so line-oriented tools (and
// editors' "file:line:" links) stay usable, and prints repository text
// inert: a line break becomes a space (a runner reads each line for
// workflow commands, and a bare CR ends a line there), other control
// characters (a terminal's escape sequences) are shown as \xNN.
func singleLine(s string) string { return mdtext.OneLine(s) }

// InertLine is a line of repository text made safe to print on its own
// line: line breaks become spaces, other control characters \xNN, and a
// start that reads like a workflow command is prefixed with "./".
func InertLine(s string) string { return lineStart(singleLine(s)) }

// lineStart keeps a line from starting like a workflow command ("::name"
// or the legacy "##[name"): a file named ::set-output.yaml is printed as
// ./::set-output.yaml, the same file.
func lineStart(loc string) string {
	if t := strings.TrimLeft(loc, " \t"); strings.HasPrefix(t, "::") || strings.HasPrefix(t, "##[") {
		return "./" + t
	}
	return loc
}

func summaryLine(r *Report) string {
	s := r.Summarize()
	objects := len(r.Objects)
	var b strings.Builder
	if s.Total == 0 {
		fmt.Fprintf(&b, "no findings")
	} else {
		fmt.Fprintf(&b, "%s: %d %s, %d %s, %d %s in %d %s",
			plural(s.Total, "finding"),
			s.Levels["error"], noun(s.Levels["error"], "error"),
			s.Levels["warning"], noun(s.Levels["warning"], "warning"),
			s.Levels["note"], noun(s.Levels["note"], "note"),
			s.Files, noun(s.Files, "file"))
		if s.Suppressed > 0 {
			fmt.Fprintf(&b, " (%d suppressed)", s.Suppressed)
		}
	}
	if s.Statuses != nil {
		fmt.Fprintf(&b, "; %d new, %d unchanged, %d fixed", s.Statuses["new"], s.Statuses["unchanged"], s.Statuses["fixed"])
	}
	fmt.Fprintf(&b, "; %s in %s checked", plural(objects, "object"), plural(len(r.Targets), "target"))
	if s.InputErrors > 0 {
		fmt.Fprintf(&b, "; %s could not be read as written", plural(s.InputErrors, "input"))
	}
	return b.String()
}

func plural(n int, word string) string { return fmt.Sprintf("%d %s", n, noun(n, word)) }

func noun(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// fixable counts the open findings with source edits.
func fixable(r *Report) int {
	n := 0
	for i := range r.Findings {
		if f := &r.Findings[i]; isOpen(f) && f.Fixable() {
			n++
		}
	}
	return n
}
