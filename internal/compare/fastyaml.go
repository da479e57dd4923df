package compare

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Parsing every template's output with yaml.v3 dominated the comparison's
// cost. fastYAML parses the subset of YAML that templates and manifests use
// almost always — block mappings and sequences, plain, quoted and literal
// scalars, single-line flow collections, comments — with the same typing as
// plumb's loader (scalars are resolved by yaml.v3 itself). Anything outside
// the subset (anchors, tags, folded or multi-line flow scalars, tabs in
// indentation, several documents, ...) returns ok=false and the caller
// falls back to yaml.v3, so the subset only has to be right, not complete.

type fyLine struct {
	indent int
	text   string // the line without its indentation
}

type fastYAML struct {
	lines []fyLine
	pos   int
}

// parseFastYAML parses one document; ok=false means "not in the subset".
func parseFastYAML(text string) (v any, ok bool) {
	if !strings.HasSuffix(text, "\n") || strings.ContainsAny(text, "\r\x00\ufeff") || !utf8.ValidString(text) {
		return nil, false
	}
	p := &fastYAML{}
	started := false
	for _, raw := range strings.Split(text[:len(text)-1], "\n") {
		t := strings.TrimLeft(raw, " ")
		indent := len(raw) - len(t)
		if strings.HasPrefix(t, "\t") {
			return nil, false // tabs in indentation
		}
		if !started && (t == "" || t[0] == '#') {
			continue
		}
		if indent == 0 && (strings.HasPrefix(t, "---") || strings.HasPrefix(t, "...") || strings.HasPrefix(t, "%")) {
			if started || strings.TrimRight(t, " ") != "---" {
				return nil, false // several documents, directives, or content after ---
			}
			started = true
			continue
		}
		started = true
		p.lines = append(p.lines, fyLine{indent: indent, text: t})
	}
	p.skipBlank()
	if p.pos == len(p.lines) {
		return nil, false // empty: let yaml.v3 say what it is
	}
	if p.lines[p.pos].indent != 0 {
		return nil, false
	}
	defer func() {
		if r := recover(); r != nil {
			if _, unsupported := r.(fyUnsupported); !unsupported {
				panic(r)
			}
			v, ok = nil, false
		}
	}()
	v = p.block(0)
	p.skipBlank()
	if p.pos != len(p.lines) {
		return nil, false
	}
	return v, true
}

type fyUnsupported struct{}

func unsupported() { panic(fyUnsupported{}) }

func isBlank(t string) bool { return t == "" || t[0] == '#' }

// skipBlank skips empty and comment lines (outside literal blocks).
func (p *fastYAML) skipBlank() {
	for p.pos < len(p.lines) && isBlank(p.lines[p.pos].text) {
		p.pos++
	}
}

func isSeqItem(t string) bool { return t == "-" || strings.HasPrefix(t, "- ") }

// block parses the mapping or sequence starting at the current line.
func (p *fastYAML) block(indent int) any {
	if isSeqItem(p.lines[p.pos].text) {
		return p.sequence(indent)
	}
	return p.mapping(indent)
}

func (p *fastYAML) mapping(indent int) map[string]any {
	m := map[string]any{}
	for {
		p.skipBlank()
		if p.pos == len(p.lines) {
			return m
		}
		l := p.lines[p.pos]
		if l.indent < indent {
			return m
		}
		if l.indent > indent || isSeqItem(l.text) || strings.ContainsRune(l.text, '\t') {
			unsupported() // tabs outside literal blocks: let yaml.v3 judge
		}
		key, rest := splitKey(l.text)
		p.pos++
		m[key] = p.value(indent, rest, true)
	}
}

func (p *fastYAML) sequence(indent int) []any {
	list := []any{}
	for {
		p.skipBlank()
		if p.pos == len(p.lines) {
			return list
		}
		l := p.lines[p.pos]
		if l.indent < indent || l.indent == indent && !isSeqItem(l.text) {
			return list
		}
		if l.indent > indent || strings.ContainsRune(l.text, '\t') {
			unsupported()
		}
		item := strings.TrimLeft(l.text[1:], " ")
		itemIndent := indent + len(l.text) - len(item)
		switch {
		case item == "" || item[0] == '#':
			p.pos++
			list = append(list, p.value(indent, "", false))
		case isSeqItem(item):
			unsupported() // "- - x"
		case looksLikeKey(item):
			// "- key: value": a mapping whose first line starts here.
			p.lines[p.pos] = fyLine{indent: itemIndent, text: item}
			list = append(list, p.mapping(itemIndent))
		default:
			p.pos++
			list = append(list, p.value(indent, item, false))
		}
	}
}

// value parses what follows "key:" or "- " (rest) for a node whose parent
// is at indent. In a mapping, a sequence may sit at the key's own indent.
func (p *fastYAML) value(indent int, rest string, inMapping bool) any {
	if rest == "" || rest[0] == '#' {
		p.skipBlank()
		if p.pos == len(p.lines) {
			return nil
		}
		next := p.lines[p.pos]
		switch {
		case next.indent > indent:
			return p.block(next.indent)
		case inMapping && next.indent == indent && isSeqItem(next.text):
			return p.sequence(indent)
		}
		return nil
	}
	switch rest[0] {
	case '|':
		return p.literal(indent, rest)
	case '"', '\'':
		s, after := quoted(rest)
		endOfValue(after)
		return s
	case '[', '{':
		v, after := flowValue(rest)
		endOfValue(after)
		return v
	case '>', '&', '*', '!', '%', '@', '`', ',', ']', '}', '?', ':':
		unsupported()
	}
	if isSeqItem(rest) {
		unsupported()
	}
	s := plainText(rest)
	// A plain scalar continued on the next lines is not in the subset.
	if p.pos < len(p.lines) && !isBlank(p.lines[p.pos].text) && p.lines[p.pos].indent > indent {
		unsupported()
	}
	return plainScalar(s)
}

// endOfValue accepts only spaces and a comment after a value.
func endOfValue(after string) {
	after = strings.TrimLeft(after, " ")
	if after != "" && after[0] != '#' {
		unsupported()
	}
}

// plainText cuts a trailing comment and spaces from a plain scalar and
// rejects what YAML would read as a nested mapping.
func plainText(s string) string {
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimRight(s, " \t")
	if strings.Contains(s, ": ") || strings.HasSuffix(s, ":") || strings.Contains(s, ":\t") {
		unsupported()
	}
	return s
}

// looksLikeKey reports whether a sequence item starts a mapping.
func looksLikeKey(s string) bool {
	if s[0] == '"' || s[0] == '\'' {
		_, after := quotedNoPanic(s)
		return strings.HasPrefix(after, ":") && (len(after) == 1 || after[1] == ' ')
	}
	if s[0] == '[' || s[0] == '{' || s[0] == '|' || s[0] == '>' {
		return false
	}
	i := keyColon(s)
	return i >= 0
}

// keyColon finds the ':' ending a plain key (followed by a space or the end
// of the line, before any comment).
func keyColon(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ':':
			if i+1 == len(s) || s[i+1] == ' ' {
				return i
			}
		case '#':
			if i > 0 && s[i-1] == ' ' {
				return -1
			}
		}
	}
	return -1
}

func splitKey(t string) (key, rest string) {
	if t[0] == '"' || t[0] == '\'' {
		k, after := quoted(t)
		if !strings.HasPrefix(after, ":") || len(after) > 1 && after[1] != ' ' {
			unsupported()
		}
		return k, strings.TrimLeft(after[1:], " ")
	}
	if strings.ContainsRune("[]{}&*!|>%@`,?-#<", rune(t[0])) {
		unsupported() // flow or complex keys, anchors, merge keys, ...
	}
	i := keyColon(t)
	if i <= 0 {
		unsupported()
	}
	key = strings.TrimRight(t[:i], " ")
	if key == "" || strings.ContainsAny(key, "\t") {
		unsupported()
	}
	return key, strings.TrimLeft(t[i+1:], " ")
}

// literal parses a block literal scalar (| with optional chomping).
func (p *fastYAML) literal(indent int, header string) string {
	chomp := byte(0)
	h := header[1:]
	if h != "" && (h[0] == '-' || h[0] == '+') {
		chomp, h = h[0], h[1:]
	}
	if h = strings.TrimLeft(h, " "); h != "" && h[0] != '#' {
		unsupported() // indentation indicators and the like
	}
	// Content lines are every following line indented deeper than the
	// parent, and blank lines; the first content line sets the indentation.
	var lines []string
	contentIndent := -1
	for p.pos < len(p.lines) {
		l := p.lines[p.pos]
		if l.text == "" {
			if contentIndent >= 0 && l.indent > contentIndent {
				lines = append(lines, strings.Repeat(" ", l.indent-contentIndent))
			} else {
				if contentIndent < 0 && l.indent > 0 {
					unsupported() // leading blank lines with spaces: let yaml.v3 judge
				}
				lines = append(lines, "")
			}
			p.pos++
			continue
		}
		if l.indent <= indent {
			break
		}
		if contentIndent < 0 {
			contentIndent = l.indent
		}
		if l.indent < contentIndent {
			unsupported() // less indented than the block: invalid or odd
		}
		lines = append(lines, strings.Repeat(" ", l.indent-contentIndent)+l.text)
		p.pos++
	}
	// Trailing blank lines belong to the block only for "keep" chomping;
	// give them back to the parser otherwise.
	end := len(lines)
	for end > 0 && strings.TrimLeft(lines[end-1], " ") == "" {
		end--
	}
	trailing := len(lines) - end
	content := lines[:end]
	if len(content) == 0 {
		if chomp == '+' {
			return strings.Repeat("\n", trailing)
		}
		return ""
	}
	s := strings.Join(content, "\n")
	switch chomp {
	case '-':
		return s
	case '+':
		return s + "\n" + strings.Repeat("\n", trailing)
	}
	return s + "\n"
}

// quoted parses a quoted scalar that ends on the same line and returns the
// rest of the line.
func quoted(s string) (string, string) {
	v, after, ok := parseQuoted(s)
	if !ok {
		unsupported()
	}
	return v, after
}

func quotedNoPanic(s string) (string, string) {
	v, after, _ := parseQuoted(s)
	return v, after
}

func parseQuoted(s string) (value, after string, ok bool) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		if q == '\'' {
			if c == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				return b.String(), s[i+1:], true
			}
			b.WriteByte(c)
			continue
		}
		switch c {
		case '"':
			return b.String(), s[i+1:], true
		case '\\':
			if i+1 >= len(s) {
				return "", "", false
			}
			i++
			switch e := s[i]; e {
			case '0':
				b.WriteByte(0)
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 't', '\t':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'v':
				b.WriteByte('\v')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case 'e':
				b.WriteByte(0x1b)
			case ' ', '"', '/', '\\':
				b.WriteByte(e)
			case 'N':
				b.WriteString("\u0085")
			case '_':
				b.WriteString("\u00a0")
			case 'L':
				b.WriteString("\u2028")
			case 'P':
				b.WriteString("\u2029")
			case 'x', 'u', 'U':
				n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
				if i+n >= len(s) {
					return "", "", false
				}
				r, err := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
				if err != nil || !utf8.ValidRune(rune(r)) {
					return "", "", false
				}
				b.WriteRune(rune(r))
				i += n
			default:
				return "", "", false
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", "", false // not closed on this line
}

// flowValue parses a single-line flow collection and returns the rest.
func flowValue(s string) (any, string) {
	v, rest := flowNode(s)
	return v, rest
}

func flowNode(s string) (any, string) {
	s = strings.TrimLeft(s, " ")
	if s == "" {
		unsupported()
	}
	switch s[0] {
	case '[':
		list := []any{}
		s = strings.TrimLeft(s[1:], " ")
		if strings.HasPrefix(s, "]") {
			return list, s[1:]
		}
		for {
			var v any
			v, s = flowNode(s)
			if _, isMap := v.(map[string]any); !isMap && strings.HasPrefix(strings.TrimLeft(s, " "), ":") {
				unsupported() // single-pair mappings inside a flow sequence
			}
			list = append(list, v)
			s = strings.TrimLeft(s, " ")
			switch {
			case strings.HasPrefix(s, ","):
				s = strings.TrimLeft(s[1:], " ")
				if strings.HasPrefix(s, "]") {
					unsupported()
				}
			case strings.HasPrefix(s, "]"):
				return list, s[1:]
			default:
				unsupported()
			}
		}
	case '{':
		m := map[string]any{}
		s = strings.TrimLeft(s[1:], " ")
		if strings.HasPrefix(s, "}") {
			return m, s[1:]
		}
		for {
			var key string
			if s != "" && (s[0] == '"' || s[0] == '\'') {
				key, s = quoted(s)
			} else {
				i := strings.IndexAny(s, ":,{}[]#")
				if i <= 0 || s[i] != ':' {
					unsupported()
				}
				key, s = strings.TrimRight(s[:i], " "), s[i:]
			}
			if !strings.HasPrefix(s, ": ") && !strings.HasPrefix(s, ":,") && !strings.HasPrefix(s, ":}") {
				unsupported()
			}
			s = s[1:]
			var v any
			if t := strings.TrimLeft(s, " "); strings.HasPrefix(t, ",") || strings.HasPrefix(t, "}") {
				v, s = nil, t
			} else {
				v, s = flowNode(s)
			}
			m[key] = v
			s = strings.TrimLeft(s, " ")
			switch {
			case strings.HasPrefix(s, ","):
				s = strings.TrimLeft(s[1:], " ")
				if strings.HasPrefix(s, "}") {
					unsupported()
				}
			case strings.HasPrefix(s, "}"):
				return m, s[1:]
			default:
				unsupported()
			}
		}
	case '"', '\'':
		return quoted(s)
	case '&', '*', '!', '|', '>', '%', '@', '`', '#', ',', ']', '}', '?', ':', '-':
		if s[0] == '-' && len(s) > 1 && s[1] != ' ' && s[1] != ',' {
			break // a negative number or a word starting with '-'
		}
		unsupported()
	}
	i := strings.IndexAny(s, ",[]{}#")
	if i < 0 {
		unsupported() // the collection is not closed on this line
	}
	text := strings.TrimRight(s[:i], " ")
	if strings.Contains(text, ": ") || strings.HasSuffix(text, ":") || text == "" || s[i] == '#' || s[i] == '[' || s[i] == '{' {
		unsupported()
	}
	return plainScalar(text), s[i:]
}

// plainScalar types a plain scalar exactly as plumb's loader does: yaml.v3
// resolves the tag, then null, bool, int and float become values and
// everything else (timestamps included) a string.
func plainScalar(s string) any {
	if s == "" {
		return nil
	}
	if !strings.ContainsRune("0123456789+-.~yYnNtTfFoO<", rune(s[0])) {
		return s // no other tag can start with this byte
	}
	switch (&yaml.Node{Kind: yaml.ScalarNode, Value: s}).ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		b, err := strconv.ParseBool(strings.ToLower(s))
		if err != nil {
			return s
		}
		return b
	case "!!int":
		return scalarInt(s)
	case "!!float":
		return scalarFloat(s)
	case "!!merge":
		unsupported()
	}
	return s
}

func scalarInt(s string) any {
	t := strings.ReplaceAll(s, "_", "")
	if i, err := strconv.ParseInt(t, 0, 64); err == nil {
		return i
	}
	if u, err := strconv.ParseUint(t, 0, 64); err == nil {
		return float64(u)
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		return f
	}
	return s
}

func scalarFloat(s string) any {
	switch strings.ToLower(strings.TrimPrefix(s, "+")) {
	case ".inf":
		return math.Inf(1)
	case "-.inf":
		return math.Inf(-1)
	case ".nan":
		return math.NaN()
	}
	if f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64); err == nil {
		return f
	}
	return s
}
