// Package value holds what plumb does with JSON-like value trees
// (map[string]any, []any and scalars), so that every stage compares them
// the same way.
package value

import (
	"math"
	"reflect"
)

// Equal compares two value trees (maps, lists and scalars as YAML and
// JSON decoding make them) the way the API server and their printed YAML
// see them: a whole float equals the same integer (1 and 1.0 are one
// value), and NaN equals NaN.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !Equal(xv, yv) {
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
			if !Equal(x[i], y[i]) {
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
