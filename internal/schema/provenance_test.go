package schema

import (
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
)

// A value an overlay patch writes is reported at the patch's line.
func TestFindingAtTheKustomizePatchLine(t *testing.T) {
	patch := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: "3"
  template:
    spec:
      containers:
        - name: web
          imagePullPolicy: Sometimes
          env:
            - name: PORT
              value: 8080
`
	files := map[string]string{
		"base/deployment.yaml":             deployment,
		"base/kustomization.yaml":          "resources:\n  - deployment.yaml\n",
		"overlays/prod/kustomization.yaml": "resources:\n  - ../../base\npatches:\n  - path: patch.yaml\n",
		"overlays/prod/patch.yaml":         patch,
	}
	fs := analyze(t, nil, files)
	finding.Sort(fs)
	if len(fs) != 3 {
		t.Fatalf("want 3 findings:%s", list(fs))
	}
	for i, want := range []struct{ rule, at string }{{RuleWrongType, "replicas"}, {RuleEnum, "imagePullPolicy"}, {RuleWrongType, "value: 8080"}} {
		f := fs[i]
		if f.RuleID != want.rule || f.Location.File != "overlays/prod/patch.yaml" || f.Location.Line != lineOf(t, patch, want.at) {
			t.Errorf("finding %d: %s, want %s at overlays/prod/patch.yaml:%d", i, f.String(), want.rule, lineOf(t, patch, want.at))
		}
		if f.Object.Target != "overlays/prod" {
			t.Errorf("target %q", f.Object.Target)
		}
	}
}

// The objects of an OpenShift Template are validated after parameter
// processing, at the template's lines.
func TestTemplateObjects(t *testing.T) {
	text := `apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: web
parameters:
  - name: REPLICAS
    value: "2"
objects:
  - apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
    spec:
      replicas: ${{REPLICAS}}
      selector:
        matchLabels: {app: web}
      template:
        metadata:
          labels: {app: web}
        spec:
          containers:
            - name: web
              image: nginx
              imagePulPolicy: Always
`
	fs := analyze(t, &Analyzer{SkipKinds: []string{"Template"}}, map[string]string{"t/template.yaml": text})
	expectOne(t, fs, text, RuleUnknownField, "imagePulPolicy", `did you mean "imagePullPolicy"?`)
}

// A value a chart's template reads from the values is reported at the line
// of the values file that supplied it: the environment's values file when
// it overrides the chart's values.yaml.
func TestFindingAtTheHelmValuesLine(t *testing.T) {
	templ := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          imagePullPolicy: {{ .Values.image.pullPolicy }}
          resources:
            limits:
              memory: {{ .Values.memory }}
`
	values := "replicas: 2\nimage:\n  repository: nginx\n  tag: \"1.27\"\n  pullPolicy: IfNotPresent\nmemory: 256Mi\n"
	prod := "image:\n  pullPolicy: Sometimes\nmemory: 1GB\n"
	files := map[string]string{
		"charts/web/Chart.yaml":                "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"charts/web/values.yaml":               values,
		"charts/web/values-prod.yaml":          prod,
		"charts/web/templates/deployment.yaml": templ,
	}
	fs := analyze(t, nil, files)
	finding.Sort(fs)
	if len(fs) != 2 {
		t.Fatalf("want 2 findings, for the prod values:%s", list(fs))
	}
	for i, want := range []struct{ rule, at string }{{RuleEnum, "pullPolicy: Sometimes"}, {RuleInvalidQuantity, "memory: 1GB"}} {
		f := fs[i]
		if f.RuleID != want.rule || f.Location.File != "charts/web/values-prod.yaml" || f.Location.Line != lineOf(t, prod, want.at) {
			t.Errorf("finding %d: %s, want %s at charts/web/values-prod.yaml:%d", i, f.String(), want.rule, lineOf(t, prod, want.at))
		}
		if f.Object.Target != "charts/web[values-prod.yaml]" {
			t.Errorf("target %q", f.Object.Target)
		}
	}
}
