package schema

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// celBudget is the time the CEL rules (x-kubernetes-validations) of one
// render target's custom resources may take: the target's time budget
// (Limits.MaxTargetTime), counted as the sum of every evaluation's time on
// every worker. The API server bounds each object's rules by cost
// (celconfig.RuntimeCELCostBudget, about a second of evaluation, and
// PerCallLimit per rule) but has no notion of a target: a hundred small
// objects each just under the cost limit would otherwise take minutes.
// Once the budget is spent, the target's remaining custom resources are
// not checked against their rules, and one finding says so.
type celBudget struct {
	target string
	limit  time.Duration
	spent  atomic.Int64 // nanoseconds

	mu sync.Mutex
	// unchecked are the objects whose rules were not (all) evaluated;
	// first is the first of them in the target's order.
	unchecked int
	first     *manifest.Object
	firstAt   int
}

func newCELBudget(target string, limit time.Duration) *celBudget {
	return &celBudget{target: target, limit: limit, firstAt: -1}
}

// evaluate runs eval (the object's rules) with what is left of the
// budget as its deadline. When the budget runs out before or during it,
// the object (at index i of the verdicts) is counted as not checked and
// nothing is returned: what an interrupted evaluation found may be a
// rule's failure to finish rather than the object's.
func (b *celBudget) evaluate(ctx context.Context, o *manifest.Object, i int, eval func(context.Context) field.ErrorList) field.ErrorList {
	remaining := b.limit - time.Duration(b.spent.Load())
	if remaining > 0 {
		cctx, cancel := context.WithTimeout(ctx, remaining)
		start := time.Now()
		errs := eval(cctx)
		b.spent.Add(int64(time.Since(start)))
		interrupted := cctx.Err() != nil
		cancel()
		if !interrupted {
			return errs
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.unchecked++
	if b.firstAt < 0 || i < b.firstAt {
		b.first, b.firstAt = o, i
	}
	return nil
}

// finding is the target's one finding about its budget, at the first
// custom resource left unchecked; nil when none was.
func (b *celBudget) finding() *finding.Finding {
	if b.unchecked == 0 {
		return nil
	}
	what := "1 custom resource was"
	if b.unchecked > 1 {
		what = fmt.Sprintf("%d custom resources were", b.unchecked)
	}
	f := newFinding(b.first, RuleValidationBudget, manifest.Path{manifest.Key("apiVersion")},
		fmt.Sprintf("the CEL validation rules (x-kubernetes-validations) of the custom resources in render target %s took more than %v, the time budget of a render target: "+
			"%s not checked against them, this one first; raise the budget with --max-target-time or limits.max_target_time in .plumb.yaml, "+
			"or make the rules cheaper (bound lists with maxItems, avoid nested loops over them)", b.target, b.limit, what), false)
	// One finding per target, whichever object the budget ran out at.
	f.Fingerprint = finding.Fingerprint(RuleValidationBudget, manifest.ObjectID{}, nil, "target:"+b.target, "")
	return &f
}
