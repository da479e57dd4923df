package render

import (
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// A patch whose target selects no resource is a warning at its entry
// (kustomize applies it to nothing without a word); a target that
// selects, by name, regular expression or label, is not; nor is a patch of
// a kustomization that builds nothing at all (placeholder files).
func TestPatchTargetSelectsNothing(t *testing.T) {
	const deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    app: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: nginx:1.27\n"
	const patch = "  - patch: |\n      - op: add\n        path: /metadata/annotations\n        value: {a: b}\n    target:\n"
	for _, c := range []struct {
		name, target, resources, want string
	}{
		{"typo", "      kind: Deployment\n      name: wbe\n", "[deploy.yaml]", "overlay/kustomization.yaml:3:5: warning: the patch's target selects no resource"},
		{"wrong kind", "      kind: StatefulSet\n", "[deploy.yaml]", "overlay/kustomization.yaml:3:5: warning: the patch's target selects no resource"},
		{"name", "      kind: Deployment\n      name: web\n", "[deploy.yaml]", ""},
		{"regular expression", "      name: \"(web|api)\"\n", "[deploy.yaml]", ""},
		{"label selector", "      labelSelector: app=web\n", "[deploy.yaml]", ""},
		{"nothing built", "      kind: Deployment\n", "[placeholder.yaml]", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{
				"overlay/kustomization.yaml": "resources: " + c.resources + "\npatches:\n" + patch + c.target,
				"overlay/deploy.yaml":        deploy,
				"overlay/placeholder.yaml":   "# generated later\n",
			})
			res := renderRepo(t, dir, Options{}, "overlay")
			var got []string
			for _, p := range res.Problems {
				got = append(got, manifest.FormatLocation(p.Location)+": "+p.Level+": "+p.Message)
			}
			if c.want == "" && len(got) != 0 || c.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], c.want)) {
				t.Errorf("problems %q, want %q", got, c.want)
			}
		})
	}
}
