package main

import (
	"strings"
	"testing"
)

// Left from the second hardening round (issue 31, point 9), through the
// binary: a reference template whose output is not YAML is reported at the
// template line that wrote the bad line; a template failing with an
// input's secret value prints neither the value nor a mask in its place,
// and the other objects are still compared; a GitOps values file outside
// the repository says so.
func TestTemplateAndValuesErrorsNameWhatToChange(t *testing.T) {
	repo := t.TempDir()
	writeTree(t, repo, map[string]string{
		"ok/objects.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\ndata:\n  k: v\n---\n" +
			"apiVersion: v1\nkind: Secret\nmetadata:\n  name: short\n  namespace: x\nstringData:\n  password: pw1\n---\n" +
			"apiVersion: v1\nkind: Secret\nmetadata:\n  name: long\n  namespace: x\nstringData:\n  password: PLANTED-hunter2\n",
		// The output's line 7 is "  bad: [" (the conditional printed
		// nothing, the comment two lines): the template's line 12.
		"ref-yaml/metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: cm.yaml\n",
		"ref-yaml/cm.yaml": "{{- /* a comment\n   over two lines */ -}}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .metadata.name }}\n  namespace: x\n" +
			"data:\n  {{- if .data }}\n  k: {{ .data.k }}\n  {{- end }}\n  bad: [{{ .metadata.name }}\n",
		"ref-secret/metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: secret.yaml\n          - path: cm.yaml\n",
		"ref-secret/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .metadata.name }}\n  namespace: x\n" +
			"{{- if .stringData }}\n{{ fail (printf \"bad password %s\" .stringData.password) }}\n{{- end }}\n",
		"ref-secret/cm.yaml":                  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\ndata:\n  k: other\n",
		"gitops/charts/app/Chart.yaml":        "apiVersion: v2\nname: app\nversion: 0.1.0\n",
		"gitops/charts/app/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  v: {{ .Values.v | default \"x\" | quote }}\n",
		"gitops/flux.yaml": "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: app\n  namespace: x\nspec:\n  chart:\n    spec:\n" +
			"      chart: ./gitops/charts/app\n      sourceRef:\n        kind: GitRepository\n        name: self\n      valuesFiles:\n        - ../../../../etc/passwd\n",
		"gitops/argo.yaml": "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: web\n  namespace: argocd\nspec:\n" +
			"  destination:\n    namespace: x\n  source:\n    path: gitops/charts/app\n    helm:\n      valueFiles:\n        - ../../../../../etc/passwd\n",
	})
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		want  []string
		leaks []string
	}{
		{"not YAML", []string{"check", "--root", ".", "--no-default-checks", "--reference", "ref-yaml", "ok"}, 2,
			[]string{"ref-yaml/cm.yaml:12: error: failed to parse template cm.yaml with empty data: template: cm.yaml isn't a yaml file after injection"}, nil},
		{"fail with a secret", []string{"check", "--root", ".", "--no-default-checks", "--reference", "ref-secret", "ok"}, 1,
			[]string{
				`ref-secret/secret.yaml:7: error: template injection failed: secret.yaml on v1_Secret_x_short (ok/objects.yaml:9:1): template: secret.yaml:7:3: executing "secret.yaml" at <fail (printf "bad password %s" .stringData.password)>: error calling fail: its message is not shown, as the input holds secret values [compare/reference]`,
				`ref-secret/secret.yaml:7: error: template injection failed: secret.yaml on v1_Secret_x_long (ok/objects.yaml:17:1)`,
				// The ConfigMap was compared all the same.
				"ok/objects.yaml:7:3: error: ConfigMap x/a: data.k is v, the reference template cm.yaml expects other [compare/drift]"},
			[]string{"pw1", "PLANTED-hunter2", "*"}},
		{"compare stops at the fail", []string{"compare", "-r", "ref-secret", "-f", "ok"}, 2,
			[]string{"error calling fail: its message is not shown, as the input holds secret values"}, []string{"pw1", "PLANTED-hunter2", "*"}},
		{"values outside", []string{"check", "--root", ".", "--no-default-checks", "gitops"}, 1,
			[]string{
				`gitops/flux.yaml:14:11: error: HelmRelease app: values file "../../../../etc/passwd" is outside the repository; plumb reads only the repository's files, so the chart is not rendered for this HelmRelease [render/helm-values]`,
				`gitops/argo.yaml:13:11: error: Application web: values file "../../../../../etc/passwd" is outside the repository; plumb reads only the repository's files, so the chart is not rendered for this Application [render/helm-values]`},
			[]string{"invalid argument", "root:x:0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runBounded(t, repo, 0, c.args...)
			out := r.stdout + r.stderr
			if r.code != c.code {
				t.Errorf("exit %d, want %d\n%s", r.code, c.code, out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("the output lacks %q:\n%s", w, out)
				}
			}
			for _, l := range c.leaks {
				if strings.Contains(out, l) {
					t.Errorf("the output shows %q:\n%s", l, out)
				}
			}
		})
	}
}
