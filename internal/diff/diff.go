// Package diff computes line diffs and prints them as unified diffs, the form
// reviewers read in pull requests. It wraps github.com/sergi/go-diff with the
// time limit off: a timeout would make a diff depend on the machine's load,
// and plumb's reports must be the same on every run.
package diff

import (
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Op says what happens to a line.
type Op int

const (
	Equal Op = iota
	Delete
	Insert
)

// Line is one line of an edit script. Text keeps its line ending ("\n"),
// except for the last line of a text that does not end with one.
type Line struct {
	Op   Op
	Text string
}

// Lines returns the edit script that turns a into b, line by line.
func Lines(a, b string) []Line {
	if a == b {
		return equalLines(a)
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0 // deterministic output, whatever the machine's load
	ra, rb, lineArray := dmp.DiffLinesToRunes(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(ra, rb, false), lineArray)
	var out []Line
	for _, d := range diffs {
		op := Equal
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = Delete
		case diffmatchpatch.DiffInsert:
			op = Insert
		}
		for _, l := range splitLines(d.Text) {
			out = append(out, Line{Op: op, Text: l})
		}
	}
	return out
}

func equalLines(s string) []Line {
	lines := splitLines(s)
	out := make([]Line, len(lines))
	for i, l := range lines {
		out[i] = Line{Op: Equal, Text: l}
	}
	return out
}

// splitLines cuts s after each "\n"; a last line without one is kept.
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// Stats counts the inserted and deleted lines of an edit script.
func Stats(lines []Line) (inserted, deleted int) {
	for _, l := range lines {
		switch l.Op {
		case Insert:
			inserted++
		case Delete:
			deleted++
		}
	}
	return inserted, deleted
}

// DefaultContext is the number of unchanged lines shown around a change, as
// diff -u and git show them.
const DefaultContext = 3

// Unified returns the unified diff between a and b, with from and to as the
// file names of the header and DefaultContext lines of context; "" when the
// texts are equal.
func Unified(from, to, a, b string) string {
	return Format(from, to, Lines(a, b), DefaultContext)
}
