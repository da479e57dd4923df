package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 31, points 4 and 5: a pull request's CustomResourceDefinitions
// cannot switch the built-in schema off nor replace the workflow's, and
// the CEL rules of its custom resources cannot take minutes.

// burnerCRD is a CRD the API server accepts (every rule within its
// per-call cost limit, each object's rules within its per-object budget)
// whose ten rules each loop over a list of up to 300 integers inside a
// loop over it: about 6.3 million cost units, seconds of evaluation, per
// object of 1.5 KB.
func burnerCRD() string {
	var b strings.Builder
	b.WriteString(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: burners.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Burner, plural: burners}
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              x-kubernetes-validations:
`)
	for r := range 10 {
		fmt.Fprintf(&b, "                - rule: \"self.l.all(a, self.l.all(b, a + b != %d))\"\n", -1-r)
	}
	b.WriteString(`              properties:
                l:
                  type: array
                  maxItems: 300
                  items: {type: integer}
`)
	return b.String()
}

// burners writes n custom resources of burnerCRD, each with a full list.
func burners(n int) string {
	items := make([]string, 300)
	for i := range items {
		items[i] = fmt.Sprint(i)
	}
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "---\napiVersion: example.com/v1\nkind: Burner\nmetadata:\n  name: b%d\nspec:\n  l: [%s]\n", i, strings.Join(items, ", "))
	}
	return b.String()
}

// A hundred small custom resources with expensive CEL rules stop at the
// target's time budget, with one finding naming it and how to raise it;
// the other objects are still checked.
func TestCELRulesStopAtTheTargetBudget(t *testing.T) {
	repo := t.TempDir()
	writeTree(t, repo, map[string]string{
		"crds/burners.yaml": burnerCRD(),
		"app/burners.yaml":  burners(100),
		"app/cm.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  port: 8080\n",
	})
	const budget = 4 * time.Second
	r := runBounded(t, repo, 0, "check", "--no-cache", "--no-default-checks", "--max-target-time", budget.String(), ".")
	if r.code != 1 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	// The budget counts evaluation time on every core; startup, rendering
	// and a loaded machine get the rest.
	if limit := budget + 15*time.Second; r.elapsed > limit {
		t.Errorf("took %v, over %v", r.elapsed, limit)
	}
	var budgetLines []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.Contains(l, "[schema/validation-budget]") {
			budgetLines = append(budgetLines, l)
		}
	}
	if len(budgetLines) != 1 {
		t.Fatalf("want one budget finding:\n%s", r.stdout)
	}
	for _, want := range []string{"app/burners.yaml:", "error:", "in render target app took more than 4s, the time budget of a render target",
		"custom resources were not checked against them", "--max-target-time", "limits.max_target_time"} {
		if !strings.Contains(budgetLines[0], want) {
			t.Errorf("budget finding %q does not say %q", budgetLines[0], want)
		}
	}
	if !strings.Contains(r.stdout, "app/cm.yaml:6:3: error: port must be a string") || strings.Contains(r.stdout, "[schema/validation-rule]") {
		t.Errorf("want the ConfigMap's finding and no rule failure:\n%s", r.stdout)
	}
}

// A CRD of the pull request in Kubernetes' own apps group does not switch
// Deployment validation off; the workflow's --crds win over the
// repository's, with a note there.
func TestRepositoryCRDsCannotReplaceSchemas(t *testing.T) {
	repo := t.TempDir()
	anything := func(group, kind string) string {
		return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: things." + group + "\nspec:\n  group: " + group +
			"\n  scope: Namespaced\n  names: {kind: " + kind + ", plural: things}\n  versions:\n    - name: v1\n      served: true\n      storage: true\n" +
			"      schema:\n        openAPIV3Schema:\n          type: object\n          x-kubernetes-preserve-unknown-fields: true\n"
	}
	writeTree(t, repo, map[string]string{
		"crds/deployments.yaml": anything("apps", "Deployment"),
		"crds/burners.yaml":     anything("example.com", "Burner"),
		"app/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  selector: {matchLabels: {app: d}}\n" +
			"  template:\n    metadata: {labels: {app: d}}\n    spec:\n      containers:\n        - name: c\n          image: nginx:1.27\n          imagePullPolicy: Sometimes\n",
		"app/burner.yaml": "apiVersion: example.com/v1\nkind: Burner\nmetadata:\n  name: b\nspec:\n  l: [1, two]\n",
	})
	workflow := filepath.Join(t.TempDir(), "burners.yaml")
	writeTree(t, filepath.Dir(workflow), map[string]string{"burners.yaml": burnerCRD()})
	r := runBounded(t, repo, 0, "check", "--no-cache", "--no-default-checks", "--crds", workflow, ".")
	if r.code != 1 {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		`app/deploy.yaml:13:11: error: imagePullPolicy "Sometimes" is not accepted`,
		`crds/deployments.yaml:6:3: error: spec.group "apps" is an API group of Kubernetes itself`,
		"app/burner.yaml:6:10: error: l[1] must be of type integer",
		"crds/burners.yaml:10:7: note: the workflow's CustomResourceDefinition burners.example.com (" + workflow + ") also defines version v1 of example.com Burner, and it is the one used",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in:\n%s", want, r.stdout)
		}
	}
}
