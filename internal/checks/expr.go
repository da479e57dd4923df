package checks

import (
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"go.yaml.in/yaml/v3"
)

// Expr is one CEL expression of a check, compiled once at load.
type Expr struct {
	Source string
	// text says where the expression's text sits in the file, to place
	// compile errors at their exact line and column.
	text textPos

	prog cel.Program
	// fast is prog without cost tracking (see costPlan).
	fast  cel.Program
	scope scope
	ast   *cel.Ast
	// errs are the compile errors; a check with such errors fails lint, and
	// in lenient evaluation the expression behaves as Wanda's parse errors
	// do.
	errs []compileError
}

// Compiled reports whether the expression compiled.
func (e *Expr) Compiled() bool { return e != nil && e.prog != nil }

// textPos locates the first character of a scalar's text in its file.
type textPos struct {
	Line, Column int
	// block is set for literal and folded scalars, whose lines keep their
	// own indentation column.
	block bool
}

// scalarText returns where a scalar node's text starts. lines are the
// file's lines (1-based access through lines[n-1]), used for the
// indentation of block scalars.
func scalarText(n *yaml.Node, lineOffset int, lines []string) textPos {
	line, col := n.Line+lineOffset, n.Column
	switch {
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		tp := textPos{Line: line + 1, Column: 1, block: true}
		if tp.Line-1 < len(lines) {
			l := lines[tp.Line-1]
			i := 0
			for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
				i++
			}
			tp.Column = i + 1
		}
		return tp
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		return textPos{Line: line, Column: col + 1}
	}
	return textPos{Line: line, Column: col}
}

// at returns the file position of a byte offset inside text src.
func (t textPos) at(src string, offset int) Pos {
	if offset > len(src) {
		offset = len(src)
	}
	line, col := t.Line, t.Column
	start := 0
	for i := 0; i < offset; i++ {
		if src[i] == '\n' {
			line++
			start = i + 1
		}
	}
	if line != t.Line && !t.block {
		// A flow scalar continued on the next line: its indentation is not
		// known, report the start of the line.
		return Pos{Line: line, Column: 1}
	}
	if line != t.Line {
		col = t.Column
	}
	return Pos{Line: line, Column: col + utf8.RuneCountInString(src[start:offset])}
}

// offsetOf converts a 1-based line and column inside src to a byte offset.
func offsetOf(src string, line, col int) int {
	off := 0
	for l := 1; l < line && off < len(src); off++ {
		if src[off] == '\n' {
			l++
		}
	}
	for c := 1; c < col && off < len(src); c++ {
		_, size := utf8.DecodeRuneInString(src[off:])
		off += size
	}
	return off
}

// errPos places a compile error in the file.
func (e *Expr) errPos(ce compileError) Pos {
	if ce.Line == 0 {
		return e.text.at(e.Source, 0)
	}
	return e.text.at(e.Source, offsetOf(e.Source, ce.Line, ce.Column))
}
