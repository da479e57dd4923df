package checks

import (
	"sort"
	"strings"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// A finding about one element of a list fact (a container) points at the
// element. When the object was rendered by kustomize and a field the
// expectation reads in that element was written elsewhere (a patch set
// privileged: true, added SYS_ADMIN, removed limits), the element's line is
// the base's, and the line to edit is the patch's: the finding goes there.
// The fields an expectation reads are the select chains of its CEL
// expression rooted at the variable that ranges over the fact
// (c.?securityContext.?privileged), through cel.bind aliases.

// chainRoot is what a CEL variable stands for: a path below one element of
// a fact.
type chainRoot struct {
	fact string
	path manifest.Path
}

// elementChains returns, per fact, the paths (relative to one element) the
// expression reads, longest first.
func elementChains(a *cel.Ast) map[string][]manifest.Path {
	if a == nil || a.NativeRep() == nil {
		return nil
	}
	out := map[string][]manifest.Path{}
	seen := map[string]bool{}
	var walk func(e celast.Expr, vars map[string]chainRoot)
	walk = func(e celast.Expr, vars map[string]chainRoot) {
		if r, ok := chainOf(e, vars); ok && len(r.path) > 0 {
			if k := r.fact + "\x00" + r.path.String(); !seen[k] {
				seen[k] = true
				out[r.fact] = append(out[r.fact], r.path)
			}
		}
		switch e.Kind() {
		case celast.SelectKind:
			walk(e.AsSelect().Operand(), vars)
		case celast.CallKind:
			c := e.AsCall()
			if c.IsMemberFunction() {
				walk(c.Target(), vars)
			}
			for _, arg := range c.Args() {
				walk(arg, vars)
			}
		case celast.ListKind:
			for _, x := range e.AsList().Elements() {
				walk(x, vars)
			}
		case celast.ComprehensionKind:
			c := e.AsComprehension()
			walk(c.IterRange(), vars)
			walk(c.AccuInit(), vars)
			inner := make(map[string]chainRoot, len(vars)+2)
			for k, v := range vars {
				inner[k] = v
			}
			delete(inner, c.IterVar())
			delete(inner, c.AccuVar())
			if r, ok := factRange(c.IterRange()); ok {
				inner[c.IterVar()] = r
			}
			if r, ok := chainOf(c.AccuInit(), vars); ok {
				inner[c.AccuVar()] = r // cel.bind(sc, c.?securityContext, ...)
			}
			walk(c.LoopCondition(), inner)
			walk(c.LoopStep(), inner)
			walk(c.Result(), inner)
		}
	}
	walk(a.NativeRep().Expr(), map[string]chainRoot{})
	for _, ps := range out {
		sort.SliceStable(ps, func(i, j int) bool { return len(ps[i]) > len(ps[j]) })
	}
	return out
}

// factRange recognises facts.NAME, the range of a comprehension over the
// elements of a fact.
func factRange(e celast.Expr) (chainRoot, bool) {
	if e.Kind() != celast.SelectKind {
		return chainRoot{}, false
	}
	s := e.AsSelect()
	if op := s.Operand(); op.Kind() == celast.IdentKind && op.AsIdent() == "facts" {
		return chainRoot{fact: s.FieldName()}, true
	}
	return chainRoot{}, false
}

// chainOf reads e as a path below a variable's element: field selects,
// optional selects, string indexes, and the optional's orValue/value.
func chainOf(e celast.Expr, vars map[string]chainRoot) (chainRoot, bool) {
	switch e.Kind() {
	case celast.IdentKind:
		r, ok := vars[e.AsIdent()]
		return r, ok
	case celast.SelectKind:
		s := e.AsSelect()
		return extend(s.Operand(), s.FieldName(), vars)
	case celast.CallKind:
		c := e.AsCall()
		switch fn := c.FunctionName(); {
		case (fn == "_?._" || fn == "_[_]" || fn == "_[?_]") && len(c.Args()) == 2:
			if k, ok := stringLiteral(c.Args()[1]); ok {
				return extend(c.Args()[0], k, vars)
			}
		case c.IsMemberFunction() && (fn == "orValue" || fn == "value"):
			return chainOf(c.Target(), vars)
		}
	}
	return chainRoot{}, false
}

func extend(operand celast.Expr, key string, vars map[string]chainRoot) (chainRoot, bool) {
	r, ok := chainOf(operand, vars)
	if !ok {
		return chainRoot{}, false
	}
	p := make(manifest.Path, len(r.path), len(r.path)+1)
	copy(p, r.path)
	return chainRoot{fact: r.fact, path: append(p, manifest.Key(key))}, true
}

func stringLiteral(e celast.Expr) (string, bool) {
	if e.Kind() != celast.LiteralKind {
		return "", false
	}
	s, ok := e.AsLiteral().(types.String)
	return string(s), ok
}

// culprit moves a finding about one element to a field the expectation
// reads there when a patch in another file than the element's wrote or
// removed that field (an overlay's patch over the base; never a
// transformer's entry, whose line is not the one to edit). A list the expectation reads
// moves it only to an element the message names (the SYS_ADMIN a patch
// added, not the base's NET_BIND_SERVICE). The finding's path stays the
// element's: fixes are relative to it.
func culprit(p place, at origin, chains []manifest.Path, msg string) place {
	if at.obj == nil || len(at.path) == 0 || len(chains) == 0 || p.loc.File == "" {
		return p
	}
	if el, ok := at.obj.Get(at.path); !ok || !isMap(el) {
		return p // the fact's element is not a subtree of the object
	}
	patched := func(q manifest.Path) bool {
		loc, ok := at.obj.PatchedAt(q)
		if ok && loc.File != "" && loc.File != p.loc.File {
			p.loc = loc
			return true
		}
		return false
	}
	for _, rel := range chains {
		full := append(append(manifest.Path(nil), at.path...), rel...)
		v, _ := at.obj.Get(full)
		switch t := v.(type) {
		case map[string]any:
		case []any:
			for j, x := range t {
				if s, scalar := x.(string); scalar && s != "" && strings.Contains(msg, s) && patched(append(full, manifest.Index(j))) {
					return p
				}
			}
		default:
			if patched(full) {
				return p
			}
		}
	}
	return p
}

func isMap(v any) bool { _, ok := v.(map[string]any); return ok }
