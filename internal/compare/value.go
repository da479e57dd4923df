package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Values in this package are JSON-compatible trees, the same shape as
// manifest.Object.Content: map[string]any, []any, string, int64 (whole
// numbers), float64, bool and nil.

// deepCopy copies a value tree so the copy can be changed (omission,
// merging, templates calling sprig's set) without touching the original.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return copyMap(t)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepCopy(x)
		}
		return out
	default:
		return v
	}
}

func copyMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[k] = deepCopy(x)
	}
	return out
}

// decodeJSON parses JSON into a value tree with whole numbers as int64.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return fromJSONNumbers(v), nil
}

func fromJSONNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = fromJSONNumbers(x)
		}
		return t
	case []any:
		for i, x := range t {
			t[i] = fromJSONNumbers(x)
		}
		return t
	case json.Number:
		if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
			return i
		}
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			return string(t)
		}
		return f
	}
	return v
}

// lookupPath walks maps (and, for numeric segments, lists) along segs.
func lookupPath(v any, segs []string, indexLists bool) (any, bool) {
	for _, s := range segs {
		switch t := v.(type) {
		case map[string]any:
			x, ok := t[s]
			if !ok {
				return nil, false
			}
			v = x
		case []any:
			if !indexLists {
				return nil, false
			}
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(t) {
				return nil, false
			}
			v = t[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// setPath replaces the value at segs (which must exist) in place.
func setPath(v any, segs []string, value any) bool {
	if len(segs) == 0 {
		return false
	}
	parent, ok := lookupPath(v, segs[:len(segs)-1], true)
	if !ok {
		return false
	}
	last := segs[len(segs)-1]
	switch t := parent.(type) {
	case map[string]any:
		if _, ok := t[last]; !ok {
			return false
		}
		t[last] = value
		return true
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(t) {
			return false
		}
		t[i] = value
		return true
	}
	return false
}

// stringField reads a string at a map path ("" when absent or not a string).
func stringField(m map[string]any, keys ...string) string {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = mm[k]
	}
	s, _ := v.(string)
	return s
}
