package render

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// contentOf converts one resource of krusty's output, as its yaml.v3
// node tree, into plumb's value types — the same values that krusty's
// JSON (`kustomize build`'s route to its output: the node printed as YAML,
// decoded into a map, encoded as JSON) gives after decodeJSON, without
// those three conversions, which cost more than a third of a render.
//
// ok is false when the tree holds something the direct conversion does
// not model exactly (aliases and merge keys, keys that are not strings,
// a key defined twice, numbers JSON cannot hold): the caller then takes
// krusty's own route, errors included.
func contentOf(n *yaml.Node, in *interner) (map[string]any, bool) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, false
	}
	if in == nil {
		in = newInterner()
	}
	v, _, ok := in.nodeValue(n, false)
	if !ok {
		return nil, false
	}
	m, ok := v.(map[string]any)
	return m, ok
}

// nodeValue converts a node, interning what it builds, and returns the
// value's hash (interner); flow is set inside a flow-style collection.
func (in *interner) nodeValue(n *yaml.Node, flow bool) (any, uint64, bool) {
	flow = flow || n.Style&yaml.FlowStyle != 0
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		var sum uint64
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
				return nil, 0, false // merge keys (<<) and non-string keys
			}
			if _, dup := m[k.Value]; dup {
				return nil, 0, false
			}
			v, h, ok := in.nodeValue(n.Content[i+1], flow)
			if !ok {
				return nil, 0, false
			}
			key := in.key(k.Value)
			m[key] = v
			sum += in.entryHash(key, h)
		}
		v, h := in.mapping(m, sum)
		return v, h, true
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		var folded uint64
		for i, c := range n.Content {
			v, h, ok := in.nodeValue(c, flow)
			if !ok {
				return nil, 0, false
			}
			s[i] = v
			folded = mix(folded, h)
		}
		v, h := in.list(s, folded)
		return v, h, true
	case yaml.ScalarNode:
		if flow && n.Value == "" && n.ShortTag() == "!!null" {
			// Printed inside a flow collection, an empty null must be
			// quoted ('') and so reads back as an empty string.
			v, h := in.scalar("")
			return v, h, true
		}
		v, ok := scalarValue(n)
		if !ok {
			return nil, 0, false
		}
		v, h := in.scalar(v)
		return v, h, true
	}
	return nil, 0, false // aliases, documents
}

// scalarValue gives a scalar the value a YAML decode into interface{}
// followed by a JSON round trip gives it: strings stay strings, dates
// become RFC 3339 strings, whole numbers that JSON prints without an
// exponent become int64, other numbers float64.
func scalarValue(n *yaml.Node) (any, bool) {
	switch n.ShortTag() {
	case "!!str":
		// JSON printing would replace invalid UTF-8 (from a "\xff"
		// escape) with U+FFFD.
		return n.Value, utf8.ValidString(n.Value)
	case "!!null":
		return nil, true
	case "!!bool", "!!int", "!!float", "!!timestamp":
	default:
		return nil, false // binary, custom tags
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, false
	}
	switch x := v.(type) {
	case time.Time:
		// krusty's route prints dates as JSON does (a known kustomize
		// quirk: `2001-12-14` comes out as "2001-12-14T00:00:00Z").
		if y := x.Year(); y < 0 || y > 9999 {
			return nil, false // JSON cannot print it
		}
		return x.Format(time.RFC3339Nano), true
	case bool:
		return x, true
	case int:
		return int64(x), true
	case int64:
		return x, true
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
		return float64(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			// JSON cannot hold it (krusty's route would fail to print
			// the object); it stays the text it was written as, as the
			// loader keeps it and reports it at its line.
			return n.Value, true
		}
		return jsonNumber(x)
	}
	return nil, false
}

// jsonNumber is what encoding/json's float printing and decodeJSON make of
// a float: a whole number below 1e21 is printed without an exponent, in
// its shortest form, and read back as an int64 when it fits one (so
// 7.000000001e18 becomes 7000000001000000000, not the float's exact
// value); NaN and infinities cannot be printed at all.
func jsonNumber(f float64) (any, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, false
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		if i, err := strconv.ParseInt(strconv.FormatFloat(f, 'f', -1, 64), 10, 64); err == nil {
			return i, true
		}
	}
	return f, true
}
