package tmplcheck

import (
	"errors"
	"fmt"
	"reflect"
	"text/template"
)

// A template from a pull request (a kube-compare reference, a Helm chart)
// builds values in variables, which text/template lets it do without
// writing anything: {{ $x = printf "%s%s" $x $x }} in a loop
// doubles a string forty times within the time limit, {{ list $l $l }}
// nests a list whose printing is exponential, and sprig's set can make a
// map contain itself, which printing, copying or merging then follows
// until the goroutine's stack overflows. Those end the process (out of
// memory, stack exhausted), not the template. So every function a
// template calls is checked: a result over maxValueBytes is an error, and
// the map mutators refuse to make a cycle.

// The size of a value is counted as printing it would (string bytes,
// about 8 bytes per other element, a part reachable twice counted twice).

// ValueTooBigError is the panic value of a capped function whose result is
// too big; text/template turns a panic in a function into an error.
type ValueTooBigError struct{ Limit int }

func (e *ValueTooBigError) Error() string {
	return fmt.Sprintf("the result would be over %d MiB: a template may not build values that large", e.Limit>>20)
}

// BuiltinOverrides are text/template's builtins that build strings, given
// as functions so that they are capped too (a function of the same name
// replaces a builtin, and behaves as it).
var BuiltinOverrides = template.FuncMap{
	"print":    fmt.Sprint,
	"printf":   fmt.Sprintf,
	"println":  fmt.Sprintln,
	"html":     template.HTMLEscaper,
	"js":       template.JSEscaper,
	"urlquery": template.URLQueryEscaper,
}

// CapFuncs wraps every function of m that returns a string, a list, a map
// or an interface so that a result over limit bytes panics with a
// *ValueTooBigError. Functions returning numbers or booleans are left
// alone.
func CapFuncs(m template.FuncMap, limit int) {
	for name, fn := range m {
		m[name] = Capped(fn, limit)
	}
}

// Capped is fn with its result capped at limit bytes (CapFuncs). The
// signatures of most template functions are wrapped without reflection
// (fastCapped); reflect.MakeFunc's call costs as much as a small
// function's work, and charts call functions thousands of times.
func Capped(fn any, limit int) any {
	if f := fastCapped(fn, limit); f != nil {
		return f
	}
	v := reflect.ValueOf(fn)
	t := v.Type()
	if t.Kind() != reflect.Func || t.NumOut() == 0 {
		return fn
	}
	switch t.Out(0).Kind() {
	case reflect.String, reflect.Slice, reflect.Map, reflect.Interface, reflect.Array, reflect.Pointer:
	default:
		return fn
	}
	return reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		var out []reflect.Value
		if t.IsVariadic() {
			out = v.CallSlice(args)
		} else {
			out = v.Call(args)
		}
		if tooBig(out[0].Interface(), limit) {
			panic(&ValueTooBigError{Limit: limit})
		}
		return out
	}).Interface()
}

// fastCapped wraps the common signatures of template functions without
// reflection; nil for any other.
func fastCapped(fn any, limit int) any {
	str := func(s string) string {
		if len(s)+8 > limit {
			panic(&ValueTooBigError{Limit: limit})
		}
		return s
	}
	val := func(v any) {
		if tooBig(v, limit) {
			panic(&ValueTooBigError{Limit: limit})
		}
	}
	switch f := fn.(type) {
	case func(string) string:
		return func(a string) string { return str(f(a)) }
	case func(any) string:
		return func(a any) string { return str(f(a)) }
	case func(int, string) string:
		return func(n int, a string) string { return str(f(n, a)) }
	case func(string, string) string:
		return func(a, b string) string { return str(f(a, b)) }
	case func(string, string, string) string:
		return func(a, b, c string) string { return str(f(a, b, c)) }
	case func(string, any) string:
		return func(a string, b any) string { return str(f(a, b)) }
	case func(...any) string:
		return func(a ...any) string { return str(f(a...)) }
	case func(string, ...any) string:
		return func(a string, b ...any) string { return str(f(a, b...)) }
	case func(any) any:
		return func(a any) any { r := f(a); val(r); return r }
	case func(any, ...any) any:
		return func(a any, b ...any) any { r := f(a, b...); val(r); return r }
	case func(...any) any:
		return func(a ...any) any { r := f(a...); val(r); return r }
	case func(any, any, bool) any:
		return func(a, b any, c bool) any { r := f(a, b, c); val(r); return r }
	case func(map[string]any, string) any:
		return func(a map[string]any, b string) any { r := f(a, b); val(r); return r }
	case func(...any) []any:
		return func(a ...any) []any { r := f(a...); val(r); return r }
	case func(any) []any:
		return func(a any) []any { r := f(a); val(r); return r }
	case func(any, any) []any:
		return func(a, b any) []any { r := f(a, b); val(r); return r }
	case func(...any) map[string]any:
		return func(a ...any) map[string]any { r := f(a...); val(r); return r }
	case func(string) map[string]any:
		return func(a string) map[string]any { r := f(a); val(r); return r }
	}
	return nil
}

// tooBig reports whether v's printed size exceeds limit. The walk stops
// as soon as it does, so it costs at most limit steps.
func tooBig(v any, limit int) bool {
	budget := limit
	return over(v, &budget)
}

// over takes v's printed size from budget and reports whether it ran
// out: the values templates build (strings, lists, maps of strings) are
// walked without reflection, anything else through it.
func over(v any, budget *int) bool {
	*budget -= 8
	if *budget < 0 {
		return true
	}
	switch t := v.(type) {
	case nil, bool, int, int64, float64:
	case string:
		*budget -= len(t)
	case []byte:
		*budget -= len(t)
	case []string:
		for _, e := range t {
			if *budget -= 8 + len(e); *budget < 0 {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if over(e, budget) {
				return true
			}
		}
	case map[string]any:
		for k, e := range t {
			if *budget -= 8 + len(k); *budget < 0 || over(e, budget) {
				return true
			}
		}
	default:
		// Named maps and lists of the same shape (Helm's Values) are
		// walked as the plain ones: converting them copies no element.
		rv := reflect.ValueOf(v)
		switch {
		case rv.Kind() == reflect.Map && rv.Type().ConvertibleTo(mapType):
			*budget += 8
			return over(rv.Convert(mapType).Interface(), budget)
		case rv.Kind() == reflect.Slice && rv.Type().ConvertibleTo(listType):
			*budget += 8
			return over(rv.Convert(listType).Interface(), budget)
		}
		return overReflect(rv, budget)
	}
	return *budget < 0
}

var (
	mapType  = reflect.TypeFor[map[string]any]()
	listType = reflect.TypeFor[[]any]()
)

// overReflect is over for any other type.
func overReflect(v reflect.Value, budget *int) bool {
	*budget -= 8
	if *budget < 0 {
		return true
	}
	switch v.Kind() {
	case reflect.String:
		*budget -= v.Len()
	case reflect.Interface, reflect.Pointer:
		if !v.IsNil() {
			return overReflect(v.Elem(), budget)
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			*budget -= v.Len()
			break
		}
		for i := 0; i < v.Len(); i++ {
			if overReflect(v.Index(i), budget) {
				return true
			}
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			if overReflect(it.Key(), budget) || overReflect(it.Value(), budget) {
				return true
			}
		}
	}
	return *budget < 0
}

// errCycle is what set and merge return instead of making a map contain
// itself.
var errCycle = errors.New("the value holds the map it would be stored in, which would make the map contain itself (printing or copying it would never end)")

// AcyclicMutators are sprig's set, merge and their variants (as given in
// sprigFuncs), refusing a value that reaches the map they change.
func AcyclicMutators(sprigFuncs template.FuncMap) template.FuncMap {
	sprigSet := sprigFuncs["set"].(func(map[string]any, string, any) map[string]any)
	sprigMerge := sprigFuncs["merge"].(func(map[string]any, ...map[string]any) any)
	sprigMergeOverwrite := sprigFuncs["mergeOverwrite"].(func(map[string]any, ...map[string]any) any)
	sprigMustMerge := sprigFuncs["mustMerge"].(func(map[string]any, ...map[string]any) (any, error))
	sprigMustMergeOverwrite := sprigFuncs["mustMergeOverwrite"].(func(map[string]any, ...map[string]any) (any, error))
	guard := func(name string, merge func(map[string]any, ...map[string]any) (any, error)) func(map[string]any, ...map[string]any) (any, error) {
		return func(dst map[string]any, srcs ...map[string]any) (any, error) {
			for _, src := range srcs {
				if reaches(reflect.ValueOf(src), dst) {
					return nil, fmt.Errorf("%s: %w", name, errCycle)
				}
			}
			return merge(dst, srcs...)
		}
	}
	noErr := func(f func(map[string]any, ...map[string]any) any) func(map[string]any, ...map[string]any) (any, error) {
		return func(dst map[string]any, srcs ...map[string]any) (any, error) { return f(dst, srcs...), nil }
	}
	return template.FuncMap{
		"set": func(d map[string]any, key string, value any) (map[string]any, error) {
			if reaches(reflect.ValueOf(value), d) {
				return nil, fmt.Errorf("set %q: %w", key, errCycle)
			}
			return sprigSet(d, key, value), nil
		},
		"merge":              guard("merge", noErr(sprigMerge)),
		"mergeOverwrite":     guard("mergeOverwrite", noErr(sprigMergeOverwrite)),
		"mustMerge":          guard("mustMerge", sprigMustMerge),
		"mustMergeOverwrite": guard("mustMergeOverwrite", sprigMustMergeOverwrite),
	}
}

// reaches reports whether the map target can be reached from v (v itself
// included), through maps, lists and pointers.
func reaches(v reflect.Value, target map[string]any) bool {
	if target == nil {
		return false
	}
	want := reflect.ValueOf(target).UnsafePointer()
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value) bool
	walk = func(v reflect.Value) bool {
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer:
			return !v.IsNil() && walk(v.Elem())
		case reflect.Map:
			if v.IsNil() {
				return false
			}
			p := v.UnsafePointer()
			if p == want {
				return true
			}
			if seen[uintptr(p)] {
				return false
			}
			seen[uintptr(p)] = true
			it := v.MapRange()
			for it.Next() {
				if walk(it.Value()) {
					return true
				}
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				if walk(v.Index(i)) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}
