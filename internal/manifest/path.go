package manifest

import (
	"fmt"
	"strconv"
	"strings"
)

// Segment is one step of a field Path: a mapping key or a sequence index.
type Segment struct {
	Key     string
	Index   int
	IsIndex bool
}

// Key returns a mapping-key segment.
func Key(k string) Segment { return Segment{Key: k} }

// Index returns a sequence-index segment.
func Index(i int) Segment { return Segment{Index: i, IsIndex: true} }

// Path addresses a field inside an object, e.g.
// spec.template.spec.containers[0].image or metadata.labels["app.kubernetes.io/name"].
// The zero Path addresses the object itself.
type Path []Segment

// Child returns a new Path with seg appended; p itself is never modified, so
// paths can be extended from a shared prefix safely.
func (p Path) Child(seg ...Segment) Path {
	out := make(Path, 0, len(p)+len(seg))
	return append(append(out, p...), seg...)
}

// Parent returns the path without its last segment (the zero Path stays zero).
func (p Path) Parent() Path {
	if len(p) == 0 {
		return p
	}
	return p[:len(p)-1]
}

// HasPrefix reports whether q is a prefix of p.
func (p Path) HasPrefix(q Path) bool {
	if len(q) > len(p) {
		return false
	}
	for i := range q {
		if p[i] != q[i] {
			return false
		}
	}
	return true
}

// Equal reports whether two paths address the same field.
func (p Path) Equal(q Path) bool { return len(p) == len(q) && p.HasPrefix(q) }

// String prints the path in the dotted form accepted by ParsePath. Keys that
// are not plain identifiers are printed in brackets with Go string quoting.
func (p Path) String() string {
	var b strings.Builder
	for i, s := range p {
		switch {
		case s.IsIndex:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.Index))
			b.WriteByte(']')
		case isBareKey(s.Key):
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.Key)
		default:
			b.WriteByte('[')
			b.WriteString(strconv.Quote(s.Key))
			b.WriteByte(']')
		}
	}
	return b.String()
}

// MarshalText makes paths print as strings in JSON.
func (p Path) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText parses the printed form.
func (p *Path) UnmarshalText(b []byte) error {
	q, err := ParsePath(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

func isBareKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '$') {
			return false
		}
	}
	return true
}

// ParsePath parses a field path. Accepted forms:
//
//	spec.replicas
//	spec.containers[0].image
//	metadata.labels["app.kubernetes.io/name"]   (double-quoted, Go escapes)
//	metadata.labels['app.kubernetes.io/name']   (single-quoted, no escapes)
//	.spec.replicas                              (a leading dot is allowed)
func ParsePath(s string) (Path, error) {
	var p Path
	i := 0
	if strings.HasPrefix(s, ".") {
		i = 1
	}
	expectKey := true // at the start or after '.', a bare key may follow
	for i < len(s) {
		switch c := s[i]; {
		case c == '[':
			seg, n, err := parseBracket(s, i)
			if err != nil {
				return nil, err
			}
			p = append(p, seg)
			i = n
			expectKey = false
		case c == '.':
			if expectKey {
				return nil, fmt.Errorf("path %q: empty key at offset %d", s, i)
			}
			i++
			expectKey = true
			if i == len(s) {
				return nil, fmt.Errorf("path %q: ends with '.'", s)
			}
		default:
			if !expectKey {
				return nil, fmt.Errorf("path %q: expected '.' or '[' at offset %d", s, i)
			}
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' {
				if s[j] == ']' || s[j] == '"' || s[j] == '\'' {
					return nil, fmt.Errorf("path %q: unexpected %q at offset %d", s, s[j], j)
				}
				j++
			}
			p = append(p, Key(s[i:j]))
			i = j
			expectKey = false
		}
	}
	return p, nil
}

// parseBracket parses "[N]", "[\"key\"]" or "['key']" starting at s[i] == '['
// and returns the segment and the offset after the closing bracket.
func parseBracket(s string, i int) (Segment, int, error) {
	if i+1 >= len(s) {
		return Segment{}, 0, fmt.Errorf("path %q: unterminated '[' at offset %d", s, i)
	}
	switch s[i+1] {
	case '"':
		// Find the closing quote honouring backslash escapes, then unquote.
		j := i + 2
		for j < len(s) && s[j] != '"' {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(s) || j+1 >= len(s) || s[j+1] != ']' {
			return Segment{}, 0, fmt.Errorf("path %q: unterminated quoted key at offset %d", s, i)
		}
		key, err := strconv.Unquote(s[i+1 : j+1])
		if err != nil {
			return Segment{}, 0, fmt.Errorf("path %q: bad quoted key at offset %d: %w", s, i, err)
		}
		return Key(key), j + 2, nil
	case '\'':
		end := strings.Index(s[i+2:], "']")
		if end < 0 {
			return Segment{}, 0, fmt.Errorf("path %q: unterminated quoted key at offset %d", s, i)
		}
		return Key(s[i+2 : i+2+end]), i + 2 + end + 2, nil
	default:
		end := strings.IndexByte(s[i:], ']')
		if end < 0 {
			return Segment{}, 0, fmt.Errorf("path %q: unterminated '[' at offset %d", s, i)
		}
		num := s[i+1 : i+end]
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 || num != strconv.Itoa(n) {
			return Segment{}, 0, fmt.Errorf("path %q: index %q at offset %d is not a non-negative integer", s, num, i)
		}
		return Index(n), i + end + 1, nil
	}
}

// MustParsePath is ParsePath for literals in code and tests.
func MustParsePath(s string) Path {
	p, err := ParsePath(s)
	if err != nil {
		panic(err)
	}
	return p
}
