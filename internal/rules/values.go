package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// Values that rules handle are the manifest package's JSON-compatible trees:
// map[string]any, []any, string, int64, float64, bool and nil. This file
// holds the typing rules of research D1–D3: how a value prints inside a
// string, when two values are equal and how they order.

// text renders a value the way it appears inside a larger string (D1):
// strings as they are, numbers as the shortest decimal, booleans as
// true/false, null as null, containers as compact JSON with sorted keys.
func text(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case int64:
		return strconv.FormatInt(t, 10)
	case int:
		return strconv.Itoa(t)
	case float64:
		return formatFloat(t)
	case bool:
		return strconv.FormatBool(t)
	case nil:
		return "null"
	}
	return compactJSON(v)
}

// formatFloat prints a float as JSON does (shortest representation) and
// spells the values JSON cannot hold.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	b, _ := json.Marshal(f)
	return string(b)
}

// compactJSON prints a container without HTML escaping; values JSON cannot
// hold (NaN) fall back to Go's formatting so printing never fails.
func compactJSON(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// typeName names a value's type in messages.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64, int, float64:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	case []any:
		return "list"
	case map[string]any:
		return "mapping"
	}
	return fmt.Sprintf("%T", v)
}

// number is a numeric value that keeps whole numbers exact.
type number struct {
	i     int64
	f     float64
	isInt bool
}

func (n number) float() float64 {
	if n.isInt {
		return float64(n.i)
	}
	return n.f
}

// cmp orders two numbers: exactly when both are whole, as floats otherwise.
func (n number) cmp(m number) int {
	if n.isInt && m.isInt {
		switch {
		case n.i < m.i:
			return -1
		case n.i > m.i:
			return 1
		}
		return 0
	}
	a, b := n.float(), m.float()
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// asNumber returns the number a value holds: a JSON number, or (when
// strings is set) a string that spells a decimal number.
func asNumber(v any, strings bool) (number, bool) {
	switch t := v.(type) {
	case int64:
		return number{i: t, isInt: true}, true
	case int:
		return number{i: int64(t), isInt: true}, true
	case float64:
		if math.IsNaN(t) {
			return number{}, false
		}
		return number{f: t}, true
	case string:
		if strings {
			return parseNumeric(t)
		}
	}
	return number{}, false
}

// parseNumeric accepts plain decimal numbers only ("42", "-1.5", "2e3"):
// not hexadecimal, underscores, "inf" or surrounding spaces, which would
// make ordinary strings compare as numbers by accident.
func parseNumeric(s string) (number, bool) {
	if !isDecimal(s) {
		return number{}, false
	}
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return number{i: i, isInt: true}, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return number{}, false
	}
	return number{f: f}, true
}

func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// equal is the equality of eq and one-of (D2): values of the same type that
// are equal, or a number and a string spelling the same number. Containers
// are equal when their members are.
func equal(a, b any) bool {
	if na, ok := asNumber(a, false); ok {
		nb, ok := asNumber(b, true)
		return ok && na.cmp(nb) == 0
	}
	if nb, ok := asNumber(b, false); ok {
		na, ok := asNumber(a, true)
		return ok && na.cmp(nb) == 0
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	}
	return false
}

// order compares two values for lt and gt: two strings as strings,
// numeric or not, as Python compares them (Ironic's operators.py,
// LtCondition and GtCondition: "10" < "9"); numbers as numbers, and a
// number with a string that spells one numerically (D2: typed
// interpolation gives numbers where Ironic has strings); anything else is
// an error, as Python's TypeError is. lexical (force_strings) compares a
// number and a string as text.
func order(a, b any, lexical bool) (int, error) {
	sa, okA := a.(string)
	sb, okB := b.(string)
	if okA && okB {
		return strings.Compare(sa, sb), nil
	}
	na, okA := asNumber(a, !lexical)
	nb, okB := asNumber(b, !lexical)
	if okA && okB {
		return na.cmp(nb), nil
	}
	return 0, fmt.Errorf("cannot order %s %s and %s %s", typeName(a), quoteValue(a), typeName(b), quoteValue(b))
}

// quoteValue prints a value for a message: strings quoted, the rest as text.
func quoteValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return text(v)
}

// deepCopy copies a value tree so that writes to the copy never reach the
// original (objects of one base are shared between render targets).
func deepCopy(v any) any { return manifest.DeepCopy(v) }

// isEmpty is is-empty as Ironic decides it (operators.py, EmptyCondition:
// the value's string form is one of "", "None", "[]" and "{}"): null, an
// empty string, list or mapping, and the strings "None", "[]" and "{}"
// (what an interpolation of an empty or missing value prints).
func isEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == "" || t == "None" || t == "[]" || t == "{}"
	case []any:
		return len(t) == 0
	case map[string]any:
		return len(t) == 0
	}
	return false
}
