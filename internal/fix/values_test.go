package fix_test

import (
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
)

// A chart's value printed by a template: a fix that keeps the value's
// type (the limit, a string) edits the values file, and the finding goes;
// one that changes it (a quoted number unquoted) has no edit, since the
// template may quote whatever the values file says.
func TestValuesFileEditsKeepTheType(t *testing.T) {
	files := map[string]string{
		"charts/web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"charts/web/values.yaml": "replicas: \"5\"\nport: \"8080\"\nmem: 1Gi\nlim: 512Mi\n",
		"charts/web/templates/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: {{ .Values.replicas | quote }}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: registry.example.com/shop/web:1.4.2
          ports:
            - containerPort: {{ .Values.port | quote }}
          resources:
            requests: {memory: {{ .Values.mem }}}
            limits: {memory: {{ .Values.lim }}}
`,
	}
	before := check(t, writeRepo(t, files))
	var wrongType int
	var limit *finding.Finding
	for i := range before {
		switch f := &before[i]; f.RuleID {
		case "schema/wrong-type":
			wrongType++
			if f.Fixable() {
				t.Errorf("%s at %s:%d has an edit, which the template's quote would undo: %+v", f.RuleID, f.Location.File, f.Location.Line, f.Fix.Edits)
			} else if f.Fix == nil || !strings.Contains(f.Fix.NoEdit, "values file") {
				t.Errorf("%s: want a fix without an edit that says why, got %+v", f.RuleID, f.Fix)
			}
		case "check/A10004":
			limit = f
		}
	}
	if wrongType != 2 || limit == nil {
		t.Fatalf("want two schema/wrong-type findings and one check/A10004, got %d and %v", wrongType, limit)
	}
	if !limit.Fixable() || len(limit.Fix.Edits) != 1 {
		t.Fatalf("the limit: want one edit, got %+v", limit.Fix)
	}
	if e := limit.Fix.Edits[0]; e.File != "charts/web/values.yaml" || e.New != "mem: 512Mi\n" {
		t.Errorf("the limit: edit %+v", e)
	}
	after := check(t, editedRepo(t, files, limit.Fix.Edits))
	assertFixed(t, "the limit", before, after, []*finding.Finding{limit})
}

// A quoted number in a kustomize patch, or in the base it patches, is the
// object's own field: unquoted there, the finding goes. (One replica: a
// number of replicas that counts may bring the checks that read it, such
// as the PodDisruptionBudget one, which a string hid.)
func TestQuotedNumberInAPatchIsUnquoted(t *testing.T) {
	files := map[string]string{
		"base/kustomization.yaml": "resources: [deploy.yaml]\n",
		"base/deploy.yaml": strings.Replace(workload, "            - containerPort: 8080\n",
			"            - containerPort: \"8080\"\n", 1),
		"overlays/dev/kustomization.yaml": "resources: [../../base]\npatches:\n  - path: replicas.yaml\n",
		"overlays/dev/replicas.yaml":      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  replicas: \"1\"\n",
	}
	before := check(t, writeRepo(t, files))
	want := map[string]string{"base/deploy.yaml": "            - containerPort: 8080\n", "overlays/dev/replicas.yaml": "  replicas: 1\n"}
	for i := range before {
		f := &before[i]
		if f.RuleID != "schema/wrong-type" {
			continue
		}
		if !f.Fixable() || len(f.Fix.Edits) != 1 {
			t.Fatalf("%s at %s:%d: want one edit, got %+v", f.RuleID, f.Location.File, f.Location.Line, f.Fix)
		}
		e := f.Fix.Edits[0]
		if want[e.File] != e.New {
			t.Errorf("edit %s %q, want %q", e.File, e.New, want[e.File])
		}
		delete(want, e.File)
		after := check(t, editedRepo(t, files, f.Fix.Edits))
		assertFixed(t, e.File, before, after, []*finding.Finding{f})
	}
	if len(want) != 0 {
		t.Errorf("no wrong-type finding edits %v", want)
	}
}
