package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// Interpolation follows Python's str.format replacement fields, which is what
// Ironic's rules use: {node.metadata.name}, {inventory[target][name]},
// {plugin_data[environment]}, {item}. A field is a root name followed by
// .name and [key] accessors; [digits] indexes a list (or is the key "digits"
// of a mapping); {{ and }} are literal braces. Format specifications and
// conversions ({x:03d}, {x!r}) are not supported.
//
// Templates are parsed once, when the rule is loaded.

// root names the data a field reads.
type root uint8

const (
	rootNode root = iota + 1
	rootInventory
	rootPluginData
	rootItem
)

var rootNames = map[string]root{
	"node":        rootNode,
	"inventory":   rootInventory,
	"plugin_data": rootPluginData,
	"item":        rootItem,
}

// accessor is one .name or [key] step.
type accessor struct {
	key     string
	index   int
	isIndex bool // [digits]: a list index, or the key "digits" of a mapping
}

// ref is one replacement field.
type ref struct {
	root root
	path []accessor
	// text is the field as written, braces included ("{node.kind}").
	text string
}

// part is a literal run or a field.
type part struct {
	lit string
	ref *ref
}

// template is a parsed string with at least one field.
type template struct {
	src   string
	parts []part
	// srcValue is src as an interface value, made once: an evaluation
	// that keeps the text as written returns it without allocating.
	srcValue any
}

// whole reports whether the string is exactly one field, which keeps the
// referenced value's type (D1).
func (t *template) whole() *ref {
	if len(t.parts) == 1 && t.parts[0].ref != nil {
		return t.parts[0].ref
	}
	return nil
}

// refs lists the template's fields.
func (t *template) refs() []*ref {
	var out []*ref
	for _, p := range t.parts {
		if p.ref != nil {
			out = append(out, p.ref)
		}
	}
	return out
}

// parseTemplate parses s. It returns a nil template for a string without
// fields (after {{ and }} are unescaped, the literal is returned too).
func parseTemplate(s string) (*template, string, error) {
	if !strings.ContainsAny(s, "{}") {
		return nil, s, nil
	}
	var parts []part
	var lit strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '{' && i+1 < len(s) && s[i+1] == '{':
			lit.WriteByte('{')
			i += 2
		case c == '}' && i+1 < len(s) && s[i+1] == '}':
			lit.WriteByte('}')
			i += 2
		case c == '}':
			return nil, "", fmt.Errorf("single '}' at offset %d (write '}}' for a literal brace)", i)
		case c == '{':
			r, n, err := parseField(s, i)
			if err != nil {
				return nil, "", err
			}
			if lit.Len() > 0 {
				parts = append(parts, part{lit: lit.String()})
				lit.Reset()
			}
			parts = append(parts, part{ref: r})
			i = n
		default:
			lit.WriteByte(c)
			i++
		}
	}
	if len(parts) == 0 {
		return nil, lit.String(), nil
	}
	if lit.Len() > 0 {
		parts = append(parts, part{lit: lit.String()})
	}
	return &template{src: s, parts: parts, srcValue: s}, "", nil
}

// parseField parses the field that starts at s[i] == '{' and returns the
// offset after its closing brace.
func parseField(s string, start int) (*ref, int, error) {
	i := start + 1
	j := i
	for j < len(s) && !strings.ContainsRune(".[}!:{", rune(s[j])) {
		j++
	}
	name := s[i:j]
	if name == "" {
		if j < len(s) && s[j] == '}' {
			return nil, 0, fmt.Errorf("empty field {} at offset %d (write '{{}}' for literal braces)", start)
		}
		return nil, 0, fmt.Errorf("field at offset %d has no name (write '{{' for a literal brace)", start)
	}
	rt, ok := rootNames[name]
	if !ok {
		return nil, 0, fmt.Errorf("unknown name %q in field at offset %d: use node, inventory, plugin_data or item (write '{{' for a literal brace)", name, start)
	}
	r := &ref{root: rt}
	i = j
	for i < len(s) {
		switch s[i] {
		case '.':
			j = i + 1
			for j < len(s) && !strings.ContainsRune(".[}!:{", rune(s[j])) {
				j++
			}
			if j == i+1 {
				return nil, 0, fmt.Errorf("empty attribute name after '.' at offset %d", i)
			}
			r.path = append(r.path, accessor{key: s[i+1 : j]})
			i = j
		case '[':
			end := strings.IndexByte(s[i:], ']')
			if end < 0 {
				return nil, 0, fmt.Errorf("unterminated '[' at offset %d", i)
			}
			key := s[i+1 : i+end]
			if key == "" {
				return nil, 0, fmt.Errorf("empty key [] at offset %d", i)
			}
			r.path = append(r.path, bracketAccessor(key))
			i += end + 1
		case '}':
			r.text = s[start : i+1]
			return r, i + 1, nil
		case '!', ':':
			return nil, 0, fmt.Errorf("format specifications and conversions (%q) are not supported in field at offset %d", s[i:i+1], start)
		default:
			return nil, 0, fmt.Errorf("unexpected %q in field at offset %d (expected '.', '[' or '}')", s[i], start)
		}
	}
	return nil, 0, fmt.Errorf("unterminated field at offset %d (missing '}'; write '{{' for a literal brace)", start)
}

// bracketAccessor reads the inside of [...]: digits are an index; quotes
// around a key are removed as a convenience (Python would keep them).
func bracketAccessor(key string) accessor {
	if n, err := strconv.Atoi(key); err == nil && n >= 0 && strconv.Itoa(n) == key {
		return accessor{key: key, index: n, isIndex: true}
	}
	if len(key) >= 2 && (key[0] == '"' || key[0] == '\'') && key[len(key)-1] == key[0] {
		key = key[1 : len(key)-1]
	}
	return accessor{key: key}
}
