package value

import (
	"math"
	"testing"
)

func TestEqual(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b any
		want bool
	}{
		{"a whole float is the integer", int64(1), 1.0, true},
		{"and the other way round", 2.0, int64(2), true},
		{"a fraction is not", int64(1), 1.5, false},
		{"NaN is NaN", math.NaN(), math.NaN(), true},
		{"a number is not its text", int64(1), "1", false},
		{"nested maps and lists", map[string]any{"a": []any{int64(1), map[string]any{"b": nil}}}, map[string]any{"a": []any{1.0, map[string]any{"b": nil}}}, true},
		{"a missing key", map[string]any{"a": nil}, map[string]any{"b": nil}, false},
		{"lists in order", []any{"x", "y"}, []any{"y", "x"}, false},
		{"nil is not false", nil, false, false},
	} {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("%s: Equal(%v, %v) = %v, want %v", c.name, c.a, c.b, got, c.want)
		}
	}
}
