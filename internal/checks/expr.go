package checks

import (
	"strconv"
	"strings"
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

// textPos locates the first character of a scalar's text in its file,
// and knows how the file writes the scalar, so that a byte offset in the
// decoded text maps back to the line and column where it is written:
// through escapes (a "\n" in a double-quoted scalar stays on its line),
// folded line breaks (which decode to a space), and the indentation of
// block scalars.
type textPos struct {
	Line, Column int
	style        yaml.Style
	// indent is the column of a block scalar's content lines.
	indent int
	// lines are the file's lines; nil when unknown (offsets are then
	// placed by counting decoded line breaks).
	lines []string
}

// scalarText returns where a scalar node's text starts. lines are the
// file's lines (1-based access through lines[n-1]), used to map offsets
// inside the text back to the file.
func scalarText(n *yaml.Node, lineOffset int, lines []string) textPos {
	line, col := n.Line+lineOffset, n.Column
	style := n.Style & (yaml.LiteralStyle | yaml.FoldedStyle | yaml.DoubleQuotedStyle | yaml.SingleQuotedStyle)
	switch {
	case style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		tp := textPos{Line: line + 1, Column: 1, style: style, lines: lines}
		// The content starts on the first line that is not empty; its
		// indentation is the block's.
		for tp.Line-1 < len(lines) && strings.TrimSpace(lines[tp.Line-1]) == "" && tp.Line-1 < len(lines)-1 {
			tp.Line++
		}
		if tp.Line-1 < len(lines) {
			l := lines[tp.Line-1]
			i := 0
			for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
				i++
			}
			tp.Column = i + 1
		}
		tp.indent = tp.Column
		return tp
	case style != 0:
		return textPos{Line: line, Column: col + 1, style: style, lines: lines}
	}
	return textPos{Line: line, Column: col, lines: lines}
}

// block reports whether the text is a block scalar (| or >).
func (t textPos) block() bool { return t.style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 }

// from returns the position of a text that starts at p inside this one
// (a ${...} inside a message), written the same way.
func (t textPos) from(p Pos) textPos {
	t.Line, t.Column = p.Line, p.Column
	return t
}

// at returns the file position of a byte offset inside text src.
func (t textPos) at(src string, offset int) Pos {
	offset = min(max(offset, 0), len(src))
	if p, ok := t.walk(src, offset); ok {
		return p
	}
	return t.approx(src, offset)
}

// approx places an offset by counting the decoded line breaks before it,
// for a text whose file lines are unknown.
func (t textPos) approx(src string, offset int) Pos {
	line, col := t.Line, t.Column
	start := 0
	for i := 0; i < offset; i++ {
		if src[i] == '\n' {
			line++
			start = i + 1
		}
	}
	if line != t.Line && !t.block() {
		// A flow scalar continued on the next line: its indentation is not
		// known, report the start of the line.
		return Pos{Line: line, Column: 1}
	}
	if line != t.Line {
		col = t.indent
	}
	return Pos{Line: line, Column: col + utf8.RuneCountInString(src[start:offset])}
}

// walk reads the scalar as the file writes it from the start position,
// decoding as YAML does, until offset bytes of src are decoded. ok is false
// when the file does not match the text (then approx is used).
func (t textPos) walk(src string, offset int) (Pos, bool) {
	li := t.Line - 1
	if t.lines == nil || li < 0 || li >= len(t.lines) {
		return Pos{}, false
	}
	bi, ok := byteIndex(t.lines[li], t.Column)
	if !ok {
		return Pos{}, false
	}
	flow := !t.block()
	here := func() Pos {
		return Pos{Line: li + 1, Column: utf8.RuneCountInString(t.lines[li][:bi]) + 1}
	}
	for d := 0; d < offset; {
		line := strings.TrimSuffix(t.lines[li], "\r")
		if bi >= len(line) {
			// A line break inside the scalar.
			if t.style&yaml.LiteralStyle != 0 {
				if src[d] != '\n' || li+1 >= len(t.lines) {
					return Pos{}, false
				}
				d++
				li++
				bi, _ = byteIndex(t.lines[li], t.indent)
				bi = min(bi, len(t.lines[li]))
				continue
			}
			// Folded (flow scalars, > blocks): empty lines decode to
			// line breaks, a single break to a space (nothing after an
			// escaped break); in a > block, the break before a more
			// indented line is kept as well.
			empty := 0
			for li+1+empty < len(t.lines) && strings.TrimSpace(t.lines[li+1+empty]) == "" {
				empty++
			}
			if li+1+empty >= len(t.lines) {
				return Pos{}, false
			}
			breaks := empty
			if !flow {
				breaks++
			}
			switch {
			case src[d] == ' ' && empty == 0 && !escapedBreak(line, t.style):
				d++
			case src[d] == '\n':
				for i := 0; i < breaks && d < offset && src[d] == '\n'; i++ {
					d++
				}
			}
			if d > offset {
				return here(), true
			}
			li += 1 + empty
			next := t.lines[li]
			if flow {
				bi = len(next) - len(strings.TrimLeft(next, " \t"))
			} else {
				bi, _ = byteIndex(next, t.indent)
				bi = min(bi, len(next))
			}
			continue
		}
		c := line[bi]
		switch {
		case t.style&yaml.DoubleQuotedStyle != 0 && c == '\\':
			if bi+1 == len(line) {
				bi = len(line) // an escaped line break: nothing decoded
				continue
			}
			raw, decoded := escapeSize(line[bi+1:])
			if d+decoded > offset {
				return here(), true
			}
			d += decoded
			bi += 1 + raw
		case t.style&yaml.SingleQuotedStyle != 0 && c == '\'' && bi+1 < len(line) && line[bi+1] == '\'':
			d++
			bi += 2
		case flow && (c == ' ' || c == '\t') && strings.TrimLeft(line[bi:], " \t") == "":
			bi = len(line) // white space before a folded break is dropped
		default:
			_, size := utf8.DecodeRuneInString(line[bi:])
			if d+size > offset {
				return here(), true
			}
			d += size
			bi += size
		}
	}
	return here(), true
}

// escapedBreak reports whether a double-quoted line ends with a backslash
// (an escaped line break, which decodes to nothing).
func escapedBreak(line string, style yaml.Style) bool {
	if style&yaml.DoubleQuotedStyle == 0 || !strings.HasSuffix(line, "\\") {
		return false
	}
	n := len(line) - len(strings.TrimRight(line, "\\"))
	return n%2 == 1
}

// escapeSize returns the length of the escape sequence after a backslash
// in a double-quoted scalar and the number of bytes it decodes to.
func escapeSize(rest string) (raw, decoded int) {
	hex := 0
	switch rest[0] {
	case 'x':
		hex = 2
	case 'u':
		hex = 4
	case 'U':
		hex = 8
	case 'N', '_':
		return 1, 2 // U+0085, U+00A0
	case 'L', 'P':
		return 1, 3 // U+2028, U+2029
	default:
		_, size := utf8.DecodeRuneInString(rest)
		return size, 1
	}
	if len(rest) < 1+hex {
		return len(rest), 1
	}
	r, err := strconv.ParseUint(rest[1:1+hex], 16, 32)
	if err != nil {
		return 1, 1
	}
	n := utf8.RuneLen(rune(r))
	if n < 0 {
		n = 3 // decoded as U+FFFD
	}
	return 1 + hex, n
}

// byteIndex returns the byte index of a 1-based rune column of line.
func byteIndex(line string, col int) (int, bool) {
	i := 0
	for c := 1; c < col; c++ {
		if i >= len(line) {
			return i, false
		}
		_, size := utf8.DecodeRuneInString(line[i:])
		i += size
	}
	return i, true
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
