package checks

import (
	"sync"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
)

// sizeBound bounds the sizes of the data expressions read in one run: no
// list or map (facts, values, env, host attributes, anything derived from
// one object, the objects of one render target, a parsed ConfigMap file)
// has more than lists elements, and no string more than strings bytes.
type sizeBound struct {
	lists, strings uint64
}

// observe widens the bound to cover a value: any list derived from it (a
// wildcard path, the references of a pod) has at most as many elements as
// the value has nodes.
func (b *sizeBound) observe(v any) {
	b.lists = max(b.lists, b.walk(v))
}

// walk returns the number of nodes of v and records string lengths.
func (b *sizeBound) walk(v any) uint64 {
	switch t := v.(type) {
	case map[string]any:
		n := uint64(len(t))
		for k, e := range t {
			b.strings = max(b.strings, uint64(len(k)))
			n += b.walk(e)
		}
		return n
	case []any:
		n := uint64(len(t))
		for _, e := range t {
			n += b.walk(e)
		}
		return n
	case string:
		b.strings = max(b.strings, uint64(len(t)))
	}
	return 1
}

// observeChecks widens the bound to the checks' own values.
func (b *sizeBound) observeChecks(checks []*Check, custom Customizations) {
	for _, c := range checks {
		b.lists = max(b.lists, uint64(len(c.Facts)), uint64(len(c.Values)))
		for _, v := range c.Values {
			b.observe(v.Default)
			for _, cond := range v.Conditions {
				b.observe(cond.Value)
			}
		}
	}
	for _, values := range custom {
		for _, v := range values {
			b.observe(v)
		}
	}
}

// finish makes the bound cover what gatherers derive: parsed ConfigMap
// files have no more elements than their text has bytes, and a dynamic
// value may be a list or a string.
func (b *sizeBound) finish() sizeBound {
	b.lists = max(b.lists, b.strings)
	return *b
}

// boundOfTargets computes the bound of an analysis: every object, the
// number of objects of the largest render target, and the env.
func boundOfTargets(idx []*targetIndex, envs []map[string]any) sizeBound {
	var b sizeBound
	for _, t := range idx {
		b.lists = max(b.lists, uint64(len(t.objects)), uint64(len(idx)))
		for _, o := range t.objects {
			b.observe(o.Content)
		}
	}
	for _, e := range envs {
		b.observe(e)
	}
	return b
}

// costPlan lists the expressions that cannot exceed CostLimit on inputs
// within a sizeBound, by cel-go's static cost estimate (an upper bound of
// the runtime cost, the estimate Kubernetes admission relies on). Those run
// without cost tracking; the others keep it, so the limit holds either way.
type costPlan struct {
	fast map[*Expr]bool
	// stopped records the expressions that reached CostLimit in the run
	// (concurrently, from every worker).
	stopped sync.Map // *Expr → struct{}
}

func (p *costPlan) isFast(e *Expr) bool { return p != nil && p.fast[e] }

// stop records that an expression reached CostLimit.
func (p *costPlan) stop(e *Expr) {
	if p != nil {
		p.stopped.Store(e, struct{}{})
	}
}

// wasStopped reports whether an expression reached CostLimit in the run.
func (p *costPlan) wasStopped(e *Expr) bool {
	if p == nil {
		return false
	}
	_, ok := p.stopped.Load(e)
	return ok
}

func newCostPlan(checks []*Check, b sizeBound) *costPlan {
	p := &costPlan{fast: map[*Expr]bool{}}
	est := boundEstimator{b}
	try := func(e *Expr) {
		if e == nil || !e.Compiled() || e.fast == nil {
			return
		}
		env, err := celEnv(e.scope)
		if err != nil {
			return
		}
		c, err := env.EstimateCost(e.ast, est)
		if err == nil && c.Max <= CostLimit {
			p.fast[e] = true
		}
	}
	for _, c := range checks {
		c.eachExpr(func(e *Expr, _ string) { try(e) })
	}
	return p
}

// boundEstimator gives cel-go's cost estimator the size bound for every
// value whose size CEL does not know.
type boundEstimator struct {
	b sizeBound
}

func (e boundEstimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	limit := max(e.b.lists, e.b.strings)
	if t := n.Type(); t != nil {
		switch t.Kind() {
		case types.StringKind, types.BytesKind:
			limit = e.b.strings
		case types.ListKind, types.MapKind:
			limit = e.b.lists
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: limit}
}

func (boundEstimator) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}
