package render

import (
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render/helm"
)

const valuesFromChart = "apiVersion: v2\nname: app\nversion: 0.1.0\n"

const valuesFromTemplate = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
spec:
  replicas: {{ .Values.replicas }}
  template:
    spec:
      containers:
        - name: app
          image: {{ .Values.image }}
          env:
            - name: MODE
              value: {{ .Values.mode | quote }}
`

func valuesFromRepo(t *testing.T, release, kustomization string, extra map[string]string) string {
	dir := t.TempDir()
	files := map[string]string{
		"charts/app/Chart.yaml":                valuesFromChart,
		"charts/app/values.yaml":               "replicas: 1\nimage: app:1.0\nmode: default\n",
		"charts/app/templates/deployment.yaml": valuesFromTemplate,
		"apps/production/release.yaml":         release,
		"apps/production/kustomization.yaml":   kustomization,
	}
	for k, v := range extra {
		files[k] = v
	}
	writeTree(t, dir, files)
	return dir
}

const valuesFromRelease = `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: app
  namespace: apps
spec:
  chart:
    spec:
      chart: ./charts/app
      sourceRef:
        kind: GitRepository
        name: flux-system
  valuesFrom:
    - kind: ConfigMap
      name: app-values
    - kind: ConfigMap
      name: app-mode
      valuesKey: mode
      targetPath: mode
  values:
    replicas: 3
`

// valuesFrom: a ConfigMap generated from a values file (findings land on
// the file's lines), a key set at targetPath, spec.values merged last.
func TestFluxValuesFrom(t *testing.T) {
	dir := valuesFromRepo(t, valuesFromRelease,
		"namespace: apps\nresources: [release.yaml, mode.yaml]\nconfigMapGenerator:\n  - name: app-values\n    files:\n      - values.yaml=app-values.yaml\ngeneratorOptions:\n  disableNameSuffixHash: true\n",
		map[string]string{
			"apps/production/app-values.yaml": "# production\nimage: app:2.0\nreplicas: 2\n",
			"apps/production/mode.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-mode\ndata:\n  mode: strict\n",
		})
	res := renderRepo(t, dir, helmOpts(), "apps", "charts")
	var d *manifest.Object
	for _, tg := range res.Targets {
		if strings.Contains(tg.Name, "HelmRelease app") {
			d = tg.Objects[0]
		}
	}
	if d == nil {
		t.Fatalf("targets %v, problems %v", targetNames(res), res.Problems)
	}
	get := func(p string) any { v, _ := d.Get(manifest.MustParsePath(p)); return v }
	if get("spec.replicas") != int64(3) || get("spec.template.spec.containers[0].image") != "app:2.0" || get("spec.template.spec.containers[0].env[0].value") != "strict" {
		t.Errorf("values: replicas %v image %v mode %v", get("spec.replicas"), get("spec.template.spec.containers[0].image"), get("spec.template.spec.containers[0].env[0].value"))
	}
	for p, want := range map[string]string{
		"spec.template.spec.containers[0].image":        "apps/production/app-values.yaml:2:1",
		"spec.replicas":                                 "apps/production/release.yaml:21:5",
		"spec.template.spec.containers[0].env[0].value": "apps/production/mode.yaml:6:3",
	} {
		if got := at(t, d, p); got != want {
			t.Errorf("%s at %s, want %s", p, got, want)
		}
	}
}

// An entry plumb cannot read leaves the chart unrendered, with a note at
// the entry; an optional one that is not there is skipped, as Flux does.
func TestFluxValuesFromNotRead(t *testing.T) {
	secret := strings.Replace(valuesFromRelease, "    - kind: ConfigMap\n      name: app-values\n", "    - kind: Secret\n      name: app-values\n", 1)
	optional := strings.Replace(valuesFromRelease, "      name: app-values\n", "      name: app-values\n      optional: true\n", 1)
	for _, c := range []struct {
		name, release, want string
	}{
		{"secret", secret, "valuesFrom Secret app-values is not read"},
		{"missing", valuesFromRelease, "valuesFrom ConfigMap app-values (key values.yaml) is not among the objects of apps/production"},
		{"optional missing", optional, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := valuesFromRepo(t, c.release, "namespace: apps\nresources: [release.yaml, mode.yaml]\n",
				map[string]string{"apps/production/mode.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-mode\ndata:\n  mode: strict\n"})
			res := renderRepo(t, dir, helmOpts(), "apps", "charts")
			var notes []string
			for _, p := range res.Problems {
				if p.Rule == helm.RuleNotRendered {
					notes = append(notes, manifest.FormatLocation(p.Location)+": "+p.Message)
				}
			}
			rendered := false
			for _, n := range targetNames(res) {
				rendered = rendered || strings.Contains(n, "HelmRelease app")
			}
			if c.want == "" {
				if !rendered || len(notes) > 0 {
					t.Errorf("rendered %v, notes %v", rendered, notes)
				}
				return
			}
			if rendered || len(notes) != 1 || !strings.Contains(notes[0], c.want) || !strings.HasPrefix(notes[0], "apps/production/release.yaml:14:") {
				t.Errorf("rendered %v, notes %v, want one at the entry saying %q", rendered, notes, c.want)
			}
		})
	}
}
