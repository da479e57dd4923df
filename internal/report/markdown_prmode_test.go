package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/renderdiff"
)

func withRenderedDiff(r *Report, lines int) *Report {
	var d strings.Builder
	d.WriteString("--- base/Deployment.apps/shop/web\n+++ head/Deployment.apps/shop/web\n@@ -1 +1 @@\n")
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&d, "-  replicas: %d\n+  replicas: %d\n", i, i+1)
	}
	r.Sections = map[string]any{renderdiff.SectionName: &renderdiff.Section{
		BaseRef: "main", BaseCommit: "0123456789abcdef0123456789abcdef01234567",
		Targets: []renderdiff.Target{
			{Name: "overlays/prod", Status: renderdiff.TargetChanged, Changed: 1, LinesAdded: lines, LinesRemoved: lines, Diff: d.String()},
			{Name: "overlays/<staging>", Status: renderdiff.TargetAdded, Added: 1, LinesAdded: 1, Diff: "--- /dev/null\n+++ head/ConfigMap/c\n@@ -0,0 +1 @@\n+a: b\n"},
		},
	}}
	return r
}

func TestMarkdownShowsTheRenderedDiff(t *testing.T) {
	r := withRenderedDiff(prReport(), 3)
	md := Markdown{}.Render(r)
	for _, want := range []string{
		"#### Rendered changes (2 targets, against `0123456789ab`)",
		"<details><summary><code>overlays/prod</code> — 1 object changed (+3 −3)</summary>",
		"<details><summary><code>overlays/&lt;staging&gt;</code> — new target, 1 added (+1 −0)</summary>",
		"```diff\n--- base/Deployment.apps/shop/web\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	// The section read back from a JSON report renders the same.
	raw, _ := json.Marshal(r.Sections[renderdiff.SectionName])
	r.Sections[renderdiff.SectionName] = json.RawMessage(raw)
	if again := (Markdown{}).Render(r); again != md {
		t.Error("a read-back section renders differently")
	}
}

func TestMarkdownRenderedDiffStaysInTheBudget(t *testing.T) {
	r := withRenderedDiff(prReport(), 5000)
	md := Markdown{MaxBytes: 20000}.Render(r)
	if len(md) > 20000 {
		t.Fatalf("%d bytes over the budget", len(md))
	}
	if !strings.Contains(md, "more lines: the full diff is in the JSON report") {
		t.Errorf("the large diff is not cut:\n%s", md)
	}
	// Whatever the budget, the rendered diff is shown (perhaps cut) or
	// pointed at.
	pointed := false
	for budget := 2000; budget <= 20000; budget += 250 {
		md := Markdown{MaxBytes: budget}.Render(r)
		if len(md) > budget {
			t.Fatalf("budget %d: %d bytes", budget, len(md))
		}
		shown := strings.Contains(md, "#### Rendered changes")
		if !shown && !strings.Contains(md, "the rendered diff") {
			t.Fatalf("budget %d: the rendered diff is neither shown nor pointed at:\n%s", budget, md)
		}
		pointed = pointed || !shown
	}
	if !pointed {
		t.Error("no budget was small enough to leave the diff out")
	}
}
