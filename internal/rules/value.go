package rules

import (
	"slices"
	"strings"
)

// formatMode says how an argument is interpolated.
type formatMode uint8

const (
	// formatNone: the argument is used as written.
	formatNone formatMode = iota
	// formatStrict: a malformed field is a validation error.
	formatStrict
	// formatLenient: a string that does not parse as a template is kept as
	// written (arguments formatted only because they are in a loop, such as
	// a regex with {1,2} in it — Python keeps those strings too).
	formatLenient
)

type valueKind uint8

const (
	kindConst valueKind = iota
	kindWhole           // exactly one field: keeps the value's type (D1)
	kindMixed           // text with fields: always a string
	kindListValue
	kindMapValue
)

// value is a compiled argument: a constant, a template, or a list or
// mapping of compiled values.
type value struct {
	kind valueKind
	c    any
	t    *template
	list []*value
	keys []*value // mapping keys, sorted by their source text
	vals []*value
}

func constValue(v any) *value { return &value{kind: kindConst, c: v} }

// compileValue compiles a literal argument tree.
func compileValue(v any, mode formatMode) (*value, error) {
	if mode == formatNone {
		return constValue(v), nil
	}
	switch t := v.(type) {
	case string:
		tmpl, lit, err := parseTemplate(t)
		if err != nil {
			if mode == formatLenient {
				return constValue(t), nil
			}
			return nil, err
		}
		if tmpl == nil {
			return constValue(lit), nil
		}
		if tmpl.whole() != nil {
			return &value{kind: kindWhole, t: tmpl}, nil
		}
		return &value{kind: kindMixed, t: tmpl}, nil
	case []any:
		out := &value{kind: kindListValue}
		allConst := true
		for _, e := range t {
			c, err := compileValue(e, mode)
			if err != nil {
				return nil, err
			}
			allConst = allConst && c.kind == kindConst
			out.list = append(out.list, c)
		}
		if allConst {
			return constValue(constOf(out)), nil
		}
		return out, nil
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := &value{kind: kindMapValue}
		allConst := true
		for _, k := range keys {
			ck, err := compileValue(k, mode)
			if err != nil {
				return nil, err
			}
			cv, err := compileValue(t[k], mode)
			if err != nil {
				return nil, err
			}
			allConst = allConst && ck.kind == kindConst && cv.kind == kindConst
			out.keys = append(out.keys, ck)
			out.vals = append(out.vals, cv)
		}
		if allConst {
			return constValue(constOf(out)), nil
		}
		return out, nil
	}
	return constValue(v), nil
}

// constOf builds the constant a container of constants stands for (braces
// unescaped).
func constOf(v *value) any {
	switch v.kind {
	case kindListValue:
		out := make([]any, len(v.list))
		for i, e := range v.list {
			out[i] = constOf(e)
		}
		return out
	case kindMapValue:
		out := make(map[string]any, len(v.keys))
		for i := range v.keys {
			out[text(constOf(v.keys[i]))] = constOf(v.vals[i])
		}
		return out
	}
	return v.c
}

// refs lists every field in the value.
func (v *value) refs() []*ref {
	if v == nil {
		return nil
	}
	switch v.kind {
	case kindWhole, kindMixed:
		return v.t.refs()
	case kindListValue:
		var out []*ref
		for _, e := range v.list {
			out = append(out, e.refs()...)
		}
		return out
	case kindMapValue:
		var out []*ref
		for i := range v.keys {
			out = append(out, v.keys[i].refs()...)
			out = append(out, v.vals[i].refs()...)
		}
		return out
	}
	return nil
}

// isStringArg reports whether the top-level argument is a string (the only
// arguments a loop formats a second time, D20).
func (v *value) isStringArg() bool {
	switch v.kind {
	case kindWhole, kindMixed:
		return true
	case kindConst:
		_, ok := v.c.(string)
		return ok
	}
	return false
}

// eval resolves the value. ok is false when a field did not resolve: the
// string it was in is then kept as written (D7).
func (x *evalCtx) eval(v *value) (any, bool) {
	switch v.kind {
	case kindConst:
		return v.c, true
	case kindWhole:
		r := v.t.parts[0].ref
		got, ok := x.resolve(r)
		if !ok {
			x.unresolved(r)
			return v.t.srcValue, false
		}
		return got, true
	case kindMixed:
		var b strings.Builder
		for _, p := range v.t.parts {
			if p.ref == nil {
				b.WriteString(p.lit)
				continue
			}
			got, ok := x.resolve(p.ref)
			if !ok {
				x.unresolved(p.ref)
				return v.t.srcValue, false
			}
			b.WriteString(text(got))
		}
		return b.String(), true
	case kindListValue:
		out := make([]any, len(v.list))
		all := true
		for i, e := range v.list {
			var ok bool
			out[i], ok = x.eval(e)
			all = all && ok
		}
		return out, all
	case kindMapValue:
		out := make(map[string]any, len(v.keys))
		all := true
		for i := range v.keys {
			k, okK := x.eval(v.keys[i])
			e, okV := x.eval(v.vals[i])
			out[text(k)] = e
			all = all && okK && okV
		}
		return out, all
	}
	return nil, false
}

// evalArg resolves a top-level argument. In a loop a string result is
// formatted once more, so an item may itself hold a template (D20,
// Ironic's test_action_with_list_loop).
func (x *evalCtx) evalArg(v *value, inLoop bool) (any, bool) {
	got, ok := x.eval(v)
	if !inLoop || !ok || !v.isStringArg() {
		return got, ok
	}
	s, isString := got.(string)
	if !isString || !strings.ContainsAny(s, "{}") {
		return got, ok
	}
	again, err := compileValue(s, formatLenient)
	if err != nil {
		return got, ok
	}
	return x.eval(again)
}
