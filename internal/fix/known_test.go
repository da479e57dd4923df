package fix_test

import (
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/fix"
)

// A request above its limit is lowered to the limit, as the limit is
// written, in a kustomize base and through the overlay patch that set
// the request; the edit makes the finding go and adds none.
func TestRequestAboveLimitIsLoweredToTheLimit(t *testing.T) {
	over := strings.Replace(workload, "requests: {cpu: 100m, memory: 64Mi}\n            limits: {memory: 128Mi}",
		"requests: {cpu: 100m, memory: 1Gi}\n            limits: {memory: 512Mi}", 1)
	for _, sc := range []struct {
		name   string
		files  map[string]string
		edited string
		line   int
		want   string
	}{
		{"a plain file", map[string]string{"apps/web.yaml": over}, "apps/web.yaml", 22, "            requests: {cpu: 100m, memory: 512Mi}\n"},
		{"an overlay patch", map[string]string{
			"base/kustomization.yaml":          "resources: [deploy.yaml]\n",
			"base/deploy.yaml":                 workload,
			"overlays/prod/kustomization.yaml": "resources: [../../base]\npatches:\n  - path: big.yaml\n",
			"overlays/prod/big.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  template:\n    spec:\n      containers:\n" +
				"        - name: web\n          resources:\n            requests:\n              memory: 2Gi\n",
		}, "overlays/prod/big.yaml", 11, "              memory: 128Mi\n"},
	} {
		t.Run(sc.name, func(t *testing.T) {
			before := check(t, writeRepo(t, sc.files))
			var f *finding.Finding
			for i := range before {
				if before[i].RuleID == fix.RuleRequestAboveLimit {
					if f != nil {
						t.Fatalf("two %s findings", fix.RuleRequestAboveLimit)
					}
					f = &before[i]
				}
			}
			if f == nil || !f.Fixable() || len(f.Fix.Edits) != 1 {
				t.Fatalf("want one fixable %s finding, got %+v", fix.RuleRequestAboveLimit, f)
			}
			if e := f.Fix.Edits[0]; e.File != sc.edited || e.StartLine != sc.line || e.New != sc.want {
				t.Errorf("edit %s:%d %q, want %s:%d %q", e.File, e.StartLine, e.New, sc.edited, sc.line, sc.want)
			}
			after := check(t, editedRepo(t, sc.files, f.Fix.Edits))
			assertFixed(t, "the limit", before, after, []*finding.Finding{f})
		})
	}
}
