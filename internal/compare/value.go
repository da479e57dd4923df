package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
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

// deepEqual compares two value trees the way their printed YAML would: a
// whole float equals the same integer (both print as "1").
func deepEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !deepEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !deepEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return float64(x) == y && math.Trunc(y) == y
		}
		return false
	case float64:
		switch y := b.(type) {
		case float64:
			return x == y || (math.IsNaN(x) && math.IsNaN(y))
		case int64:
			return float64(y) == x
		}
		return false
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return reflect.DeepEqual(a, b)
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
