package checks

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// DefaultFailureMessage is Wanda's text when a message is absent or cannot
// be interpolated.
const DefaultFailureMessage = "Expectation not met"

// Message is a failure or warning message. Each ${...} in it is a CEL
// expression over facts and values (and env), compiled at load.
type Message struct {
	Raw string
	Pos Pos
	// parts alternate literal text and expressions.
	parts []msgPart
	// syntaxErr is set when a ${ is never closed; such a message always
	// renders as DefaultFailureMessage (Wanda's behaviour for templates that
	// fail to parse).
	syntaxErr string
}

type msgPart struct {
	lit  string
	expr *Expr
	// offset is the byte offset of the expression inside Raw.
	offset int
}

// Interpolates reports whether the message contains ${...} parts.
func (m *Message) Interpolates() bool {
	if m == nil {
		return false
	}
	if m.syntaxErr != "" {
		return true
	}
	for _, p := range m.parts {
		if p.expr != nil {
			return true
		}
	}
	return false
}

// splitMessage cuts a message into literal and ${...} parts. Braces inside
// the expression nest, and braces inside string literals do not count.
func splitMessage(raw string) ([]msgPart, string) {
	var parts []msgPart
	var lit strings.Builder
	for i := 0; i < len(raw); {
		if raw[i] != '$' || i+1 >= len(raw) || raw[i+1] != '{' {
			lit.WriteByte(raw[i])
			i++
			continue
		}
		end := matchBrace(raw, i+2)
		if end < 0 {
			return nil, fmt.Sprintf("the ${ at offset %d is never closed", i)
		}
		if lit.Len() > 0 {
			parts = append(parts, msgPart{lit: lit.String()})
			lit.Reset()
		}
		parts = append(parts, msgPart{expr: &Expr{Source: raw[i+2 : end]}, offset: i + 2})
		i = end + 1
	}
	if lit.Len() > 0 {
		parts = append(parts, msgPart{lit: lit.String()})
	}
	return parts, ""
}

// matchBrace returns the index of the } that closes an expression starting
// at start, or -1.
func matchBrace(s string, start int) int {
	depth := 0
	for i := start; i < len(s); i++ {
		switch c := s[i]; c {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return i
			}
			depth--
		case '"', '\'':
			i = skipString(s, i)
			if i < 0 {
				return -1
			}
		}
	}
	return -1
}

// skipString returns the index of the quote closing the string literal that
// opens at s[i] (single, double or triple quoted).
func skipString(s string, i int) int {
	q := s[i]
	triple := strings.Repeat(string(q), 3)
	if strings.HasPrefix(s[i:], triple) {
		if j := strings.Index(s[i+3:], triple); j >= 0 {
			return i + 3 + j + 2
		}
		return -1
	}
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j
		}
	}
	return -1
}

// render interpolates the message for one target. ok is false when any part
// fails (the caller then uses DefaultFailureMessage).
func (m *Message) render(act *activation) (string, bool) {
	if m.syntaxErr != "" {
		return "", false
	}
	var b strings.Builder
	for _, p := range m.parts {
		if p.expr == nil {
			b.WriteString(p.lit)
			continue
		}
		if p.expr.prog == nil {
			return "", false
		}
		v, err := p.expr.eval(act)
		if err != nil {
			return "", false
		}
		n, cerr := toNative(v)
		if cerr != nil {
			return "", false
		}
		b.WriteString(display(n))
	}
	return b.String(), true
}

// display prints an interpolated value: strings as they are, numbers and
// booleans as literals (a whole float keeps its ".0", as in Rhai), null as
// "null", lists and maps as JSON.
func display(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case uint64:
		return strconv.FormatUint(t, 10)
	case float64:
		s := strconv.FormatFloat(t, 'f', -1, 64)
		if !math.IsInf(t, 0) && !math.IsNaN(t) && !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
