package validation

import (
	"errors"
	"reflect"
	"strings"
	"sync"

	"k8s.io/client-go/util/jsonpath"
)

// PathPrefix marks a rule value as a JSONPath.
const PathPrefix = "jsonpath::"

// ErrInvalidJSONPath is the validator's error for a path without the
// jsonpath:: prefix, and for a path that resolves neither on the VM nor on
// the reference VM.
var ErrInvalidJSONPath = errors.New("invalid JSONPath")

// Path is a rule's JSONPath. The text after jsonpath:: (minus one leading
// $) is evaluated as {.spec.template<expr>} on the VirtualMachine, so the
// root is the VM's spec.template, not the Template's objects[] element the
// spec talks about.
type Path struct {
	// expr is the expression as the validator reports it in status causes.
	expr string
	// compiled holds parsed *jsonpath.JSONPath values. client-go keeps
	// evaluation state in the JSONPath, so one value cannot be shared by
	// goroutines; the pool gives each goroutine its own.
	compiled *sync.Pool
}

// parsedPaths caches NewPath by text: the same paths recur in every VM's
// annotation, and parsing is the costly part of reading one.
var parsedPaths sync.Map // string → parsedPath

type parsedPath struct {
	p   Path
	err error
}

// NewPath parses a jsonpath:: value.
func NewPath(s string) (Path, error) {
	if c, ok := parsedPaths.Load(s); ok {
		pp := c.(parsedPath)
		return pp.p, pp.err
	}
	p, err := newPath(s)
	if len(s) <= 4096 {
		parsedPaths.Store(s, parsedPath{p, err})
	}
	return p, err
}

func newPath(s string) (Path, error) {
	rest, ok := strings.CutPrefix(s, PathPrefix)
	if !ok {
		return Path{}, ErrInvalidJSONPath
	}
	expr := strings.TrimPrefix(rest, "$")
	text := "{.spec.template" + expr + "}"
	first := jsonpath.New(expr)
	if err := first.Parse(text); err != nil {
		return Path{}, err
	}
	pool := &sync.Pool{New: func() any {
		jp := jsonpath.New(expr)
		if err := jp.Parse(text); err != nil {
			panic("validation: a parsed JSONPath no longer parses: " + err.Error())
		}
		return jp
	}}
	pool.Put(first)
	return Path{expr: expr, compiled: pool}, nil
}

// MustPath is NewPath for literals in tests and code.
func MustPath(s string) Path {
	p, err := NewPath(s)
	if err != nil {
		panic(err)
	}
	return p
}

// IsSet reports whether the path was given.
func (p Path) IsSet() bool { return p.compiled != nil }

// Expr returns the expression without the prefix and the leading $, e.g.
// .spec.domain.cpu.cores (the status cause's field).
func (p Path) Expr() string { return p.expr }

// UnmarshalJSON reads a "jsonpath::..." string; anything else (a string
// without the prefix, "", null) is ErrInvalidJSONPath, and a syntax error is
// client-go's parser error, as in the validator.
func (p *Path) UnmarshalJSON(b []byte) error {
	s, err := jsonString(b)
	if err != nil {
		return err
	}
	q, err := NewPath(s)
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// Find evaluates the path on obj (a *v1.VirtualMachine) and flattens the
// result groups. A missing map key, a nil pointer in the middle of the path
// or an unknown field is an error; a nil pointer at the end is a value; [*]
// over an empty list is no values and no error.
func (p Path) Find(obj any) ([]reflect.Value, error) {
	jp := p.compiled.Get().(*jsonpath.JSONPath)
	defer p.compiled.Put(jp)
	groups, err := jp.FindResults(obj)
	if err != nil {
		return nil, err
	}
	if len(groups) == 1 {
		return groups[0], nil
	}
	var out []reflect.Value
	for _, g := range groups {
		out = append(out, g...)
	}
	return out, nil
}

// Values are the results of a path on the VM, or on the reference VM when
// the VM lacks the path.
type Values struct {
	List []reflect.Value
	// FromReference is set when the values are the reference VM's zero
	// values because the path does not resolve on the VM.
	FromReference bool
}

// Resolve evaluates the path on the VM and, when that fails, on the
// reference VM; when both fail the error is ErrInvalidJSONPath.
func (p Path) Resolve(vm, ref any) (Values, error) {
	return newResolver(vm, ref).resolve(p)
}

// resolver evaluates paths on one VM and the reference VM, remembering
// each expression's results: the rules of one annotation often share a
// path (a `valid` equal to the `path`, two rules on the disk buses), and
// evaluating a path twice on the same VM gives the same values.
type resolver struct {
	vm, ref any
	memo    map[memoKey]memoResult
}

type memoKey struct {
	expr string
	ref  bool
}

type memoResult struct {
	vals []reflect.Value
	err  error
}

func newResolver(vm, ref any) *resolver {
	return &resolver{vm: vm, ref: ref, memo: make(map[memoKey]memoResult, 8)}
}

// find is Path.Find on the VM (or the reference VM), memoized.
func (rs *resolver) find(p Path, onRef bool) ([]reflect.Value, error) {
	k := memoKey{p.expr, onRef}
	if m, ok := rs.memo[k]; ok {
		return m.vals, m.err
	}
	obj := rs.vm
	if onRef {
		obj = rs.ref
	}
	vals, err := p.Find(obj)
	rs.memo[k] = memoResult{vals, err}
	return vals, err
}

// resolve is Path.Resolve, memoized.
func (rs *resolver) resolve(p Path) (Values, error) {
	vals, err := rs.find(p, false)
	if err == nil {
		return Values{List: vals}, nil
	}
	vals, err = rs.find(p, true)
	if err != nil {
		return Values{}, ErrInvalidJSONPath
	}
	return Values{List: vals, FromReference: true}, nil
}
