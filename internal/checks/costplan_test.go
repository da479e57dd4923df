package checks

import (
	"fmt"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/analyzer"
)

// podWith is a Pod with n containers.
func podWith(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: ns, labels: {app: %s}}\nspec:\n  containers:\n", name, name)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "    - {name: c%d, image: \"img:1\"}\n", i)
	}
	return b.String()
}

// planOf plans the checks over render targets as the analyzer does.
func planOf(t *testing.T, checks []*Check, files map[string]string) *costPlan {
	t.Helper()
	var idx []*targetIndex
	for _, rt := range renderFiles(t, files) {
		idx = append(idx, newTargetIndex(rt))
	}
	b := boundsOfTargets(idx, nil, nil).finish(checks, nil)
	return newCostPlan(checks, b.target, &b.object)
}

// An expression over one object's containers is estimated within the
// largest object, not within the largest render target: in a target of
// many small objects it runs untracked, while the same expression over
// every Pod of the target (objects@v1) keeps the cost tracking.
func TestCostPlanBoundsOneObjectExpressionsByTheObject(t *testing.T) {
	cat := catalogOf(t, map[string]string{
		"C1": `metadata: {target_type: object, kind: Pod}
facts:
  - {name: containers, gatherer: containers@v1}
expectations:
  - {name: pairs, expect: "facts.containers.all(a, facts.containers.all(b, a.name == b.name || a.image != ''))"}
`,
		"C2": `metadata: {target_type: object, kind: Pod}
facts:
  - {name: pods, gatherer: objects@v1, argument: kind=Pod}
expectations:
  - {name: pairs, expect: "facts.pods.all(a, facts.pods.all(b, a.metadata.name == b.metadata.name || a.kind != ''))"}
`,
		// The elements of objects@v1 are single objects.
		"C3": `metadata: {target_type: object, kind: Pod}
facts:
  - {name: pods, gatherer: objects@v1, argument: kind=Pod}
expectations:
  - {name: some, expect: "facts.pods.exists(p, p.spec.containers.all(a, a.name != ''))"}
`,
	})
	files := map[string]string{}
	for i := 0; i < 3000; i++ {
		files[fmt.Sprintf("app/p%04d.yaml", i)] = podWith(fmt.Sprintf("p%04d", i), 2)
	}
	plan := planOf(t, cat.Usable(), files)
	for _, c := range []struct {
		id   string
		fast bool
	}{{"C1", true}, {"C2", false}, {"C3", true}} {
		if got := plan.isFast(cat.Get(c.id).Expectations[0].Expr); got != c.fast {
			t.Errorf("%s untracked: %v, want %v", c.id, got, c.fast)
		}
	}
}

// The limit holds whichever bound applies: an object large enough to make
// a one-object expression exceed it is in the bound, so the expression is
// tracked and stops with too_many_operations.
func TestCostLimitHoldsForLargeObjects(t *testing.T) {
	cat := catalogOf(t, map[string]string{
		"C1": `metadata: {target_type: object, kind: Pod}
facts:
  - {name: containers, gatherer: containers@v1}
expectations:
  - {name: cubic, expect: "facts.containers.all(a, facts.containers.all(b, facts.containers.all(c, a.name != '' && b.name != '' && c.name != '')))"}
`,
	})
	files := map[string]string{"app/big.yaml": podWith("big", 200), "app/small.yaml": podWith("small", 2)}
	checks := cat.Usable()
	if planOf(t, checks, files).isFast(checks[0].Expectations[0].Expr) {
		t.Fatal("a cubic expression over a Pod of 200 containers is planned untracked")
	}
	res, _ := analyze(t, checks, nil, &analyzer.Input{Targets: renderFiles(t, files)})
	got := map[string]string{}
	for a := range res.CheckResults[0].AgentsCheckResults.All() {
		ev := a.Evaluations[0]
		switch {
		case ev.Error != nil:
			got[a.AgentID] = ev.Error.Type
		default:
			got[a.AgentID] = fmt.Sprint(ev.ReturnValue)
		}
	}
	if got["app:v1/Pod/ns/big"] != "too_many_operations" || got["app:v1/Pod/ns/small"] != "true" {
		t.Errorf("evaluations %v", got)
	}
}

// boundOf picks the object bound for values cel-go traces to a variable,
// the target bound for a fact holding several objects (also when chosen
// dynamically), and the expression's fallback for untraced values.
func TestBoundEstimatorPaths(t *testing.T) {
	object, target, fallback := sizeBound{10, 10}, sizeBound{1000, 10}, sizeBound{7, 7}
	e := boundEstimator{fallback: fallback, object: object, target: target, many: map[string]bool{"pods": true}}
	for _, c := range []struct {
		path []string
		want sizeBound
	}{
		{nil, fallback},
		{[]string{"facts"}, object},
		{[]string{"facts", "containers"}, object},
		{[]string{"facts", "pods"}, target},
		{[]string{"facts", "pods", "@items"}, object},
		{[]string{"facts", "@values"}, target},
		{[]string{"values", "limit"}, object},
		{[]string{"env"}, object},
	} {
		if got := e.boundOf(c.path); got != c.want {
			t.Errorf("%v: %v, want %v", c.path, got, c.want)
		}
	}
	if got := (boundEstimator{fallback: fallback, object: object, target: target}).boundOf([]string{"facts", "@values"}); got != object {
		t.Errorf("facts chosen dynamically, none of several objects: %v", got)
	}
}
