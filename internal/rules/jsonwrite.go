package rules

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// The report's entries were written by encoding/json, whose reflection
// was most of what writing them cost: on the 10,000-object benchmark
// corpus the entries and the sealed rules took about a fifth of the rules'
// CPU. The writers here produce the same bytes as json.Marshal for the
// values rules hold (mappings, lists, strings, numbers, booleans) and hand
// anything else — and any value they do not write exactly as json.Marshal
// does — to encoding/json. A writer that fails says so, and the caller
// writes the whole value with encoding/json again, so errors read as they
// always did.

// appendJSON appends v as json.Marshal writes it; ok is false when v (or
// a value inside it) could not be written.
func appendJSON(b []byte, v any) ([]byte, bool) {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendJSONString(b, t), true
	case bool:
		return strconv.AppendBool(b, t), true
	case int:
		return strconv.AppendInt(b, int64(t), 10), true
	case int64:
		return strconv.AppendInt(b, t, 10), true
	case int32:
		return strconv.AppendInt(b, int64(t), 10), true
	case uint64:
		return strconv.AppendUint(b, t, 10), true
	case float64:
		return appendJSONFloat(b, t)
	case map[string]any:
		if t == nil {
			return append(b, "null"...), true
		}
		return appendJSONMap(b, t)
	case []any:
		if t == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range t {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendJSON(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return b, false
	}
	return append(b, raw...), true
}

// appendJSONMap writes a mapping with its keys sorted, as encoding/json
// does.
func appendJSONMap(b []byte, m map[string]any) ([]byte, bool) {
	var buf [16]string
	keys := buf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		var ok bool
		if b, ok = appendJSON(b, m[k]); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendJSONFloat writes a float64 as encoding/json's float encoder does
// (ES6 number formatting); NaN and infinities are an error there.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// appendJSONString writes a string as json.Marshal does (HTML characters
// escaped). Printable ASCII, the usual case, is written here; a string
// with anything else is left to encoding/json, whose escaping of control
// characters, invalid UTF-8 and line separators it is.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '<' || c == '>' || c == '&' {
			raw, _ := json.Marshal(s) // a string always marshals
			return append(b, raw...)
		}
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', c)
			start = i + 1
		}
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSONField writes ,"name": (no comma before the first field).
func appendJSONField(b []byte, first bool, name string) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

// appendObjectID writes an object id as json.Marshal writes
// manifest.ObjectID (every field omitempty).
func appendObjectID(b []byte, id *manifest.ObjectID) []byte {
	b = append(b, '{')
	first := true
	for _, f := range [...]struct{ name, v string }{
		{"api_version", id.APIVersion}, {"kind", id.Kind}, {"namespace", id.Namespace},
		{"name", id.Name}, {"target", id.Target},
	} {
		if f.v != "" {
			b = appendJSONField(b, first, f.name)
			b = appendJSONString(b, f.v)
			first = false
		}
	}
	return append(b, '}')
}

// appendJSON writes the arguments as json.Marshal writes them (through
// MarshalJSON: an object with sorted keys, HTML characters escaped by the
// encoder around it), each value passed through conv when given.
func (a ActionArgs) appendJSON(b []byte, conv func(any) any) ([]byte, bool) {
	n := min(len(a.params), len(a.values))
	var buf [8]int
	order := buf[:0]
	for i := 0; i < n; i++ {
		order = append(order, i)
	}
	a.sortOrder(order)
	b = append(b, '{')
	for k, i := range order {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, a.params[i].name)
		b = append(b, ':')
		v := a.values[i]
		if conv != nil {
			v = conv(v)
		}
		var ok bool
		if b, ok = appendJSON(b, v); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendSectionEntry writes an entry as json.Marshal writes SectionEntry,
// and where its list of rules begins (after `"rules":[`); rules writes the
// list's elements (e.Rules is not read).
func appendSectionEntry(b []byte, e *SectionEntry, rules func([]byte) ([]byte, bool)) ([]byte, int, bool) {
	b = append(b, '{')
	first := true
	if e.Object != nil {
		b = appendJSONField(b, first, "object")
		b = appendObjectID(b, e.Object)
		first = false
	}
	b = appendJSONField(b, first, "file")
	b = appendJSONString(b, e.File)
	if e.Line != 0 {
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, int64(e.Line), 10)
	}
	if e.Document != nil {
		b = append(b, `,"document":`...)
		b = strconv.AppendInt(b, int64(*e.Document), 10)
	}
	if e.Scope != "" {
		b = append(b, `,"scope":`...)
		b = appendJSONString(b, e.Scope)
	}
	b = append(b, `,"rules":`...)
	b = append(b, '[')
	at := len(b)
	var ok bool
	if b, ok = rules(b); !ok {
		return b, at, false
	}
	b = append(b, ']')
	if len(e.Traits) > 0 {
		b = append(b, `,"traits":[`...)
		for i, t := range e.Traits {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, t)
		}
		b = append(b, ']')
	}
	if len(e.PluginData) > 0 {
		b = append(b, `,"plugin_data":`...)
		if b, ok = appendJSONMap(b, e.PluginData); !ok {
			return b, at, false
		}
	}
	if len(e.Patch) > 0 {
		b = append(b, `,"patch":[`...)
		for i := range e.Patch {
			if i > 0 {
				b = append(b, ',')
			}
			p := &e.Patch[i]
			b = append(b, `{"op":`...)
			b = appendJSONString(b, p.Op)
			b = append(b, `,"path":`...)
			b = appendJSONString(b, p.Path)
			if p.Value != nil {
				b = append(b, `,"value":`...)
				if b, ok = appendJSON(b, p.Value); !ok {
					return b, at, false
				}
			}
			b = append(b, `,"rule":`...)
			b = appendJSONString(b, p.Rule)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if e.Stopped != "" {
		b = append(b, `,"stopped":`...)
		b = appendJSONString(b, e.Stopped)
	}
	return append(b, '}'), at, true
}
