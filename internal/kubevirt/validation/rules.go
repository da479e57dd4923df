package validation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

// Rule types the validator knows (case-sensitive).
const (
	TypeInteger = "integer"
	TypeString  = "string"
	TypeEnum    = "enum"
	TypeRegex   = "regex"
)

// Rule is one entry of a validations annotation. It is decoded with plain
// encoding/json exactly as the validator decodes it: keys match
// case-insensitively, the last duplicate key wins, unknown keys are ignored,
// and the type errors read the same ("json: cannot unmarshal string into Go
// struct field Rule.justWarning of type bool").
type Rule struct {
	Rule        string         `json:"rule"`
	Name        string         `json:"name"`
	Path        Path           `json:"path"`
	Valid       Path           `json:"valid"`
	Message     string         `json:"message"`
	Values      []StringOrPath `json:"values"`
	Min         *IntOrPath     `json:"min"`
	Max         *IntOrPath     `json:"max"`
	MinLength   *IntOrPath     `json:"minLength"`
	MaxLength   *IntOrPath     `json:"maxLength"`
	Regex       string         `json:"regex"`
	JustWarning bool           `json:"justWarning"`

	// Index is the rule's position in the annotation (0-based) and Offset
	// the byte offset of its opening brace in the annotation text.
	Index  int `json:"-"`
	Offset int `json:"-"`

	// regex is Regex compiled once (regexErr when it does not compile); the
	// validator compiles it on every evaluation, with the same outcome.
	regex    *regexp.Regexp
	regexErr error
}

// KnownType reports whether the rule type is one the validator evaluates.
func KnownType(t string) bool {
	switch t {
	case TypeInteger, TypeString, TypeEnum, TypeRegex:
		return true
	}
	return false
}

// compile prepares what evaluation reuses.
func (r *Rule) compile() {
	if r.Rule == TypeRegex {
		r.regex, r.regexErr = regexp.Compile(r.Regex)
	}
}

// Annotation is a parsed validations annotation.
type Annotation struct {
	// Rules are the entries that decoded, in order.
	Rules []*Rule
	// Problems are decoding errors: one for the whole text when it is not a
	// JSON array, else one per entry that does not decode.
	Problems []Problem
	// Err is the validator's verdict on the text: decoding it as a whole
	// fails on the first problem, and then the validator rejects the VM
	// with this message without evaluating any rule.
	Err error
}

// Problem is something wrong with an annotation, at a byte offset of its
// text.
type Problem struct {
	Offset int
	// Rule is the index of the entry, -1 for the annotation as a whole.
	Rule int
	// Name is the entry's name when it has one.
	Name    string
	Message string
	// Kind classifies the problem for fingerprints ("json", "decode",
	// "missing-name", "duplicate-name", ...).
	Kind string
	// Warning marks what the spec asks and the validator does not enforce.
	Warning bool
}

// ParseAnnotation decodes an annotation text. An empty text, null and []
// hold no rules; white space alone is a JSON error.
func ParseAnnotation(text string) *Annotation {
	a := &Annotation{}
	if text == "" {
		return a // the validator checks for an empty text before decoding
	}
	data := []byte(text)
	var all []Rule
	a.Err = json.Unmarshal(data, &all)
	if a.Err == nil {
		offsets := elementOffsets(data)
		for i := range all {
			r := &all[i]
			r.Index = i
			if i < len(offsets) {
				r.Offset = offsets[i]
			}
			r.compile()
			a.Rules = append(a.Rules, r)
		}
		return a
	}
	// Report where the text is wrong: a syntax error once, a non-array
	// once, and otherwise every entry that does not decode.
	var syntax *json.SyntaxError
	if errors.As(a.Err, &syntax) || !json.Valid(data) {
		off := 0
		if syntax != nil && syntax.Offset > 0 {
			off = int(syntax.Offset) - 1 // the offending character
		}
		a.Problems = append(a.Problems, Problem{Offset: clampOffset(off, len(data)), Rule: -1, Message: a.Err.Error(), Kind: "json"})
		return a
	}
	if first := firstNonSpace(data); first < 0 || data[first] != '[' {
		msg := a.Err.Error()
		if first >= 0 && data[first] == '{' {
			msg = "the text is one JSON object, not a list: write the rules as a list, [{...}, {...}] (a single rule too)"
		}
		a.Problems = append(a.Problems, Problem{Offset: max(first, 0), Rule: -1, Message: msg, Kind: "json"})
		return a
	}
	offsets := elementOffsets(data)
	for i, off := range offsets {
		raw := elementAt(data, off)
		r := &Rule{}
		if err := json.Unmarshal(raw, r); err != nil {
			at := off
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &typeErr) && typeErr.Offset > 0 {
				at = off + int(typeErr.Offset)
			}
			name := ""
			var probe struct {
				Name string `json:"name"`
			}
			if json.Unmarshal(raw, &probe) == nil {
				name = probe.Name
			}
			msg := err.Error()
			if typeErr != nil && typeErr.Field != "" {
				msg = fmt.Sprintf("%s: the value is %s, want %s", typeErr.Field, jsonValueKind(typeErr.Value), goKind(typeErr.Type))
			}
			if errors.Is(err, ErrInvalidJSONPath) {
				msg += `: a path is "jsonpath::" followed by the field's path in the VM, for example "jsonpath::.spec.domain.cpu.cores"`
			}
			a.Problems = append(a.Problems, Problem{Offset: clampOffset(at, len(data)), Rule: i, Name: name, Message: msg, Kind: "decode"})
			continue
		}
		r.Index, r.Offset = i, off
		r.compile()
		a.Rules = append(a.Rules, r)
	}
	return a
}

// jsonValueKind names encoding/json's kind of a value as a person reads it.
func jsonValueKind(v string) string {
	switch v {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "a boolean"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	return v
}

// goKind names what a rule field wants.
func goKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(goKind(t.Elem()), "a ") + "s"
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "a number"
	}
	return t.String()
}

// elementOffsets returns the byte offset of each element of a JSON
// array. The text must be valid JSON (it scans, it does not check).
func elementOffsets(data []byte) []int {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return nil
	}
	var offs []int
	for i = skipSpace(data, i+1); i < len(data) && data[i] != ']'; {
		offs = append(offs, i)
		i = skipSpace(data, skipValue(data, i))
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	return offs
}

// skipValue returns the offset after the JSON value at i.
func skipValue(data []byte, i int) int {
	depth := 0
	for ; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth <= 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
	}
	return i
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// elementAt returns the JSON value that starts at off.
func elementAt(data []byte, off int) []byte {
	dec := json.NewDecoder(bytes.NewReader(data[off:]))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return data[off:]
	}
	return raw
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func firstNonSpace(data []byte) int {
	for i, c := range data {
		if !isSpace(c) {
			return i
		}
	}
	return -1
}

func clampOffset(off, n int) int {
	if off > n {
		return n
	}
	if off < 0 {
		return 0
	}
	return off
}
