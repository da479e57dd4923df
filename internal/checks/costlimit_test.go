package checks

import (
	"strings"
	"testing"
	"time"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// An expression that runs past the cost limit is stopped, on each target it
// runs on, and reported once as an input error at its line in the catalog
// — also when it is a message's interpolation, which otherwise fails
// silently into "Expectation not met". Another check of the catalog is not
// affected. (Each stop costs a few hundred milliseconds: the targets are
// few.)
func TestCostLimitIsAnInputErrorAtTheExpression(t *testing.T) {
	ten := "[1,2,3,4,5,6,7,8,9,10]"
	nested := ten + ".all(a, " + ten + ".all(b, " + ten + ".all(c, " + ten + ".all(d, " + ten + ".all(e, " + ten + ".all(f, " + ten +
		".all(g, facts.n != string(a+b+c+d+e+f+g))))))))"
	cat := catalogOf(t, map[string]string{
		"X1": "metadata: {target_type: object, kind: ConfigMap}\nfacts:\n  - {name: n, gatherer: manifest@v1, argument: metadata.name}\n" +
			"expectations:\n  - name: slow\n    expect: '" + nested + "'\n  - name: quick\n    expect: 'facts.n != \"one\"'\n" +
			"    failure_message: 'name ${" + strings.ReplaceAll(strings.ReplaceAll(nested, "!=", "=="), ".all(", ".exists(") + " ? \"x\" : \"y\"}'\n",
		"X2": "metadata: {target_type: object, kind: ConfigMap}\nfacts:\n  - {name: n, gatherer: manifest@v1, argument: metadata.name}\n" +
			"expectations:\n  - {name: ok, expect: 'facts.n != \"\"'}\n",
	})
	targets := renderFiles(t, map[string]string{
		"a/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one}\n",
		"b/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: two}\n",
	})
	res, fs := analyze(t, cat.Usable(), nil, &analyzer.Input{Targets: targets})
	var limit []string
	stopped := 0
	for _, f := range fs {
		switch f.RuleID {
		case RuleCostLimit:
			if !f.InputError {
				t.Errorf("not an input error: %s", &f)
			}
			limit = append(limit, manifest.FormatLocation(f.Location)+": "+f.Message)
		case "check/X1":
			if strings.Contains(f.Message, "(too_many_operations)") {
				stopped++
			}
		case "check/X2":
			t.Errorf("the other check failed: %s", &f)
		}
	}
	want := []string{
		"cat/X1.yaml:11:14: check X1: expectations[0].expect: the expression was stopped at the CEL cost limit of 5000000 units (or 10s) per evaluation: bound its comprehensions (each nested all/exists/map/filter over a list multiplies the cost) or split it",
		"cat/X1.yaml:14:30: check X1: expectations[1].failure_message: the expression was stopped at the CEL cost limit of 5000000 units (or 10s) per evaluation: bound its comprehensions (each nested all/exists/map/filter over a list multiplies the cost) or split it",
	}
	if strings.Join(limit, "\n") != strings.Join(want, "\n") {
		t.Errorf("cost-limit findings:\n%s\nwant:\n%s", strings.Join(limit, "\n"), strings.Join(want, "\n"))
	}
	if stopped != 2 {
		t.Errorf("%d targets report the stopped expectation, want 2", stopped)
	}
	// The Wanda result says why, on each target.
	for _, cr := range res.CheckResults {
		if cr.CheckID != "X1" {
			continue
		}
		for a := range cr.AgentsCheckResults.All() {
			if ev := a.Evaluations[0]; ev.Error == nil || ev.Error.Type != "too_many_operations" {
				t.Errorf("%s: evaluation %+v", a.AgentID, ev)
			}
		}
	}
}

// withEvalTimeLimit sets the time limit of an evaluation for one test.
func withEvalTimeLimit(t *testing.T, d time.Duration) {
	old := evalTimeLimit
	evalTimeLimit = d
	t.Cleanup(func() { evalTimeLimit = old })
}
