package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// Annotations writes findings as GitHub Actions workflow commands
// (::error file=…,line=…::message), which the runner turns into annotations
// on the pull request's files.
//
// GitHub shows at most 10 error, 10 warning and 10 notice annotations per
// step and 50 per job; the rest silently disappear from the UI. So the sink
// chooses the most important findings (errors first, new before unchanged),
// and adds one notice that counts what it left out.
//
// Finding text comes from repository content, so every value is escaped:
// nothing in a message, title or file name can end the command or start a
// new one.
type Annotations struct {
	// Per-level and total caps (zero: GitHub's 10, 10, 10 and 50).
	MaxErrors, MaxWarnings, MaxNotices, MaxTotal int
	// More ends the counting notice, e.g. "See the job summary." (plain
	// text).
	More string
	// Printed counts the annotations the step printed besides these (a
	// caller's own errors, warnings and notices): GitHub's caps count every
	// annotation of the step, so they leave less room for findings.
	Printed LevelCounts
}

// GitHub's annotation caps (research/peers.md §4).
const (
	annotationsPerLevel = 10
	annotationsPerJob   = 50
)

// annotationObjects is how many objects one annotation lists (a base
// shared by hundreds of overlays is one annotation, not a page of names).
const annotationObjects = 5

// Write implements Sink.
func (a Annotations) Write(w io.Writer, r *Report) error {
	bw := bufio.NewWriter(w)
	chosen, left := a.Select(r)
	for _, g := range chosen {
		bw.WriteString(annotationCommand(g))
		bw.WriteByte('\n')
	}
	if left.Total() > 0 {
		verb := "are"
		if left.Total() == 1 {
			verb = "is"
		}
		msg := fmt.Sprintf("%s %s not shown as annotations (%s): GitHub shows at most %d errors, %d warnings and %d notices per step.",
			plural(left.Total(), "more finding"), verb, left.String(), a.maxErrors(), a.maxWarnings(), a.maxNotices())
		if a.More != "" {
			msg += " " + a.More
		}
		bw.WriteString(WorkflowCommand("notice", map[string]string{"title": "plumb"}, msg))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// LevelCounts counts findings by level.
type LevelCounts struct{ Errors, Warnings, Notes int }

// Total is the sum of the counts.
func (c LevelCounts) Total() int { return c.Errors + c.Warnings + c.Notes }

// Add counts one finding of level l.
func (c *LevelCounts) Add(l finding.Level) {
	switch l {
	case finding.Error:
		c.Errors++
	case finding.Warning:
		c.Warnings++
	default:
		c.Notes++
	}
}

func (c LevelCounts) String() string {
	var parts []string
	for _, p := range []struct {
		n    int
		word string
	}{{c.Errors, "error"}, {c.Warnings, "warning"}, {c.Notes, "note"}} {
		if p.n > 0 {
			parts = append(parts, plural(p.n, p.word))
		}
	}
	return strings.Join(parts, ", ")
}

func (a Annotations) maxErrors() int   { return orDefault(a.MaxErrors, annotationsPerLevel) }
func (a Annotations) maxWarnings() int { return orDefault(a.MaxWarnings, annotationsPerLevel) }
func (a Annotations) maxNotices() int  { return orDefault(a.MaxNotices, annotationsPerLevel) }
func (a Annotations) maxTotal() int    { return orDefault(a.MaxTotal, annotationsPerJob) }

func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

// annotation is one annotation: a finding and the findings that read
// exactly like it (the same line, rule and message on other objects: a
// base shared by several overlays), which share its slot.
type annotation struct {
	*finding.Finding
	alike []*finding.Finding
}

// Select returns the annotations to write, most important first, and
// counts the open problems left out (findings alike are one). Suppressed and fixed findings are
// never annotated (and not counted: they need no action).
func (a Annotations) Select(r *Report) ([]annotation, LevelCounts) {
	open := groupAlike(byImportance(r.Findings, isOpen))
	quota := map[finding.Level]int{
		finding.Error:   max(a.maxErrors()-a.Printed.Errors, 0),
		finding.Warning: max(a.maxWarnings()-a.Printed.Warnings, 0),
		finding.Note:    max(a.maxNotices()-a.Printed.Notes, 0),
	}
	total := max(a.maxTotal()-a.Printed.Total(), 0)
	fits := len(open) <= total
	for l, q := range quota {
		fits = fits && countLevel(open, l) <= q
	}
	if !fits {
		// One notice slot (and one of the job's) goes to the notice that
		// counts what is left out.
		quota[finding.Note] = max(quota[finding.Note]-1, 0)
		total = max(total-1, 0)
	}
	var chosen []annotation
	var left LevelCounts
	for _, g := range open {
		if quota[g.Level] > 0 && len(chosen) < total {
			quota[g.Level]--
			chosen = append(chosen, g)
			continue
		}
		// One problem, however many targets it is found in (see Tally).
		left.Add(g.Level)
	}
	return chosen, left
}

// groupAlike puts findings that would annotate the same line with the same
// text into one annotation, keeping the order of the first of each.
func groupAlike(fs []*finding.Finding) []annotation {
	type key struct {
		loc             finding.Location
		level           finding.Level
		rule, msg, stat string
	}
	at := make(map[key]int, len(fs))
	out := make([]annotation, 0, len(fs))
	for _, f := range fs {
		k := key{f.Location, f.Level, f.RuleID, f.Message, f.Status}
		if i, ok := at[k]; ok && f.Location.File != "" {
			out[i].alike = append(out[i].alike, f)
			continue
		}
		at[k] = len(out)
		out = append(out, annotation{Finding: f})
	}
	return out
}

func countLevel(fs []annotation, l finding.Level) int {
	n := 0
	for _, f := range fs {
		if f.Level == l {
			n++
		}
	}
	return n
}

// annotationCommand formats one annotation as a workflow command; the
// objects of findings alike are listed after the first one's.
func annotationCommand(g annotation) string {
	f := g.Finding
	name := "notice"
	switch f.Level {
	case finding.Error:
		name = "error"
	case finding.Warning:
		name = "warning"
	}
	props := map[string]string{}
	// A deleted object's line is the base revision's: the annotation
	// names it in the message instead of pointing at the head's file.
	if l := f.Location; l.File != "" && f.Side != finding.SideBase {
		props["file"] = l.File
		if l.Line > 0 {
			props["line"] = strconv.Itoa(l.Line)
			if l.EndLine >= l.Line {
				props["endLine"] = strconv.Itoa(l.EndLine)
			}
			if l.Column > 0 {
				props["col"] = strconv.Itoa(l.Column)
				if l.EndColumn > 0 && (l.EndLine > l.Line || l.EndColumn >= l.Column) {
					props["endColumn"] = strconv.Itoa(l.EndColumn)
				}
			}
		}
	}
	title := f.RuleID
	if f.Title != "" {
		title = f.Title + " (" + f.RuleID + ")"
	}
	if f.Status == finding.StatusNew {
		title += " [new]"
	}
	props["title"] = title
	msg := f.Message
	if f.Side == finding.SideBase && f.Location.File != "" {
		msg += " (at the base revision: " + manifest.FormatLocation(f.Location) + ")"
	}
	all := append([]*finding.Finding{f}, g.alike...)
	for i, o := range all {
		if i == annotationObjects {
			msg += fmt.Sprintf("\nand %s", plural(len(all)-i, "more object"))
			break
		}
		if !o.Object.IsZero() {
			msg += "\n" + o.Object.String()
			if len(o.Path) > 0 {
				msg += " " + o.Path.String()
			}
		}
	}
	return WorkflowCommand(name, props, msg)
}

// annotationPropertyOrder is the order GitHub's own toolkit writes them in;
// a fixed order keeps the output deterministic.
var annotationPropertyOrder = []string{"title", "file", "line", "endLine", "col", "endColumn"}

// WorkflowCommand formats ::name key=value,...::message with the escaping
// of GitHub's toolkit: in the message %, CR and LF are percent-encoded, in
// property values also ':' and ','. The result is always one line, so
// nothing in the values can start another command.
func WorkflowCommand(name string, props map[string]string, message string) string {
	var b strings.Builder
	b.WriteString("::")
	b.WriteString(name)
	first := true
	for _, k := range annotationPropertyOrder {
		v, ok := props[k]
		if !ok {
			continue
		}
		if first {
			b.WriteByte(' ')
			first = false
		} else {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(EscapeCommandProperty(v))
	}
	b.WriteString("::")
	b.WriteString(EscapeCommandData(message))
	return b.String()
}

// EscapeCommandData escapes a workflow command's message.
func EscapeCommandData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// EscapeCommandProperty escapes a workflow command's property value.
func EscapeCommandProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
