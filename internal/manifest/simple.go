package manifest

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// DecodeSimple decodes a one-document text written in the plain block
// style machines print and templates write (block mappings and sequences,
// one-line plain and quoted scalars, literal block scalars, one-line flow
// collections, comments) without building yaml.v3's node tree: about a
// sixth of Parse's cost. Its value is exactly Parse's (scalars are typed
// by the same code); ok is false, and the caller must use Parse, for
// anything else: a root that is not a mapping, several documents,
// anchors, aliases, tags, folded or indented block scalars, other
// multi-line scalars, escapes, quoted keys, tabs, non-ASCII text, odd
// indentation, or a number JSON cannot hold. A text that is empty or only
// comments is nil.
//
// The reference comparison parses every template's output for every
// input (10,000 times on the benchmark corpus), where this is the common
// shape; a text DecodeSimple takes is one Parse reads without a problem
// but duplicate keys, whose last value wins in both. Tests hold the two
// to the same value on the test data, the shared corpus and generated
// texts.
func DecodeSimple(text string) (v any, ok bool) {
	if len(text) > simpleMaxBytes {
		return nil, false
	}
	raw := strings.Split(text, "\n")
	lines, ok := simpleLines(text, raw)
	if !ok {
		return nil, false
	}
	if len(lines) == 0 {
		return nil, true
	}
	p := simpleParser{lines: lines, raw: raw}
	first := lines[0]
	if isSeqEntry(first.text) {
		return nil, false // a list at the root: Parse says what is wrong with it
	}
	m, ok := p.mapping(first.indent, 0)
	if !ok || p.pos != len(p.lines) {
		return nil, false
	}
	return m, true
}

// simpleMaxBytes bounds the texts DecodeSimple reads (a larger one is
// Parse's, which enforces the file size limit).
const simpleMaxBytes = 1 << 20

// simpleMaxDepth bounds nesting, far below Limits.MaxDepth.
const simpleMaxDepth = 64

// simpleMaxKey is the longest key taken (yaml.v3 refuses implicit keys
// over 1024 characters).
const simpleMaxKey = 512

// simpleLine is a line holding content: its indentation, its text
// without it and without trailing spaces, and its row in the text.
type simpleLine struct {
	indent int
	text   string
	row    int
}

// simpleLines lists the content lines of text (cut into raw), dropping
// blank and comment lines; ok is false for a byte outside printable ASCII
// and "\n" (tabs, "\r", control characters, UTF-8, a byte-order mark)
// and for document markers and directives.
func simpleLines(text string, raw []string) ([]simpleLine, bool) {
	for i := 0; i < len(text); i++ {
		if c := text[i]; (c < 0x20 || c > 0x7e) && c != '\n' {
			return nil, false
		}
	}
	lines := make([]simpleLine, 0, len(raw))
	for row, line := range raw {
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		rest := strings.TrimRight(line[indent:], " ")
		if rest == "" || rest[0] == '#' {
			continue
		}
		if indent == 0 && (strings.HasPrefix(rest, "---") || strings.HasPrefix(rest, "...") || rest[0] == '%') {
			return nil, false
		}
		lines = append(lines, simpleLine{indent: indent, text: rest, row: row})
	}
	return lines, true
}

type simpleParser struct {
	lines []simpleLine
	raw   []string // every line of the text, for block scalars
	pos   int
}

// next is the indentation of the next content line, -1 at the end.
func (p *simpleParser) next() int {
	if p.pos == len(p.lines) {
		return -1
	}
	return p.lines[p.pos].indent
}

// mapping reads a block mapping whose keys sit at column indent, the
// first on the current line.
func (p *simpleParser) mapping(indent, depth int) (map[string]any, bool) {
	if depth > simpleMaxDepth {
		return nil, false
	}
	out := map[string]any{}
	for p.pos < len(p.lines) && p.lines[p.pos].indent == indent {
		l := p.lines[p.pos]
		if isSeqEntry(l.text) {
			return nil, false
		}
		key, after, ok := splitKey(l.text)
		if !ok {
			return nil, false
		}
		p.pos++
		v, ok := p.value(after, indent, depth+1)
		if !ok {
			return nil, false
		}
		out[key] = v // a duplicate key's last value wins, as in Parse
	}
	if p.next() > indent {
		return nil, false // indented deeper than anything open
	}
	return out, true
}

// value reads the value after a key at column indent: a scalar or flow
// collection on the key's line, or a block node below it.
func (p *simpleParser) value(after string, indent, depth int) (any, bool) {
	s := strings.TrimLeft(after, " ")
	if s == "|" || s == "|-" {
		return p.literal(s == "|-", indent, p.lines[p.pos-1].row)
	}
	if s != "" && s[0] != '#' {
		v, ok := inlineValue(s)
		if !ok || p.next() > indent {
			return nil, false // a continuation line: a multi-line scalar
		}
		return v, true
	}
	n := p.next()
	switch {
	case n > indent:
		return p.block(n, depth)
	case n == indent && isSeqEntry(p.lines[p.pos].text):
		return p.sequence(indent, depth) // a list level with its key
	}
	return nil, true
}

// block reads the block node starting on the current line at column
// indent: a sequence or a mapping.
func (p *simpleParser) block(indent, depth int) (any, bool) {
	if isSeqEntry(p.lines[p.pos].text) {
		return p.sequence(indent, depth)
	}
	if _, _, ok := splitKey(p.lines[p.pos].text); !ok {
		return nil, false // a scalar on a line of its own
	}
	return p.mapping(indent, depth)
}

// sequence reads a block sequence whose dashes sit at column indent.
func (p *simpleParser) sequence(indent, depth int) ([]any, bool) {
	if depth > simpleMaxDepth {
		return nil, false
	}
	var out []any
	for p.pos < len(p.lines) && p.lines[p.pos].indent == indent && isSeqEntry(p.lines[p.pos].text) {
		rest := p.lines[p.pos].text[1:]
		s := strings.TrimLeft(rest, " ")
		var v any
		var ok bool
		switch {
		case s == "" || s[0] == '#':
			p.pos++
			v, ok = nil, true
			if n := p.next(); n > indent {
				v, ok = p.block(n, depth+1)
			}
		case isSeqEntry(s):
			return nil, false // "- - x"
		case s == "|" || s == "|-":
			v, ok = p.literal(s == "|-", indent, p.lines[p.pos].row)
		default:
			if _, _, isKey := splitKey(s); isKey {
				// A mapping starting on the dash's line: its keys sit at
				// the column of the first.
				col := indent + 1 + len(rest) - len(s)
				p.lines[p.pos] = simpleLine{indent: col, text: s}
				v, ok = p.mapping(col, depth+1)
				break
			}
			p.pos++
			v, ok = inlineValue(s)
			if ok && p.next() > indent {
				ok = false // a continuation line
			}
		}
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	if p.next() > indent {
		return nil, false
	}
	return out, true
}

// literal reads a literal block scalar ("|", or "|-" with strip) whose
// header ends row header, its lines indented deeper than parent. ok is
// false for what this reader leaves to yaml.v3: a scalar with no line, a
// blank line before its first or holding more spaces than its indentation,
// and one that ends the text without a line break.
func (p *simpleParser) literal(strip bool, parent, header int) (any, bool) {
	indent, blanks, last := -1, 0, -1
	var b strings.Builder
	row := header + 1
	for ; row < len(p.raw); row++ {
		line := p.raw[row]
		n := 0
		for n < len(line) && line[n] == ' ' {
			n++
		}
		if n == len(line) { // blank
			if indent < 0 || n > indent {
				return nil, false
			}
			blanks++
			continue
		}
		if indent < 0 {
			if n <= parent {
				return nil, false
			}
			indent = n
		}
		if n < indent {
			break
		}
		for ; blanks > 0; blanks-- {
			b.WriteByte('\n')
		}
		b.WriteString(line[indent:])
		b.WriteByte('\n')
		last = row
	}
	if last < 0 || last == len(p.raw)-1 {
		return nil, false
	}
	for p.pos < len(p.lines) && p.lines[p.pos].row < row {
		p.pos++
	}
	v := b.String()
	if strip {
		v = v[:len(v)-1]
	}
	return v, true
}

// isSeqEntry reports whether a line's text starts a sequence entry.
func isSeqEntry(text string) bool {
	return text == "-" || strings.HasPrefix(text, "- ")
}

// splitKey splits "key: rest" or "key:" with a plain key of letters,
// digits and "_./-" (not starting with "-"); ok is false for anything
// else.
func splitKey(text string) (key, after string, ok bool) {
	i := 0
	for i < len(text) && i <= simpleMaxKey && isKeyByte(text[i]) {
		i++
	}
	if i == 0 || i > simpleMaxKey || i == len(text) || text[i] != ':' || text[0] == '-' {
		return "", "", false
	}
	if i+1 < len(text) && text[i+1] != ' ' {
		return "", "", false
	}
	return text[:i], text[i+1:], true
}

func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '/' || c == '-'
}

// inlineValue reads a value written on one line (s is not empty, starts
// and ends with no space): a quoted or plain scalar, or a flow collection.
func inlineValue(s string) (any, bool) {
	switch s[0] {
	case '\'', '"':
		v, rest, ok := quoted(s)
		if !ok || !onlyComment(rest) {
			return nil, false
		}
		return v, true
	case '[', '{':
		return flow(s)
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimRight(s[:i], " ")
	}
	if !plainStart(s) || strings.Contains(s, ": ") || strings.HasSuffix(s, ":") {
		return nil, false
	}
	return plainScalar(s)
}

// plainStart reports whether s may start a plain scalar: not with an
// indicator, and "-", "?" or ":" only before a character that is not a
// space.
func plainStart(s string) bool {
	switch s[0] {
	case '-', '?', ':':
		return len(s) > 1 && s[1] != ' '
	case '[', ']', '{', '}', ',', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return false
	}
	return true
}

// PlainScalar types text as YAML types a plain (unquoted) scalar: a
// whole number an int64, true a bool, null nil. ok is false for a number
// JSON cannot hold (.nan, .inf).
func PlainScalar(s string) (any, bool) { return plainScalar(s) }

// plainScalar types a plain scalar as Parse does; a number JSON cannot
// hold is Parse's to report.
func plainScalar(s string) (any, bool) {
	n := yaml.Node{Kind: yaml.ScalarNode, Value: s}
	tag := n.ShortTag()
	if tag == "!!float" && isNonFinite(s) {
		return nil, false
	}
	return typedScalar(s, tag), true
}

// quoted reads a quoted scalar at the start of s and returns what follows
// it. A single-quoted scalar may hold "”"; a double-quoted one no
// escape. ok is false when it does not end on the line.
func quoted(s string) (v, rest string, ok bool) {
	q := s[0]
	if q == '"' {
		end := strings.IndexByte(s[1:], '"')
		if end < 0 || strings.IndexByte(s[1:1+end], '\\') >= 0 {
			return "", "", false
		}
		return s[1 : 1+end], s[2+end:], true
	}
	var b []byte // nil until a quote written twice
	from := 1
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			b = append(b, s[from:i+1]...) // the text and one quote
			i++
			from = i + 1
			continue
		}
		if b == nil {
			return s[1:i], s[i+1:], true
		}
		return string(append(b, s[from:i]...)), s[i+1:], true
	}
	return "", "", false
}

// onlyComment reports whether what follows a value on its line is
// nothing, or spaces and a comment.
func onlyComment(rest string) bool {
	t := strings.TrimLeft(rest, " ")
	return t == "" || t[0] == '#' && len(t) < len(rest)
}

// flow reads a one-line flow collection of scalars and flow collections
// ("[ALL]", "{cpu: 100m, memory: 128Mi}", "{command: [a, b]}", "[]"),
// followed by nothing or a comment.
func flow(s string) (any, bool) {
	v, end, ok := flowCollection(s, 0, 0)
	if !ok || !onlyComment(s[end:]) {
		return nil, false
	}
	return v, true
}

// flowCollection reads the flow sequence or mapping starting at s[i] and
// returns the index after it.
func flowCollection(s string, i, depth int) (any, int, bool) {
	if depth > simpleMaxDepth {
		return nil, 0, false
	}
	open, closer := s[i], byte(']')
	if open == '{' {
		closer = '}'
	}
	var list []any
	var m map[string]any
	if open == '[' {
		list = []any{}
	} else {
		m = map[string]any{}
	}
	i++
	for first := true; ; first = false {
		i = skipSpaces(s, i)
		if i < len(s) && s[i] == closer && first {
			i++
			break
		}
		var key string
		if m != nil {
			j := i
			for j < len(s) && isKeyByte(s[j]) {
				j++
			}
			if j == i || s[i] == '-' || j+1 >= len(s) || s[j] != ':' || s[j+1] != ' ' {
				return nil, 0, false
			}
			key, i = s[i:j], skipSpaces(s, j+2)
		}
		v, next, ok := flowNode(s, i, depth+1)
		if !ok {
			return nil, 0, false
		}
		if m != nil {
			m[key] = v
		} else {
			list = append(list, v)
		}
		i = skipSpaces(s, next)
		if i == len(s) {
			return nil, 0, false
		}
		if s[i] == closer {
			i++
			break
		}
		if s[i] != ',' {
			return nil, 0, false
		}
		i++
	}
	if m != nil {
		return m, i, true
	}
	return list, i, true
}

func skipSpaces(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	return i
}

// flowNode reads one node of a flow collection at s[i]: a collection, a
// quoted scalar, or a plain one of letters, digits, spaces and
// "._/+-=~$^()<>;" (no ":" or "#", which read differently there); it
// returns the index after it.
func flowNode(s string, i, depth int) (any, int, bool) {
	if i >= len(s) {
		return nil, 0, false
	}
	switch s[i] {
	case '[', '{':
		return flowCollection(s, i, depth)
	case '\'', '"':
		v, rest, ok := quoted(s[i:])
		return v, len(s) - len(rest), ok
	}
	j := i
	for j < len(s) && isFlowPlainByte(s[j]) {
		j++
	}
	text := strings.TrimRight(s[i:j], " ")
	if text == "" || !plainStart(text) {
		return nil, 0, false
	}
	v, ok := plainScalar(text)
	return v, j, ok
}

func isFlowPlainByte(c byte) bool {
	if isKeyByte(c) {
		return true
	}
	switch c {
	case ' ', '+', '=', '~', '$', '^', '(', ')', '<', '>', ';':
		return true
	}
	return false
}
