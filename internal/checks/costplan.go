package checks

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"

	"github.com/plumb-ci/plumb/internal/parallel"
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

// runBounds are the size bounds of one analysis. An object check whose
// expression reads only facts gathered from one object (its containers, a
// field, a ConfigMap file; not objects@v1) sees nothing larger than the
// largest object, its attributes, the env and the checks' values: object
// bounds those. Other expressions may read every object of a render target:
// target adds the number of objects of the largest one. Telling the two
// apart keeps expressions over containers untracked in repositories whose
// render targets hold thousands of objects.
type runBounds struct {
	object, target sizeBound
}

// boundsOfTargets computes the bounds of an analysis: every object as
// gatherers see it (Secret values masked), every target's attributes
// (exclude's host), the env, and for target the number of objects of the
// largest render target and of render targets.
func boundsOfTargets(idx []*targetIndex, hosts []sizeBound, envs []map[string]any) runBounds {
	var b runBounds
	// Every object's content is walked: on every core, one bound per
	// render target, then the widest of them.
	perTarget := make([]sizeBound, len(idx))
	parallel.ForEach(0, len(idx), func(i int) {
		for _, o := range idx[i].objects {
			perTarget[i].observe(idx[i].content(o))
		}
	})
	for i, t := range idx {
		b.target.lists = max(b.target.lists, uint64(len(t.objects)), uint64(len(idx)))
		b.object.lists = max(b.object.lists, perTarget[i].lists)
		b.object.strings = max(b.object.strings, perTarget[i].strings)
	}
	for _, h := range hosts {
		b.object.lists = max(b.object.lists, h.lists)
		b.object.strings = max(b.object.strings, h.strings)
	}
	for _, e := range envs {
		b.object.observe(e)
	}
	b.target.lists = max(b.target.lists, b.object.lists)
	b.target.strings = b.object.strings
	return b
}

// finish completes both bounds with the checks' values (finish).
func (b runBounds) finish(checks []*Check, custom Customizations) runBounds {
	for _, s := range []*sizeBound{&b.object, &b.target} {
		s.observeChecks(checks, custom)
		*s = s.finish()
	}
	return b
}

// costPlan lists the expressions that cannot exceed CostLimit on inputs
// within a sizeBound, by cel-go's static cost estimate (an upper bound of
// the runtime cost, the estimate Kubernetes admission relies on). Those run
// without cost tracking; the others keep it, so the limit holds either way.
type costPlan struct {
	fast map[*Expr]bool
	// stopped records the expressions that reached a limit in the run
	// (concurrently, from every worker), with the limits they reached.
	stopped sync.Map // *Expr → *atomic.Uint32 (stop* bits)
}

// The limits an expression can reach: the cost limit or the deadline
// (one, see EvalTimeLimit), the value limit.
const (
	stopCost uint32 = 1 << iota
	stopValue
)

func (p *costPlan) isFast(e *Expr) bool { return p != nil && p.fast[e] }

// stop records that an expression reached a limit (why: the error).
func (p *costPlan) stop(e *Expr, why string) {
	if p == nil {
		return
	}
	bit := stopCost
	if strings.Contains(why, "value limit") {
		bit = stopValue
	}
	v, _ := p.stopped.LoadOrStore(e, new(atomic.Uint32))
	v.(*atomic.Uint32).Or(bit)
}

// stops returns the limits an expression reached (stop* bits).
func (p *costPlan) stops(e *Expr) uint32 {
	if p == nil {
		return 0
	}
	v, ok := p.stopped.Load(e)
	if !ok {
		return 0
	}
	return v.(*atomic.Uint32).Load()
}

// wasStopped reports whether an expression reached CostLimit in the run.
func (p *costPlan) wasStopped(e *Expr) bool {
	if p == nil {
		return false
	}
	return p.stops(e) != 0
}

// newCostPlan estimates every expression of the checks within b, or within
// object (when set) for the expressions of object checks that read only
// facts of one object (readsOneObject).
func newCostPlan(checks []*Check, b sizeBound, object *sizeBound) *costPlan {
	p := &costPlan{fast: map[*Expr]bool{}}
	try := func(c *Check, e *Expr) {
		if e == nil || !e.Compiled() || e.fast == nil {
			return
		}
		env, err := celEnv(e.scope)
		if err != nil {
			return
		}
		est := boundEstimator{fallback: b, object: b, target: b}
		if object != nil {
			est.object, est.many = *object, manyObjectFacts(c)
			if readsOneObject(c, e) {
				est.fallback = *object
			}
		}
		cost, err := env.EstimateCost(e.ast, est)
		if err == nil && cost.Max <= CostLimit {
			p.fast[e] = true
		}
	}
	for _, c := range checks {
		c.eachExpr(func(e *Expr, _ string) { try(c, e) })
	}
	return p
}

// readsOneObject reports whether an expression of an object check reads
// nothing larger than one object: every fact it refers to is gathered from
// a single object (a reference to facts as a whole counts as all of them).
func readsOneObject(c *Check, e *Expr) bool {
	if c.TargetType != TargetObject {
		return false
	}
	for _, r := range factReferences(e.ast, c.Facts) {
		if !c.Facts[r].oneObject {
			return false
		}
	}
	return true
}

// boundEstimator gives cel-go's cost estimator the size bound for every
// value whose size CEL does not know. cel-go traces most values to the
// variable they were read from (a field path through facts, values, env,
// with @items, @keys and @values for elements): those are within one object
// (or the env, the values, an object's attributes) unless they are a fact
// holding several objects (objects@v1) as a whole. Values it cannot trace
// (the result of an optional field selection, orValue) get fallback: the
// object bound when the whole expression reads only one object, the target
// bound otherwise.
type boundEstimator struct {
	fallback, object, target sizeBound
	// many are the facts whose values hold several objects.
	many map[string]bool
}

func (e boundEstimator) boundOf(path []string) sizeBound {
	switch {
	case len(path) == 0:
		return e.fallback
	case path[0] != "facts" || len(path) != 2:
		return e.object
	case e.many[path[1]], strings.HasPrefix(path[1], "@") && len(e.many) > 0:
		// The fact itself, or one chosen dynamically (facts[name]).
		return e.target
	}
	return e.object
}

func (e boundEstimator) EstimateSize(n checker.AstNode) *checker.SizeEstimate {
	b := e.boundOf(n.Path())
	limit := max(b.lists, b.strings)
	if t := n.Type(); t != nil {
		switch t.Kind() {
		case types.StringKind, types.BytesKind:
			limit = b.strings
		case types.ListKind, types.MapKind:
			limit = b.lists
		}
	}
	return &checker.SizeEstimate{Min: 0, Max: limit}
}

// manyObjectFacts lists the facts of a check that hold several objects.
func manyObjectFacts(c *Check) map[string]bool {
	var out map[string]bool
	for _, f := range c.Facts {
		if !f.oneObject {
			if out == nil {
				out = map[string]bool{}
			}
			out[f.Name] = true
		}
	}
	return out
}

// EstimateCallCost bounds the calls that build values (celguard.go): the
// guard refuses one that would build more than MaxValueBytes, whatever
// cel-go's own estimate (which takes a joined list's elements to be one
// byte each) says, so the estimate is sound: at most that many bytes, and
// the cost of writing them.
func (boundEstimator) EstimateCallCost(function, _ string, _ *checker.AstNode, _ []checker.AstNode) *checker.CallEstimate {
	if _, guarded := buildingCalls[function]; !guarded {
		return nil
	}
	size := checker.SizeEstimate{Min: 0, Max: MaxValueBytes}
	return &checker.CallEstimate{CostEstimate: checker.CostEstimate{Min: 0, Max: MaxValueBytes / 10}, ResultSize: &size}
}
