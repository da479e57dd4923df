package compare

import (
	"errors"
	"fmt"
	"reflect"
	"text/template"
)

// A reference template comes from the pull request, and text/template lets
// it build values in variables: {{ $x = printf "%s%s" $x $x }} in a loop
// doubles a string forty times within the time limit, {{ list $l $l }}
// nests a list whose printing is exponential, and sprig's set can make a
// map contain itself, which printing, copying or merging then follows
// until the goroutine's stack overflows. Those end the process (out of
// memory, stack exhausted), not the template. So every function a
// template calls is checked: a result over maxValueBytes is an error, and
// the map mutators refuse to make a cycle.

// maxValueBytes bounds the size of any value a template function returns,
// counted as printing it would (string bytes, about 8 bytes per other
// element, a part reachable twice counted twice). The rendered output is
// capped at 8 MiB; inputs seen through lookupCRs are counted too.
const maxValueBytes = 64 << 20

// errValueTooBig is the panic value of a capped function whose result is
// too big; text/template turns a panic in a function into an error.
var errValueTooBig = fmt.Errorf("the result would be over %d MiB: a template may not build values that large", maxValueBytes>>20)

// builtinOverrides are text/template's builtins that build strings, given
// as functions so that they are capped too (a function of the same name
// replaces a builtin).
var builtinOverrides = template.FuncMap{
	"print":    fmt.Sprint,
	"printf":   fmt.Sprintf,
	"println":  fmt.Sprintln,
	"html":     template.HTMLEscaper,
	"js":       template.JSEscaper,
	"urlquery": template.URLQueryEscaper,
}

// capFuncs wraps every function of m that returns a string, a list, a map
// or an interface so that a result over maxValueBytes panics with
// errValueTooBig. Functions returning numbers or booleans are left alone.
func capFuncs(m template.FuncMap) {
	for name, fn := range m {
		m[name] = capped(fn)
	}
}

func capped(fn any) any {
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
		if tooBig(out[0], maxValueBytes) {
			panic(errValueTooBig)
		}
		return out
	}).Interface()
}

// tooBig reports whether v's printed size exceeds limit. The walk stops
// as soon as it does, so it costs at most limit steps.
func tooBig(v reflect.Value, limit int) bool {
	budget := limit
	var walk func(v reflect.Value) bool
	walk = func(v reflect.Value) bool {
		budget -= 8
		if budget < 0 {
			return true
		}
		switch v.Kind() {
		case reflect.String:
			budget -= v.Len()
		case reflect.Interface, reflect.Pointer:
			if !v.IsNil() {
				return walk(v.Elem())
			}
		case reflect.Slice, reflect.Array:
			if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
				budget -= v.Len()
				break
			}
			for i := 0; i < v.Len(); i++ {
				if walk(v.Index(i)) {
					return true
				}
			}
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				if walk(it.Key()) || walk(it.Value()) {
					return true
				}
			}
		}
		return budget < 0
	}
	return walk(v)
}

// errCycle is what set and merge return instead of making a map contain
// itself.
var errCycle = errors.New("the value holds the map it would be stored in, which would make the map contain itself (printing or copying it would never end)")

// Sprig's map mutators, checked so that they cannot make a cycle.
var (
	sprigSet                = sprigFuncs["set"].(func(map[string]any, string, any) map[string]any)
	sprigMerge              = sprigFuncs["merge"].(func(map[string]any, ...map[string]any) any)
	sprigMergeOverwrite     = sprigFuncs["mergeOverwrite"].(func(map[string]any, ...map[string]any) any)
	sprigMustMerge          = sprigFuncs["mustMerge"].(func(map[string]any, ...map[string]any) (any, error))
	sprigMustMergeOverwrite = sprigFuncs["mustMergeOverwrite"].(func(map[string]any, ...map[string]any) (any, error))
)

// acyclicMutators are set, merge and their variants, refusing a value
// that reaches the map they change.
func acyclicMutators() template.FuncMap {
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
