package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// yamlText prints a value tree the way kube-compare normalises both sides
// before diffing: mapping keys sorted byte-wise at every level, two-space
// indentation, list items level with their parent key, multi-line strings
// as literal blocks. Long strings are not folded, so one field stays one
// line. Strings are quoted whenever a YAML reader could take them for
// something else, so the text reads back to the same value.
func yamlText(v any) string {
	var b strings.Builder
	c, err := toValue(v)
	if err != nil {
		c = fmt.Sprint(v)
	}
	switch t := c.(type) {
	case map[string]any:
		if len(t) == 0 {
			return "{}\n"
		}
		emitMap(&b, t, 0)
	case []any:
		if len(t) == 0 {
			return "[]\n"
		}
		emitList(&b, t, 0)
	default:
		emitScalar(&b, c, 2)
		b.WriteByte('\n')
	}
	return b.String()
}

func writeIndent(b *strings.Builder, n int) {
	for i := 0; i < n; i++ {
		b.WriteByte(' ')
	}
}

// emitMap writes a non-empty mapping whose first key is already positioned
// (at column indent); later keys are indented.
func emitMap(b *strings.Builder, m map[string]any, indent int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			writeIndent(b, indent)
		}
		writeString(b, k, -1)
		b.WriteByte(':')
		switch v := m[k].(type) {
		case map[string]any:
			if len(v) == 0 {
				b.WriteString(" {}\n")
				continue
			}
			b.WriteByte('\n')
			writeIndent(b, indent+2)
			emitMap(b, v, indent+2)
		case []any:
			if len(v) == 0 {
				b.WriteString(" []\n")
				continue
			}
			b.WriteByte('\n')
			writeIndent(b, indent)
			emitList(b, v, indent)
		default:
			b.WriteByte(' ')
			emitScalar(b, v, indent+2)
			b.WriteByte('\n')
		}
	}
}

// emitList writes a non-empty list whose first "- " is already positioned.
func emitList(b *strings.Builder, l []any, indent int) {
	for i, x := range l {
		if i > 0 {
			writeIndent(b, indent)
		}
		b.WriteString("- ")
		switch v := x.(type) {
		case map[string]any:
			if len(v) == 0 {
				b.WriteString("{}\n")
				continue
			}
			emitMap(b, v, indent+2)
		case []any:
			if len(v) == 0 {
				b.WriteString("[]\n")
				continue
			}
			emitList(b, v, indent+2)
		default:
			emitScalar(b, v, indent+2)
			b.WriteByte('\n')
		}
	}
}

// emitScalar writes a scalar; block is the indentation of a literal
// block's content.
func emitScalar(b *strings.Builder, v any, block int) {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case int64:
		b.WriteString(strconv.FormatInt(t, 10))
	case float64:
		b.WriteString(formatFloat(t))
	case string:
		writeString(b, t, block)
	default:
		writeString(b, fmt.Sprint(t), block)
	}
}

// writeString writes a string plain when that reads back as the same
// string, as a literal block when it spans lines (block >= 0), and
// double-quoted otherwise.
func writeString(b *strings.Builder, s string, block int) {
	switch {
	case plainSafe(s):
		b.WriteString(s)
	case block >= 0 && literalSafe(s):
		b.WriteByte('|')
		body := strings.TrimRight(s, "\n")
		switch trailing := len(s) - len(body); {
		case trailing == 0:
			b.WriteByte('-')
		case trailing > 1:
			b.WriteByte('+')
		}
		for _, line := range strings.Split(body, "\n") {
			b.WriteByte('\n')
			if line != "" {
				writeIndent(b, block)
				b.WriteString(line)
			}
		}
		for i := 1; i < len(s)-len(body); i++ {
			b.WriteByte('\n')
		}
	case s != "" && singleQuotable(s):
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(s, "'", "''"))
		b.WriteByte('\'')
	default:
		writeQuoted(b, s)
	}
}

// singleQuotable reports whether single quotes can hold s (one line of
// printable text), the style YAML emitters prefer when plain is not safe.
func singleQuotable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0xfeff || !unicode.IsPrint(r) && r != ' ' {
			return false
		}
	}
	return true
}

// yaml11Words are plain words YAML 1.1 readers take for booleans or null;
// they are quoted so every reader sees a string.
var yaml11Words = map[string]bool{"y": true, "yes": true, "n": true, "no": true, "on": true, "off": true, "true": true, "false": true, "null": true, "~": true}

func plainSafe(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' || strings.ContainsRune("-?:,[]{}#&*!|>'\"%@`", rune(s[0])) {
		return false
	}
	if strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":") {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == 0xfeff || !unicode.IsPrint(r) && r != ' ' {
			return false
		}
	}
	if yaml11Words[strings.ToLower(s)] || s == "<<" {
		return false
	}
	if strings.ContainsRune("0123456789+-.~yYnNtTfFoO<", rune(s[0])) {
		return (&yaml.Node{Kind: yaml.ScalarNode, Value: s}).ShortTag() == "!!str"
	}
	return true
}

// literalSafe accepts multi-line text a literal block reproduces exactly.
func literalSafe(s string) bool {
	body := strings.TrimRight(s, "\n")
	if !strings.Contains(s, "\n") {
		return false
	}
	// The first line with content sets the block's indentation, so it may
	// not start with white space.
	if first := strings.TrimLeft(body, "\n"); first == "" || first[0] == ' ' || first[0] == '\t' {
		return false
	}
	for _, line := range strings.Split(body, "\n") {
		if strings.HasSuffix(line, " ") || strings.HasSuffix(line, "\t") {
			return false
		}
		for _, r := range line {
			if r < 0x20 && r != '\t' || r == 0x7f || r == 0xfeff || !unicode.IsPrint(r) && r != ' ' && r != '\t' {
				return false
			}
		}
	}
	return true
}

func writeQuoted(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if r < 0x20 || r == 0x7f || !unicode.IsPrint(r) && r != ' ' {
				if r <= 0xffff {
					fmt.Fprintf(b, `\u%04x`, r)
				} else {
					fmt.Fprintf(b, `\U%08x`, r)
				}
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// formatFloat prints a float as JSON would (kube-compare's values pass
// through JSON): whole numbers without a fraction.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return ".nan"
	case math.IsInf(f, 1):
		return ".inf"
	case math.IsInf(f, -1):
		return "-.inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// parseLimits bound what a template's output or a patch may cost.
var parseLimits = manifest.Limits{MaxFileBytes: 8 << 20}

// parseYAMLObject parses one YAML document into a mapping, typed as plumb
// types its inputs (YAML 1.2 core schema: whole numbers are int64). An
// empty text is an empty mapping.
func parseYAMLObject(name, text string) (map[string]any, error) {
	v, err := parseYAMLValue(name, text)
	if err != nil {
		return nil, err
	}
	switch t := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return t, nil
	}
	return nil, fmt.Errorf("the YAML is a %s, not a mapping", kindName(v))
}

// parseYAMLValue parses the only YAML document of text (nil when empty):
// with the fast parser when the text is in its subset, else with yaml.v3.
func parseYAMLValue(name, text string) (any, error) {
	if v, ok := parseFastYAML(text); ok {
		return v, nil
	}
	docs, problems := manifest.Parse(name, []byte(text), parseLimits)
	for _, p := range problems {
		if p.Rule == manifest.RuleDuplicateKey {
			continue // the last value wins, as in kube-compare
		}
		return nil, fmt.Errorf("line %d: %s", p.Location.Line, p.Message)
	}
	switch len(docs) {
	case 0:
		return nil, nil
	case 1:
		return docs[0].Value, nil
	}
	return nil, fmt.Errorf("%d YAML documents where one object was expected (the second starts at line %d)",
		len(docs), docs[1].Start().Line)
}

func kindName(v any) string {
	switch v.(type) {
	case []any:
		return "list"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64, float64:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// linePaths maps each line (1-based; index 0 unused) of a text printed by
// yamlText to the field it belongs to, and records every field's line span,
// so diff lines can be turned into field paths.
type linePaths struct {
	line  []manifest.Path // deepest field of each line
	spans []fieldSpan
}

type fieldSpan struct {
	path       manifest.Path
	start, end int // inclusive line numbers
}

func mapLines(text string) *linePaths {
	lines := strings.Count(text, "\n")
	lp := &linePaths{line: make([]manifest.Path, lines+2)}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil || len(doc.Content) == 0 {
		return lp
	}
	lp.walk(doc.Content[0], nil, 1, lines)
	return lp
}

func (lp *linePaths) walk(n *yaml.Node, path manifest.Path, start, end int) {
	if len(path) > 0 {
		lp.spans = append(lp.spans, fieldSpan{path: path, start: start, end: end})
	}
	for l := start; l <= end && l < len(lp.line); l++ {
		lp.line[l] = path
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			s := n.Content[i].Line
			e := end
			if i+2 < len(n.Content) {
				e = n.Content[i+2].Line - 1
			}
			lp.walk(n.Content[i+1], path.Child(manifest.Key(n.Content[i].Value)), s, max(s, e))
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			s := c.Line
			e := end
			if i+1 < len(n.Content) {
				e = n.Content[i+1].Line - 1
			}
			lp.walk(c, path.Child(manifest.Index(i)), s, max(s, e))
		}
	}
}
