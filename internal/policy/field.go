package policy

import (
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// This file finds the field of the object a failing validation is about,
// from the validation's CEL AST: the fields it reads from object (through
// the policy's variables), and, for a comprehension over a list of the
// object (containers.all(c, ...)), the elements that break it — each
// found by evaluating the validation again with the list cut down to that
// element alone.

// maxVariableDepth bounds how deep variables referring to variables are
// followed.
const maxVariableDepth = 8

// fieldReader knows a policy's expressions: its variables by name.
type fieldReader struct {
	variables map[string]*celast.AST
}

// chain is a field selection rooted at an identifier:
// object.spec.containers[0].image is {root: "object", path:
// spec.containers[0].image}.
type chain struct {
	root string
	path manifest.Path
}

// selectChain reads e as a field selection (a.b.c, a['b'], a.?b, a[0],
// has(a.b)).
func selectChain(e celast.Expr) (chain, bool) {
	var rev manifest.Path
	for {
		switch e.Kind() {
		case celast.IdentKind:
			path := make(manifest.Path, len(rev))
			for i := range rev {
				path[i] = rev[len(rev)-1-i]
			}
			return chain{root: e.AsIdent(), path: path}, true
		case celast.SelectKind:
			s := e.AsSelect()
			rev = append(rev, manifest.Key(s.FieldName()))
			e = s.Operand()
		case celast.CallKind:
			// a['b'], a[0], and the optional a.?b and a[?'b']: the same
			// field, read when present.
			c := e.AsCall()
			fn := c.FunctionName()
			if (fn != operators.Index && fn != operators.OptSelect && fn != operators.OptIndex) || len(c.Args()) != 2 || c.Args()[1].Kind() != celast.LiteralKind {
				return chain{}, false
			}
			switch key := c.Args()[1].AsLiteral().(type) {
			case types.String:
				rev = append(rev, manifest.Key(string(key)))
			case types.Int:
				if key < 0 || key > maxLiteralIndex {
					return chain{}, false
				}
				rev = append(rev, manifest.Index(int(key)))
			default:
				return chain{}, false
			}
			e = c.Args()[0]
		default:
			return chain{}, false
		}
	}
}

// maxLiteralIndex bounds the list index a literal a[i] is read as a
// field path with (beyond it no rendered list reaches).
const maxLiteralIndex = 1 << 20

// objectPaths are the paths of object's fields e reads, variables
// followed, in the order they are met.
func (r *fieldReader) objectPaths(e celast.Expr, depth int) []manifest.Path {
	var out []manifest.Path
	visit := func(e celast.Expr) {
		c, ok := selectChain(e)
		if !ok {
			return
		}
		switch {
		case c.root == "object" && len(c.path) > 0:
			out = append(out, c.path)
		case c.root == "variables" && len(c.path) > 0 && !c.path[0].IsIndex && depth < maxVariableDepth:
			// variables.x.rest reads rest below each field x reads.
			if v := r.variables[c.path[0].Key]; v != nil {
				for _, p := range r.objectPaths(v.Expr(), depth+1) {
					out = append(out, append(p[:len(p):len(p)], c.path[1:]...))
				}
			}
		}
	}
	celast.PreOrderVisit(e, celast.NewExprVisitor(visit))
	return out
}

// loop is a comprehension over lists of the object: the lists' paths and
// the fields of an element its body reads.
type loop struct {
	lists []manifest.Path
	// element are the paths, relative to an element, that the body reads
	// from the iteration variable.
	element []manifest.Path
}

// loops are the comprehensions of e whose range reads lists of the object,
// outermost first.
func (r *fieldReader) loops(e celast.Expr) []loop {
	var out []loop
	celast.PreOrderVisit(e, celast.NewExprVisitor(func(e celast.Expr) {
		if e.Kind() != celast.ComprehensionKind {
			return
		}
		c := e.AsComprehension()
		lists := r.objectPaths(c.IterRange(), 0)
		if len(lists) == 0 {
			return
		}
		l := loop{lists: lists}
		celast.PreOrderVisit(c.LoopStep(), celast.NewExprVisitor(func(e celast.Expr) {
			if ch, ok := selectChain(e); ok && ch.root == c.IterVar() && len(ch.path) > 0 {
				l.element = append(l.element, ch.path)
			}
		}))
		out = append(out, l)
	}))
	return out
}

// deepest trims p to the longest prefix present in content.
func deepest(content map[string]any, p manifest.Path) manifest.Path {
	for q := p; len(q) > 0; q = q.Parent() {
		if _, ok := manifest.Lookup(content, q); ok {
			return q
		}
	}
	return nil
}

// longestPresent is the longest of paths, each trimmed to what content
// has; the first of equal length wins.
func longestPresent(content map[string]any, paths []manifest.Path) manifest.Path {
	var best manifest.Path
	for _, p := range paths {
		if q := deepest(content, p); len(q) > len(best) {
			best = q
		}
	}
	return best
}

// withValue returns a copy of content with the value at p (a path of
// keys) replaced; only the maps along p are copied.
func withValue(content map[string]any, p manifest.Path, v any) map[string]any {
	out := make(map[string]any, len(content))
	for k, x := range content {
		out[k] = x
	}
	if len(p) == 1 {
		out[p[0].Key] = v
		return out
	}
	child, _ := content[p[0].Key].(map[string]any)
	out[p[0].Key] = withValue(child, p[1:], v)
	return out
}

// keyPath reports whether p has keys only (no list index).
func keyPath(p manifest.Path) bool {
	for _, s := range p {
		if s.IsIndex {
			return false
		}
	}
	return len(p) > 0
}

// prober evaluates the failing validation again on another version of
// the object: true when it still fails.
type prober func(content map[string]any) bool

// offendingFields returns the fields of content that the failing
// validation e is about: for a comprehension over lists of the object,
// the elements that fail it on their own (when the validation passes
// with the lists empty, so that the elements are to blame), each at the
// element field the body reads; otherwise the longest field the
// expression reads that the object has. nil when none is found.
func (r *fieldReader) offendingFields(e celast.Expr, content map[string]any, probe prober) []manifest.Path {
	for _, l := range r.loops(e) {
		if found := elementsToBlame(l, content, probe); len(found) > 0 {
			return found
		}
	}
	if p := longestPresent(content, r.objectPaths(e, 0)); p != nil {
		return []manifest.Path{p}
	}
	return nil
}

// elementsToBlame probes a loop's lists element by element.
func elementsToBlame(l loop, content map[string]any, probe prober) []manifest.Path {
	type list struct {
		path  manifest.Path
		items []any
	}
	var lists []list
	emptied := content
	for _, p := range l.lists {
		if !keyPath(p) {
			continue
		}
		v, ok := manifest.Lookup(content, p)
		items, isList := v.([]any)
		if !ok || !isList {
			continue
		}
		lists = append(lists, list{p, items})
		emptied = withValue(emptied, p, []any{})
	}
	if len(lists) == 0 || probe(emptied) {
		return nil
	}
	var out []manifest.Path
	for _, ls := range lists {
		for i, item := range ls.items {
			if !probe(withValue(emptied, ls.path, []any{item})) {
				continue
			}
			at := ls.path.Child(manifest.Index(i))
			if sub := longestPresent(map[string]any{"item": item}, prefixed(l.element)); len(sub) > 1 {
				at = at.Child(sub[1:]...)
			}
			out = append(out, at)
		}
	}
	return out
}

// prefixed puts paths below a key "item", so that longestPresent can
// trim them against one element.
func prefixed(paths []manifest.Path) []manifest.Path {
	out := make([]manifest.Path, len(paths))
	for i, p := range paths {
		out[i] = append(manifest.Path{manifest.Key("item")}, p...)
	}
	return out
}
