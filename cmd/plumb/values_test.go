package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// valuesRepo is a chart whose Deployment is privileged when the values say
// so (its own values say not), and GitOps definitions and values files
// that set privileged: true behind a key written twice, or cannot be read.
func valuesRepo(t *testing.T) string {
	repo := filepath.Join(t.TempDir(), "repo")
	app := func(name, helm string) string {
		return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: " + name + "\n  namespace: argocd\nspec:\n  project: default\n" +
			"  destination:\n    namespace: apps\n  source:\n    repoURL: https://example.com/repo.git\n    path: charts/app\n    helm:\n" + helm
	}
	writeTree(t, repo, map[string]string{
		"charts/app/Chart.yaml":  "apiVersion: v2\nname: app\nversion: 0.1.0\n",
		"charts/app/values.yaml": "privileged: false\nimage: r.io/app:1.0\nimage: r.io/app:1.1\n",
		"charts/app/templates/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: apps\nspec:\n" +
			"  replicas: 2\n  selector:\n    matchLabels: {app: x}\n  template:\n    metadata:\n      labels: {app: x}\n    spec:\n      containers:\n" +
			"        - name: app\n          image: {{ .Values.image }}\n          securityContext:\n            privileged: {{ .Values.privileged }}\n",
		// Argo CD gives helm.values to helm template as a values file.
		"argo/dup.yaml":    app("argo-dup", "      values: |\n        privileged: false\n        image: r.io/app:1.0\n        privileged: true\n"),
		"argo/syntax.yaml": app("argo-syntax", "      values: |\n        image: r.io/app:1.0\n        privileged: [true\n"),
		"argo/laughs.yaml": app("argo-laughs", "      values: |\n"+indent(laughs(), "        ")),
		"argo/object.yaml": app("argo-object", "      values:\n        privileged: true\n"),
		"argo/list.yaml":   app("argo-list", "      valuesObject: [privileged]\n"),
		"argo/files.yaml":  app("argo-files", "      valueFiles: [../../values/dup.yaml]\n"),
		"values/dup.yaml":  "privileged: false\nprivileged: true\n",
		"flux/string.yaml": "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: flux-string\n  namespace: apps\nspec:\n" +
			"  chart:\n    spec:\n      chart: ./charts/app\n      sourceRef: {kind: GitRepository, name: self}\n  values: 'privileged: true'\n",
	})
	return repo
}

func indent(s, by string) string {
	return by + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n"+by) + "\n"
}

// Values are read as Helm reads them (a key written twice keeps its last
// value, reported as a warning at its line), and values that cannot be
// read are an error at their line, never an empty set of values (which
// would check the chart's defaults instead of what is deployed).
func TestValuesAreNeverDroppedSilently(t *testing.T) {
	repo := valuesRepo(t)
	r := runBounded(t, repo, 0, "check", "--root", ".", "--no-cache", "--select", "D10003", ".")
	for _, w := range []string{
		"argo/dup.yaml:17:9: warning: duplicate key \"privileged\" (first defined at line 15): Helm keeps only the last value and never uses the first; keep one of them [render/helm-duplicate-key]",
		"charts/app/values.yaml:3:1: warning: duplicate key \"image\" (first defined at line 2): Helm keeps only the last value",
		"error: container app is privileged: it has full control of the node [check/D10003] (targets charts/app[Application argo-dup in argo], charts/app[Application argo-files in argo])",
		"argo/syntax.yaml:16:9: error: Application argo-syntax: spec.source.helm.values cannot be read as Helm reads it (Argo CD gives it to helm template as a values file): YAML syntax error: did not find expected ',' or ']'; the chart is not rendered for this Application until it can [render/helm-values]",
		"argo/laughs.yaml:19:44: error: Application argo-laughs: spec.source.helm.values cannot be read as Helm reads it (Argo CD gives it to helm template as a values file): aliases expand to more than 100000 nodes",
		"argo/object.yaml:14:7: error: Application argo-object: spec.source.helm.values is a mapping, not YAML text, so Argo CD (valuesObject takes a mapping) cannot read it; the chart is not rendered for it until it is YAML text [render/helm-values]",
		"argo/list.yaml:14:7: error: Application argo-list: spec.source.helm.valuesObject is a list, not a mapping, so Argo CD cannot read it",
		"flux/string.yaml:11:3: error: HelmRelease flux-string: spec.values is a string, not a mapping, so Flux cannot read it",
		// A values file the loader reads is reported by the loader.
		"values/dup.yaml:2:1: error: duplicate key \"privileged\" (first defined at line 1)",
	} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("the report lacks %q", w)
		}
	}
	for _, w := range []string{"argo-syntax in argo]", "argo-laughs in argo]", "argo-object in argo]", "argo-list in argo]", "flux-string in flux]",
		"values/dup.yaml:2:1: warning"} {
		if strings.Contains(r.stdout, w) {
			t.Errorf("the report holds %q", w)
		}
	}
	if t.Failed() {
		t.Logf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}
