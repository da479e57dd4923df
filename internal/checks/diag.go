package checks

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Diagnostic levels.
const (
	LevelError   = "error"
	LevelWarning = "warning"
)

// Diagnostic is one lint result: a problem in a catalog file at a line.
type Diagnostic struct {
	File   string `json:"file"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	// Level is error (the check cannot be used) or warning.
	Level string `json:"level"`
	// Check is the id of the check, when known.
	Check string `json:"check,omitempty"`
	// Path is where in the check the problem is, e.g. expectations[0].expect.
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// String prints file:line:col: level: path: message.
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.File)
	if d.Line > 0 {
		fmt.Fprintf(&b, ":%d", d.Line)
		if d.Column > 0 {
			fmt.Fprintf(&b, ":%d", d.Column)
		}
	}
	b.WriteString(": ")
	b.WriteString(d.Level)
	b.WriteString(": ")
	if d.Path != "" {
		b.WriteString(d.Path)
		b.WriteString(": ")
	}
	b.WriteString(d.Message)
	return b.String()
}

// sortDiagnostics orders diagnostics by file, line, column and message.
func sortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(
			strings.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Column, b.Column),
			strings.Compare(a.Message, b.Message),
		)
	})
}

// countErrors counts diagnostics of level error.
func countErrors(ds []Diagnostic) int {
	n := 0
	for _, d := range ds {
		if d.Level == LevelError {
			n++
		}
	}
	return n
}
