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

// A request written in a kustomize base that two overlays render: lowered
// to the limit only when both overlays' limits are the same, since the
// edit lowers it in both; production's larger limit allows its request.
func TestRequestInASharedBase(t *testing.T) {
	base := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {matchLabels: {app: web}}\n" +
		"  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n        - name: web\n          image: registry.example.com/shop/web:1.4.2\n" +
		"          resources:\n            requests:\n              memory: 1Gi\n"
	limit := func(q string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  template:\n    spec:\n      containers:\n" +
			"        - name: sidecar\n          image: registry.example.com/shop/side:1.0.0\n" + // before the base's container
			"        - name: web\n          resources:\n            limits:\n              memory: " + q + "\n"
	}
	files := func(dev, prod string) map[string]string {
		return map[string]string{
			"base/kustomization.yaml":          "resources: [deploy.yaml]\n",
			"base/deploy.yaml":                 base,
			"overlays/dev/kustomization.yaml":  "resources: [../../base]\nnameSuffix: -dev\npatches:\n  - path: limits.yaml\n",
			"overlays/dev/limits.yaml":         limit(dev),
			"overlays/prod/kustomization.yaml": "resources: [../../base]\npatches:\n  - path: limits.yaml\n",
			"overlays/prod/limits.yaml":        limit(prod),
		}
	}
	requestFindings := func(fs []finding.Finding) []*finding.Finding {
		var out []*finding.Finding
		for i := range fs {
			if fs[i].RuleID == fix.RuleRequestAboveLimit {
				out = append(out, &fs[i])
			}
		}
		return out
	}

	t.Run("different limits", func(t *testing.T) {
		got := requestFindings(check(t, writeRepo(t, files("512Mi", "2Gi"))))
		if len(got) != 1 || got[0].Object.Target != "overlays/dev" {
			t.Fatalf("want one %s finding, in dev, got %v", fix.RuleRequestAboveLimit, got)
		}
		if f := got[0]; f.Fixable() || f.Fix == nil || !strings.Contains(f.Fix.NoEdit, "Deployment shop/web") {
			t.Errorf("want a fix without an edit that names production's Deployment, got %+v", f.Fix)
		}
	})
	t.Run("the same limit", func(t *testing.T) {
		fsys := files("512Mi", "512Mi")
		before := check(t, writeRepo(t, fsys))
		got := requestFindings(before)
		if len(got) != 2 {
			t.Fatalf("want two %s findings, got %v", fix.RuleRequestAboveLimit, got)
		}
		for _, f := range got {
			if !f.Fixable() || len(f.Fix.Edits) != 1 || f.Fix.Edits[0] != got[0].Fix.Edits[0] {
				t.Fatalf("%s: want the one edit of the base, got %+v", f.Object, f.Fix)
			}
		}
		if e := got[0].Fix.Edits[0]; e.File != "base/deploy.yaml" || e.New != "              memory: 512Mi\n" {
			t.Errorf("edit %+v", e)
		}
		after := check(t, editedRepo(t, fsys, got[0].Fix.Edits))
		assertFixed(t, "the shared limit", before, after, got)
	})
}
