package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render/helm"
)

// A GitOps definition's values file outside the repository (../ past its
// root, or a Flux path that is absolute once its chart directory does not
// hold it) is an error at its entry saying so — not the file system's
// "invalid argument" — and nothing outside is read; the definition's chart
// is not rendered with values it cannot have.
func TestGitOpsValuesFilesOutsideTheRepository(t *testing.T) {
	const flux = "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: app\n  namespace: x\nspec:\n  chart:\n    spec:\n" +
		"      chart: ./charts/app\n      sourceRef:\n        kind: GitRepository\n        name: self\n      valuesFiles:\n        - ./values-inside.yaml\n"
	const argo = "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: app\n  namespace: argocd\nspec:\n" +
		"  destination:\n    namespace: x\n  source:\n    path: charts/app\n    helm:\n      valueFiles:\n        - values-inside.yaml\n"
	for _, c := range []struct {
		name, definition, want string
	}{
		{"flux ../", flux + "        - ../../../../etc/passwd\n",
			`gitops.yaml:15:11: error: HelmRelease app: values file "../../../../etc/passwd" is outside the repository; plumb reads only the repository's files, so the chart is not rendered for this HelmRelease`},
		{"flux absolute", flux + "        - /etc/hostname\n",
			`gitops.yaml:15:11: error: HelmRelease app: values file "/etc/hostname" is outside the repository (an absolute path); plumb reads only the repository's files, so the chart is not rendered for this HelmRelease`},
		{"argo ../", argo + "        - ../../../../../etc/passwd\n",
			`gitops.yaml:14:11: error: Application app: values file "../../../../../etc/passwd" is outside the repository; plumb reads only the repository's files, so the chart is not rendered for this Application`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range map[string]string{
				"charts/app/Chart.yaml":         "apiVersion: v2\nname: app\nversion: 0.1.0\n",
				"charts/app/templates/cm.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  v: {{ .Values.v | default \"x\" | quote }}\n",
				"charts/app/values-inside.yaml": "v: inside\n",
				"gitops.yaml":                   c.definition,
			} {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			res := renderRepo(t, dir, helmOpts(), "gitops.yaml", "charts")
			var got []string
			for _, p := range res.Problems {
				if p.Rule == helm.RuleValues {
					got = append(got, manifest.FormatLocation(p.Location)+": "+p.Level+": "+p.Message)
				}
			}
			if len(got) != 1 || got[0] != c.want {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), c.want)
			}
			for _, name := range targetNames(res) {
				if strings.Contains(name, "HelmRelease") || strings.Contains(name, "Application") {
					t.Errorf("target %s was rendered", name)
				}
			}
		})
	}
}
