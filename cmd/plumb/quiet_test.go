package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Fixtures of issue 34: patterns found on the first runs over real
// repositories, each asserting the exact findings (rule, file, line).

// quietFindings runs plumb check in dir with args and returns the report's
// findings as "rule file:line", sorted, and the skipped files as
// "path (reason)".
func quietFindings(t *testing.T, dir string, args ...string) (findings, skipped []string) {
	t.Helper()
	argv := append([]string{"check", "--root", dir, "--format", "json", "--fail-on", "never"}, args...)
	code, out, errOut := plumb(t, argv...)
	if code != 0 {
		t.Fatalf("plumb %v: exit %d\n%s", argv, code, errOut)
	}
	var rep struct {
		Findings []struct {
			RuleID   string `json:"rule_id"`
			Location struct {
				File string `json:"file"`
				Line int    `json:"line"`
			} `json:"location"`
		} `json:"findings"`
		Skipped []struct {
			Path   string `json:"path"`
			Reason string `json:"reason"`
		} `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	for _, f := range rep.Findings {
		findings = append(findings, fmt.Sprintf("%s %s:%d", f.RuleID, f.Location.File, f.Location.Line))
	}
	for _, s := range rep.Skipped {
		skipped = append(skipped, fmt.Sprintf("%s (%s)", s.Path, s.Reason))
	}
	slices.Sort(findings)
	return findings, skipped
}

func assertLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got  %s\n want %s", what, strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}

// A kubebuilder project: its operator manifests in config/, a vendored Go
// module with test YAML, a controller's testdata (deliberately broken
// input) and an npm package's YAML. Only config/ is deployed.
var operatorRepoFiles = map[string]string{
	"go.mod": "module example.com/op\n\ngo 1.22\n",
	"config/manager/manager.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: manager-config
data:
  image: controller:latest
`,
	"vendor/sigs.k8s.io/yaml/testdata/bad.yaml": "a: [\n",
	"internal/controller/testdata/broken.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  name: y\n",
	"web/node_modules/some-chart/deploy.yaml":   "key: : value\n",
	"hack/vendor/manifests.yaml":                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: v\n  name: w\n",
}

// Point 1: vendor/ beside go.mod, testdata/ and node_modules/ are not
// checked but counted; a vendor/ without a go.mod beside it is the
// project's own; .plumb.yaml's include reads a skipped directory again; a
// path named on the command line is always read.
func TestNotDeployedDirectoriesAreSkippedAndCounted(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, operatorRepoFiles)
	findings, skipped := quietFindings(t, dir, dir, "--no-default-checks")
	assertLines(t, "findings", findings, []string{"manifest/duplicate-key hack/vendor/manifests.yaml:5"})
	assertLines(t, "skipped", skipped, []string{
		"internal/controller/testdata/broken.yaml (test data)",
		"vendor/sigs.k8s.io/yaml/testdata/bad.yaml (vendored dependency)",
		"web/node_modules/some-chart/deploy.yaml (vendored dependency)",
	})
	_, out, _ := plumb(t, "check", "--root", dir, dir, "--no-default-checks", "--fail-on", "never")
	if !strings.Contains(out, "3 files skipped: 1 test data, 2 vendored dependency files") {
		t.Errorf("summary does not count the skipped files:\n%s", out)
	}

	// Named on the command line: read.
	findings, _ = quietFindings(t, dir, dir+"/internal/controller/testdata/broken.yaml", "--no-default-checks")
	assertLines(t, "named file", findings, []string{"manifest/duplicate-key internal/controller/testdata/broken.yaml:5"})
	findings, _ = quietFindings(t, dir, dir+"/internal/controller/testdata", "--no-default-checks")
	assertLines(t, "named directory", findings, []string{"manifest/duplicate-key internal/controller/testdata/broken.yaml:5"})

	// Included again by .plumb.yaml.
	writeTree(t, dir, map[string]string{".plumb.yaml": "include: [\"internal/**/testdata\"]\n"})
	findings, skipped = quietFindings(t, dir, dir, "--no-default-checks", "--config", dir+"/.plumb.yaml")
	assertLines(t, "included", findings, []string{
		"manifest/duplicate-key hack/vendor/manifests.yaml:5",
		"manifest/duplicate-key internal/controller/testdata/broken.yaml:5",
	})
	assertLines(t, "skipped with include", skipped, []string{
		".plumb.yaml (tool configuration)",
		"vendor/sigs.k8s.io/yaml/testdata/bad.yaml (vendored dependency)",
		"web/node_modules/some-chart/deploy.yaml (vendored dependency)",
	})
}

// Point 2: template sources are skipped and counted, never syntax errors
// nor objects to check: a file that fails to parse only because of its
// placeholders (kubernetes/examples' newrelic and vitess templates), one
// whose name says template and that holds placeholders, a {IMAGE}
// placeholder YAML reads as a mapping, and a *.tmpl named on the command
// line. A file broken for another reason is still a syntax error, and an
// OpenShift Template is still processed.
func TestTemplateSourcesAreSkippedAndCounted(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		// Fails to parse because of a {{ }} key (the newrelic pattern).
		"deploy/newrelic-config.yaml": `apiVersion: v1
kind: Secret
metadata:
  name: newrelic-config
type: Opaque
data:
  {{ .Values.key }}: {{ .Values.value }}
`,
		// Parses, but its name says template and it holds {{ }} (vitess).
		"deploy/vttablet-pod-template.yaml": `apiVersion: v1
kind: Pod
metadata:
  name: vttablet-{{uid}}
spec:
  containers:
    - name: vttablet
      image: vitess/lite:latest
`,
		// {IMAGE} reads as a mapping: a placeholder, not an image.
		"deploy/job.yaml": `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: migrate
          image: {IMAGE}
`,
		"deploy/cm.yaml.tmpl": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Name }}\n",
		// Broken without any placeholder: a syntax error.
		"deploy/broken.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n",
		// An OpenShift Template whose name says template: processed.
		"deploy/app-template.yaml": `apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: app
parameters:
  - name: NAME
    value: web
objects:
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: ${NAME}
      name: dup
`,
	})
	findings, skipped := quietFindings(t, dir, dir, "--no-default-checks")
	assertLines(t, "findings", findings, []string{
		"manifest/duplicate-key deploy/app-template.yaml:13",
		"manifest/yaml-syntax deploy/broken.yaml:4",
	})
	assertLines(t, "skipped", skipped, []string{
		"deploy/job.yaml (template source)",
		"deploy/newrelic-config.yaml (template source)",
		"deploy/vttablet-pod-template.yaml (template source)",
	})
	// Named on the command line, a template is read and skipped as one.
	findings, skipped = quietFindings(t, dir, dir+"/deploy/cm.yaml.tmpl")
	assertLines(t, "named template", append(findings, skipped...), []string{"deploy/cm.yaml.tmpl (template source)"})
	_, out, _ := plumb(t, "check", "--root", dir, dir, "--no-default-checks", "--fail-on", "never")
	if !strings.Contains(out, "3 template sources") {
		t.Errorf("summary does not count the template sources:\n%s", out)
	}
}

// Point 3: the configuration files of common tools are not objects — a
// clusterctl metadata.yaml, a KRM function configuration, a kube-state-
// metrics custom resource state file, a Helm repository index, a kubeadm
// patch (a partial static Pod) — and kubebuilder's scaffolded patches (in
// patches/, or named only in a commented-out kustomization entry) are
// patches. Each is skipped and counted with the reason.
func TestToolConfigurationsAreNotObjects(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"metadata.yaml": `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
  - major: 1
    minor: 0
    contract: v1beta1
`,
		"config/crd/kustomization.yaml": `resources:
  - bases/example.com_widgets.yaml
patches:
# [WEBHOOK] To enable webhook, uncomment all the sections with [WEBHOOK] prefix.
#- path: patches/webhook_in_widgets.yaml
#- path: patches/cainjection_in_widgets.yaml
`,
		"config/crd/bases/example.com_widgets.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema: {type: object}
`,
		"config/crd/patches/webhook_in_widgets.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  conversion:
    strategy: Webhook
    webhook:
      clientConfig:
        service: {namespace: system, name: webhook-service, path: /convert}
      conversionReviewVersions: [v1]
`,
		"config/crd/patches/cainjection_in_widgets.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  annotations:
    cert-manager.io/inject-ca-from: CERTIFICATE_NAMESPACE/CERTIFICATE_NAME
  name: widgets.example.com
`,
		"config/default/kustomization.yaml": `namespace: op-system
resources:
  - ../crd
#patches:
#- path: manager_webhook_patch.yaml
`,
		"config/default/manager_webhook_patch.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller-manager
  namespace: system
spec:
  template:
    spec:
      containers:
        - name: manager
          ports:
            - containerPort: 9443
              name: webhook-server
`,
		"krm/set-labels.yaml": `apiVersion: fn.kpt.dev/v1alpha1
kind: SetLabels
metadata:
  name: set-labels
  annotations:
    config.kubernetes.io/function: |
      container:
        image: gcr.io/kpt-fn/set-labels:v0.1
labels: {app: web}
`,
		"ksm/custom-resource-state.yaml": `kind: CustomResourceStateMetrics
spec:
  resources:
    - groupVersionKind: {group: example.com, kind: Widget, version: v1}
`,
		"charts-repo/index.yaml": `apiVersion: v1
entries:
  web:
    - name: web
      version: 1.0.0
      urls: [web-1.0.0.tgz]
generated: "2024-01-01T00:00:00Z"
`,
		"kubeadm/patches/kube-apiserver+strategic.yaml": `apiVersion: v1
kind: Pod
metadata:
  name: kube-apiserver
  namespace: kube-system
spec:
  containers:
    - name: kube-apiserver
      resources: {requests: {cpu: 300m}}
`,
		// A plain etcd.yaml elsewhere is an object: its duplicate key is reported.
		"db/etcd.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: etcd\n  name: etcd2\n",
	})
	findings, skipped := quietFindings(t, dir, dir)
	assertLines(t, "findings", findings, []string{"manifest/duplicate-key db/etcd.yaml:5"})
	assertLines(t, "skipped", skipped, []string{
		"charts-repo/index.yaml (component configuration)",
		"config/crd/patches/cainjection_in_widgets.yaml (kustomize patch)",
		"config/crd/patches/webhook_in_widgets.yaml (kustomize patch)",
		"config/default/manager_webhook_patch.yaml (kustomize patch)",
		"krm/set-labels.yaml (component configuration)",
		"ksm/custom-resource-state.yaml (component configuration)",
		"kubeadm/patches/kube-apiserver+strategic.yaml (kubeadm patch)",
		"metadata.yaml (component configuration)",
	})
}

// Point 4: .Capabilities.APIVersions lists what the embedded schema serves
// (group/versions and group/version/Kinds), so a chart that picks an API
// version by capability picks the served one; Helm's default list (client-
// go's scheme) has no Kind entries and the chart fell back to the removed
// policy/v1beta1 — a schema/removed-api error on a correct chart.
func TestChartsChooseTheServedAPIVersion(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"charts/web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"charts/web/values.yaml": "replicas: 2\n",
		"charts/web/templates/pdb.yaml": `{{- if .Capabilities.APIVersions.Has "policy/v1/PodDisruptionBudget" }}
apiVersion: policy/v1
{{- else }}
apiVersion: policy/v1beta1
{{- end }}
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  minAvailable: 1
  selector:
    matchLabels: {app: web}
`,
	})
	findings, _ := quietFindings(t, dir, dir, "--no-default-checks")
	assertLines(t, "findings", findings, nil)
	code, out, errOut := plumb(t, "render", "--root", dir, dir)
	if code != 0 || !strings.Contains(out, "apiVersion: policy/v1\n") {
		t.Errorf("render: exit %d\n%s%s", code, out, errOut)
	}
}

// Point 4: a run over part of the repository validates custom resources
// against the repository's CRDs, as a whole-repository run does (before,
// the Widget had "no schema" from charts/web).
func TestSubPathRunsUseTheRepositoryCRDs(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"config/crd/bases/example.com_widgets.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
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
              properties:
                replicas: {type: integer}
`,
		"charts/web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"charts/web/values.yaml": "replicas: two\n",
		"charts/web/templates/widget.yaml": `apiVersion: example.com/v1
kind: Widget
metadata:
  name: web
spec:
  replicas: {{ .Values.replicas }}
`,
	})
	want := []string{"schema/wrong-type charts/web/values.yaml:1"}
	whole, _ := quietFindings(t, dir, dir, "--no-default-checks")
	assertLines(t, "whole repository", whole, want)
	sub, _ := quietFindings(t, dir, dir+"/charts/web", "--no-default-checks")
	assertLines(t, "sub-path", sub, want)
}

// Point 8: one broken template does not blank a chart. A duplicate key in
// a template's output is an error at the template line and the object is
// rendered with the last value, as Helm keeps it; a template whose output
// is not YAML at all is an error and only its document is lost; the
// chart's other objects are rendered and checked.
func TestOneBrokenTemplateDoesNotBlankTheChart(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"charts/web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"charts/web/values.yaml": "name: web\n",
		"charts/web/templates/configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Values.name }}
  labels:
    app.kubernetes.io/name: web
    app.kubernetes.io/name: {{ .Values.name }}-cm
data:
  a: b
`,
		"charts/web/templates/broken.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [{{ .Values.name }}\n",
		"charts/web/templates/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: {{ .Values.name }}
spec:
  ports:
    - port: 80
`,
	})
	findings, _ := quietFindings(t, dir, dir, "--no-default-checks")
	assertLines(t, "findings", findings, []string{
		"render/helm-template charts/web/templates/broken.yaml:4",
		"render/helm-template charts/web/templates/configmap.yaml:7",
	})
	code, out, errOut := plumb(t, "render", "--root", dir, dir)
	if code != 0 || !strings.Contains(out, "    app.kubernetes.io/name: web-cm\n") || strings.Contains(out, "    app.kubernetes.io/name: web\n") ||
		!strings.Contains(out, "kind: Service\n") {
		t.Errorf("render: exit %d\n%s%s", code, out, errOut)
	}
}
