package render

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/openapi"
)

// TestConcurrentBuildsShareTheOpenAPISchema: kyaml fills its global OpenAPI
// schema on first use and reads the namespace-scope map without the lock
// the filling holds. A target whose strategic merge patch needs the schema
// built beside a target that asks for the scope of a custom kind read the
// map as it was written (caught by -race in CI). Each round starts from an
// unfilled schema, as a fresh process does.
func TestConcurrentBuildsShareTheOpenAPISchema(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) { writeFiles(t, dir, map[string]string{name: content}) }
	const pairs, kinds = 4, 60
	var custom strings.Builder
	for j := range kinds {
		fmt.Fprintf(&custom, "---\napiVersion: example.com/v1\nkind: Widget%d\nmetadata:\n  name: w%d\n", j, j)
	}
	for i := range pairs {
		write(fmt.Sprintf("patched%d/kustomization.yaml", i), "resources: [deployment.yaml]\npatches:\n  - patch: |\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata:\n        name: web\n      spec:\n        replicas: 3\n")
		write(fmt.Sprintf("patched%d/deployment.yaml", i), "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: nginx\n")
		write(fmt.Sprintf("custom%d/kustomization.yaml", i), "namespace: team\nresources: [widgets.yaml]\n")
		write(fmt.Sprintf("custom%d/widgets.yaml", i), custom.String())
	}
	for round := range 5 {
		openapi.ResetOpenAPI()
		res := renderRepo(t, dir, Options{Workers: 2})
		if len(res.Problems) > 0 {
			t.Fatalf("round %d: %v", round, res.Problems)
		}
		if len(res.Targets) != 2*pairs {
			t.Fatalf("round %d: %d targets, want %d", round, len(res.Targets), 2*pairs)
		}
		for _, tg := range res.Targets {
			for _, o := range tg.Objects {
				if strings.HasPrefix(tg.Name, "custom") && o.ID.Namespace != "team" {
					t.Errorf("round %d: %s %s/%s in namespace %q, want team", round, tg.Name, o.ID.Kind, o.ID.Name, o.ID.Namespace)
				}
				if strings.HasPrefix(tg.Name, "patched") {
					if r, _ := o.Content["spec"].(map[string]any)["replicas"]; fmt.Sprint(r) != "3" {
						t.Errorf("round %d: %s replicas %v, want 3", round, tg.Name, r)
					}
				}
			}
		}
	}
}

// TestCustomOpenAPISchemaStaysWithItsTarget: a kustomization with openapi:
// replaces kyaml's global schema while it builds; it merges its custom
// kind's list by key, and the targets built beside and after it still get
// the default schema (containers merged by name).
func TestCustomOpenAPISchemaStaysWithItsTarget(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) { writeFiles(t, dir, map[string]string{name: content}) }
	write("custom/kustomization.yaml", `openapi:
  path: schema.json
resources: [pipeline.yaml]
patches:
  - patch: |
      apiVersion: example.com/v1
      kind: Pipeline
      metadata:
        name: build
      spec:
        steps:
          - name: test
            image: golang:2
`)
	write("custom/pipeline.yaml", "apiVersion: example.com/v1\nkind: Pipeline\nmetadata:\n  name: build\nspec:\n  steps:\n    - name: fetch\n      image: git\n    - name: test\n      image: golang:1\n")
	write("custom/schema.json", `{"definitions": {
  "com.example.v1.Pipeline": {
    "properties": {
      "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
      "spec": {"properties": {"steps": {
        "items": {"$ref": "#/definitions/com.example.v1.Step"}, "type": "array",
        "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"}}, "type": "object"}},
    "type": "object",
    "x-kubernetes-group-version-kind": [{"group": "example.com", "kind": "Pipeline", "version": "v1"}]},
  "com.example.v1.Step": {"properties": {"name": {"type": "string"}, "image": {"type": "string"}}, "type": "object"}}}`)
	for i := range 3 {
		write(fmt.Sprintf("default%d/kustomization.yaml", i), "resources: [deployment.yaml]\npatches:\n  - patch: |\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata:\n        name: web\n      spec:\n        template:\n          spec:\n            containers:\n              - name: web\n                image: nginx:2\n")
		write(fmt.Sprintf("default%d/deployment.yaml", i), "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: sidecar\n          image: envoy\n        - name: web\n          image: nginx:1\n")
	}
	res := renderRepo(t, dir, Options{Workers: 2})
	if len(res.Problems) > 0 {
		t.Fatalf("problems: %v", res.Problems)
	}
	names := func(list any) []string {
		var out []string
		for _, item := range list.([]any) {
			m := item.(map[string]any)
			out = append(out, fmt.Sprint(m["name"], "=", m["image"]))
		}
		slices.Sort(out) // kyaml puts the patched item first
		return out
	}
	pipeline := object(t, res, "custom", "Pipeline", "build")
	if got := names(pipeline.Content["spec"].(map[string]any)["steps"]); strings.Join(got, " ") != "fetch=git test=golang:2" {
		t.Errorf("custom schema: steps %v, want fetch=git test=golang:2 (merged by name)", got)
	}
	for i := range 3 {
		d := object(t, res, fmt.Sprintf("default%d", i), "Deployment", "web")
		spec := d.Content["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
		if got := names(spec["containers"]); strings.Join(got, " ") != "sidecar=envoy web=nginx:2" {
			t.Errorf("default%d: containers %v, want sidecar=envoy web=nginx:2", i, got)
		}
	}
}
