package render

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render/helm"
)

func helmOpts() Options {
	return Options{Helm: HelmOptions{ValuesConvention: true, KubeVersion: "v1.37.0"}}
}

func targetNames(res *Result) []string {
	var out []string
	for _, t := range res.Targets {
		out = append(out, t.Name)
	}
	return out
}

func at(t *testing.T, o *manifest.Object, p string) string {
	t.Helper()
	loc, _ := o.Locate(manifest.MustParsePath(p))
	return manifest.FormatLocation(loc)
}

// TestGitOpsTargets: a Flux HelmRelease and an Argo CD Application that
// deploy a chart of the repository render it with their values; a remote
// chart gets a note.
func TestGitOpsTargets(t *testing.T) {
	res := renderRepo(t, "testdata/gitops", helmOpts())
	names := targetNames(res)
	for _, want := range []string{"charts/app", "charts/app[values-prod.yaml]", "charts/app[HelmRelease shop in flux]", "charts/app[Application web in argo]"} {
		if !slices.Contains(names, want) {
			t.Fatalf("targets %v lack %s", names, want)
		}
	}
	flux := object(t, res, "charts/app[HelmRelease shop in flux]", "Deployment", "shop")
	if flux.ID.Namespace != "shop" || at(t, flux, "spec.replicas") != "flux/release.yaml:16:5" || at(t, flux, "metadata.labels.mode") != "flux/release.yaml:17:5" {
		t.Errorf("HelmRelease render: ns %s, replicas at %s, mode at %s", flux.ID.Namespace, at(t, flux, "spec.replicas"), at(t, flux, "metadata.labels.mode"))
	}
	if v, _ := flux.Get(manifest.MustParsePath("spec.replicas")); v != int64(2) {
		t.Errorf("replicas %v, want the HelmRelease's 2", v)
	}
	argo := object(t, res, "charts/app[Application web in argo]", "Deployment", "web")
	if argo.ID.Namespace != "web" || at(t, argo, "spec.replicas") != "charts/app/values-prod.yaml:1:1" || at(t, argo, "metadata.labels.mode") != "argo/app.yaml:18:9" {
		t.Errorf("Application render: ns %s, replicas at %s, mode at %s", argo.ID.Namespace, at(t, argo, "spec.replicas"), at(t, argo, "metadata.labels.mode"))
	}
	if v, _ := argo.Get(manifest.MustParsePath("spec.template.spec.containers[0].image")); v != "registry.example.com/app:2.0" {
		t.Errorf("the parameter did not set the image: %v", v)
	}
	var note *manifest.Problem
	for i, p := range res.Problems {
		if p.Rule == helm.RuleNotRendered {
			note = &res.Problems[i]
		}
	}
	if note == nil || note.Level != "note" || manifest.FormatLocation(note.Location) != "flux/release.yaml:28:7" || !strings.Contains(note.Message, "HelmRepository podinfo") {
		t.Errorf("remote chart note: %+v", note)
	}
}

// TestChartsNotLoadedAsManifests: a chart's templates are sources, never
// plain objects (nor YAML syntax errors).
func TestChartsNotLoadedAsManifests(t *testing.T) {
	res := renderRepo(t, "testdata/gitops", helmOpts())
	for _, tg := range res.Targets {
		if strings.HasPrefix(tg.Name, "charts/app") && tg.Kind != KindHelm {
			t.Errorf("target %s is %s", tg.Name, tg.Kind)
		}
	}
	for _, p := range res.Problems {
		if strings.HasPrefix(p.Location.File, "charts/") {
			t.Errorf("problem in the chart: %s", p.Error())
		}
	}
}

// TestHelmConfigTargets: helm.targets replace the convention for their
// chart; the convention can be switched off.
func TestHelmConfigTargets(t *testing.T) {
	opts := helmOpts()
	opts.Helm.Targets = []HelmTarget{{Chart: "charts/app", Name: "shop-eu", Namespace: "eu", Set: []string{"replicas=7"}}}
	res := renderRepo(t, "testdata/gitops", opts)
	names := targetNames(res)
	if !slices.Contains(names, "shop-eu") || slices.Contains(names, "charts/app") || slices.Contains(names, "charts/app[values-prod.yaml]") {
		t.Fatalf("targets %v", names)
	}
	if v, _ := object(t, res, "shop-eu", "Deployment", "release-name").Get(manifest.MustParsePath("spec.replicas")); v != int64(7) {
		t.Errorf("replicas %v", v)
	}
	opts = helmOpts()
	opts.Helm.ValuesConvention = false
	names = targetNames(renderRepo(t, "testdata/gitops", opts))
	if !slices.Contains(names, "charts/app") || slices.Contains(names, "charts/app[values-prod.yaml]") {
		t.Errorf("without the convention: %v", names)
	}
}

// chartTesting is a chart laid out for chart-testing (`ct install`
// renders each ci/*-values.yaml), as ingress-nginx's and the
// prometheus-community charts are.
var chartTesting = map[string]string{
	"charts/web/Chart.yaml":                            "apiVersion: v2\nname: web\nversion: 1.0.0\n",
	"charts/web/values.yaml":                           "replicaCount: 1\nkind: Deployment\n",
	"charts/web/values.schema.json":                    `{"type": "object", "properties": {"replicaCount": {"type": "integer"}}}`,
	"charts/web/ci/daemonset-values.yaml":              "kind: DaemonSet\n",
	"charts/web/ci/deployment-autoscaling-values.yaml": "replicaCount: 3\n",
	"charts/web/ci/bad-values.yaml":                    "# a typo a reviewer should see\nreplicaCount: two\n",
	"charts/web/ci/lint.yaml":                          "replicaCount: 9\n",
	"charts/web/ci/README.md":                          "chart-testing values\n",
	"charts/web/templates/workload.yaml": `apiVersion: apps/v1
kind: {{ .Values.kind }}
metadata:
  name: web
spec:
  {{- if eq .Values.kind "Deployment" }}
  replicas: {{ .Values.replicaCount }}
  {{- end }}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: registry.example.com/web:1.0
`,
}

// TestChartTestingValues: each ci/*-values.yaml is a render target of its
// own, like values-<env>.yaml, and what it gets wrong is reported at its
// line; other files of ci/ are not values.
func TestChartTestingValues(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, chartTesting)
	res := renderRepo(t, dir, helmOpts())
	got := map[string]string{}
	for _, tg := range res.Targets {
		var kinds []string
		for _, o := range tg.Objects {
			kinds = append(kinds, o.ID.Kind)
		}
		got[tg.Name] = strings.Join(kinds, ",")
	}
	want := map[string]string{
		"charts/web":                                        "Deployment",
		"charts/web[ci/bad-values.yaml]":                    "",
		"charts/web[ci/daemonset-values.yaml]":              "DaemonSet",
		"charts/web[ci/deployment-autoscaling-values.yaml]": "Deployment",
	}
	if !maps.Equal(got, want) {
		t.Errorf("targets %v, want %v", got, want)
	}
	if d := object(t, res, "charts/web[ci/deployment-autoscaling-values.yaml]", "Deployment", "web"); at(t, d, "spec.replicas") != "charts/web/ci/deployment-autoscaling-values.yaml:1:1" {
		t.Errorf("replicas at %s, want the ci values line", at(t, d, "spec.replicas"))
	}
	var problems []string
	for _, p := range res.Problems {
		problems = append(problems, p.Rule+" "+p.Level+" "+p.Error())
	}
	if w := []string{"render/helm-values error charts/web/ci/bad-values.yaml:2:1: web: values break values.schema.json at /replicaCount: got string, want integer"}; !slices.Equal(problems, w) {
		t.Errorf("problems %q, want %q", problems, w)
	}

	// A change to one ci values file renders only its target.
	opts := helmOpts()
	opts.Changed = map[string]bool{"charts/web/ci/daemonset-values.yaml": true}
	if names := targetNames(renderRepo(t, dir, opts)); !slices.Equal(names, []string{"charts/web[ci/daemonset-values.yaml]"}) {
		t.Errorf("changed ci/daemonset-values.yaml: targets %v", names)
	}
	// The convention switch covers ci/ too.
	opts = helmOpts()
	opts.Helm.ValuesConvention = false
	if names := targetNames(renderRepo(t, dir, opts)); !slices.Equal(names, []string{"charts/web"}) {
		t.Errorf("without the convention: targets %v", names)
	}
}
