package schema

import (
	"strings"
	"testing"
	"time"

	"github.com/plumb-ci/plumb/internal/finding"
)

// Each render target's custom resources get the target's time budget for
// their CEL rules: past it, the rest are not checked against them (what an
// interrupted evaluation said is dropped) and one finding per target says
// so, at the first left unchecked. Other validation goes on.
func TestCELRulesHaveTheTargetBudget(t *testing.T) {
	failing := with(t, widget, "maxReplicas: 2", "maxReplicas: 0") // a CEL rule rejects it
	three := failing + "---\n" + strings.Replace(failing, "name: w\n", "name: w2\n", 1) + "---\n" + strings.Replace(failing, "name: w\n", "name: w3\n", 1)
	files := map[string]string{"crds/widgets.yaml": crdText(t), "a/widgets.yaml": three, "b/widget.yaml": with(t, failing, "size: small", "size: small\n  colour: red")}

	t.Run("within the budget", func(t *testing.T) {
		fs := analyze(t, &Analyzer{MaxTargetTime: time.Minute}, files)
		if n := count(fs, RuleValidationRule); n != 4 || count(fs, RuleValidationBudget) != 0 {
			t.Errorf("want 4 rule failures and no budget finding:%s", list(fs))
		}
	})
	t.Run("past the budget", func(t *testing.T) {
		fs := analyze(t, &Analyzer{MaxTargetTime: time.Nanosecond}, files)
		if n := count(fs, RuleValidationRule); n != 0 {
			t.Errorf("%d rule failures reported past the budget:%s", n, list(fs))
		}
		if count(fs, RuleUnknownField) != 1 {
			t.Errorf("the schema is still checked:%s", list(fs))
		}
		var a, b []string
		for _, f := range fs {
			if f.RuleID != RuleValidationBudget {
				continue
			}
			switch f.Location.File {
			case "a/widgets.yaml":
				a = append(a, f.Message)
				if f.Location.Line != 1 {
					t.Errorf("at line %d, want the first custom resource", f.Location.Line)
				}
			case "b/widget.yaml":
				b = append(b, f.Message)
			}
		}
		if len(a) != 1 || len(b) != 1 || count(fs, RuleValidationBudget) != 2 {
			t.Fatalf("want one budget finding per target:%s", list(fs))
		}
		for _, want := range []string{"in render target a took more than 1ns, the time budget of a render target: 3 custom resources were not checked against them",
			"--max-target-time", "limits.max_target_time"} {
			if !strings.Contains(a[0], want) {
				t.Errorf("%q does not say %q", a[0], want)
			}
		}
		if !strings.Contains(b[0], "1 custom resource was not checked") {
			t.Errorf("%q", b[0])
		}
	})
}

func count(fs []finding.Finding, rule string) int {
	n := 0
	for _, f := range fs {
		if f.RuleID == rule {
			n++
		}
	}
	return n
}
