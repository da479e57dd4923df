package render

import (
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render/helm"
)

const addonChart = "apiVersion: v2\nname: addon\nversion: 0.1.0\n"

const addonTemplate = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}
data:
  env: {{ .Values.env | quote }}
  size: {{ .Values.size | default "m" | quote }}
`

// An app-of-apps ApplicationSet: a list generator crossed with the git
// directories of this repository's charts, each Application rendering a
// chart with its environment's values file and a parameter; values land
// on their lines, template fields on the ApplicationSet's template.
func TestApplicationSetGenerators(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"addons/cache/Chart.yaml":         addonChart,
		"addons/cache/templates/cm.yaml":  addonTemplate,
		"addons/cache/values-prod.yaml":   "size: xl\n",
		"addons/queue/Chart.yaml":         addonChart,
		"addons/queue/templates/cm.yaml":  addonTemplate,
		"addons/queue/values-prod.yaml":   "size: l\n",
		"addons/queue/values-dev.yaml":    "size: s\n",
		"addons/cache/values-dev.yaml":    "size: xs\n",
		"addons/legacy/Chart.yaml":        addonChart,
		"addons/legacy/templates/cm.yaml": addonTemplate,
		"argo/addons.yaml": `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: addons
  namespace: argocd
spec:
  generators:
    - matrix:
        generators:
          - list:
              elements:
                - env: dev
                - env: prod
          - git:
              repoURL: https://github.com/example/platform.git
              revision: HEAD
              directories:
                - path: addons/*
                - path: addons/legacy
                  exclude: true
  template:
    metadata:
      name: '{{path.basename}}-{{env}}'
    spec:
      project: default
      source:
        repoURL: https://github.com/example/platform.git
        path: '{{path}}'
        helm:
          valueFiles:
            - values-{{env}}.yaml
          parameters:
            - name: env
              value: '{{env}}'
      destination:
        namespace: '{{env}}'
`,
	})
	res := renderRepo(t, dir, helmOpts(), "argo", "addons")
	for _, p := range res.Problems {
		t.Errorf("%s: %s", manifest.FormatLocation(p.Location), p.Message)
	}
	for _, c := range []struct{ app, env, size, sizeAt string }{
		{"cache-dev", "dev", "xs", "addons/cache/values-dev.yaml:1:1"},
		{"cache-prod", "prod", "xl", "addons/cache/values-prod.yaml:1:1"},
		{"queue-dev", "dev", "s", "addons/queue/values-dev.yaml:1:1"},
		{"queue-prod", "prod", "l", "addons/queue/values-prod.yaml:1:1"},
	} {
		chart := "addons/" + strings.SplitN(c.app, "-", 2)[0]
		cm := object(t, res, chart+"[Application "+c.app+" in argo]", "ConfigMap", c.app)
		data := cm.Content["data"].(map[string]any)
		if data["env"] != c.env || data["size"] != c.size {
			t.Errorf("%s: data %v", c.app, data)
		}
		if got := at(t, cm, "data.size"); got != c.sizeAt {
			t.Errorf("%s: size at %s, want %s", c.app, got, c.sizeAt)
		}
	}
	for _, name := range targetNames(res) {
		if strings.Contains(name, "legacy[Application") {
			t.Errorf("excluded directory rendered: %s", name)
		}
	}
}

// The git files generator: each file's flattened keys are parameters;
// a file of a list gives one Application per element.
func TestApplicationSetGitFiles(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"addons/cache/Chart.yaml":        addonChart,
		"addons/cache/templates/cm.yaml": addonTemplate,
		"clusters/east/config.json":      `{"cluster": {"name": "east", "size": "xl"}}`,
		"clusters/west/config.json":      `[{"cluster": {"name": "west-a", "size": "s"}}, {"cluster": {"name": "west-b", "size": "m"}}]`,
		"argo/clusters.yaml": `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: clusters
spec:
  generators:
    - git:
        repoURL: https://github.com/example/platform.git
        files:
          - path: clusters/**/config.json
  template:
    metadata:
      name: 'cache-{{cluster.name}}'
    spec:
      source:
        path: addons/cache
        helm:
          valuesObject:
            env: '{{path.basename}}'
            size: '{{cluster.size}}'
      destination:
        namespace: cache
`,
	})
	res := renderRepo(t, dir, helmOpts(), "argo", "addons", "clusters")
	for _, c := range []struct{ name, env, size string }{{"east", "east", "xl"}, {"west-a", "west", "s"}, {"west-b", "west", "m"}} {
		cm := object(t, res, "addons/cache[Application cache-"+c.name+" in argo]", "ConfigMap", "cache-"+c.name)
		if data := cm.Content["data"].(map[string]any); data["env"] != c.env || data["size"] != c.size {
			t.Errorf("%s: %v", c.name, data)
		}
		if got := at(t, cm, "data.size"); got != "argo/clusters.yaml:20:13" {
			t.Errorf("%s: size at %s, want the template's valuesObject line", c.name, got)
		}
	}
}

// What cannot be generated here says so once, at the generator; nothing
// is read from .git and a runaway generator is refused whole.
func TestApplicationSetNotRendered(t *testing.T) {
	for _, c := range []struct{ name, gen, want string }{
		{"cluster generator", "    - clusters: {}\n", "the clusters generator needs the cluster or a service plumb does not read"},
		{"goTemplate", "    - list:\n        elements: [{env: a}]\n  goTemplate: true\n", "uses goTemplate, which plumb does not render yet"},
		{"non-string element", "    - list:\n        elements: [{replicas: 3}]\n", "list element value replicas is not a string"},
		{"outside", "    - git:\n        files:\n          - path: ../../etc/*.json\n", `file pattern "../../etc/*.json" is not a pattern inside the repository`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{
				"addons/cache/Chart.yaml":        addonChart,
				"addons/cache/templates/cm.yaml": addonTemplate,
				"argo/set.yaml": "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: set\nspec:\n  generators:\n" + c.gen +
					"  template:\n    metadata:\n      name: x\n    spec:\n      source:\n        path: addons/cache\n",
			})
			res := renderRepo(t, dir, helmOpts(), "argo", "addons")
			var got []string
			for _, p := range res.Problems {
				if p.Rule == helm.RuleNotRendered {
					got = append(got, p.Message)
				}
			}
			if len(got) != 1 || !strings.Contains(got[0], c.want) {
				t.Errorf("problems %q, want one containing %q", got, c.want)
			}
			for _, name := range targetNames(res) {
				if strings.Contains(name, "[Application") {
					t.Errorf("rendered %s", name)
				}
			}
		})
	}
}

// A files pattern that would match .git/config finds nothing there: the
// repository's content has no .git.
func TestApplicationSetGitFilesSkipGitDir(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".git/config":                    "[remote \"origin\"]\n\turl = https://x-access-token:ghs_secret@github.com/o/r\n",
		".git/HEAD.json":                 `{"token": "ghs_secret"}`,
		"addons/cache/Chart.yaml":        addonChart,
		"addons/cache/templates/cm.yaml": addonTemplate,
		"argo/set.yaml": "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata:\n  name: set\nspec:\n  generators:\n    - git:\n        files:\n          - path: '**/*.json'\n" +
			"  template:\n    metadata:\n      name: 'x{{token}}'\n    spec:\n      source:\n        path: addons/cache\n",
	})
	res := renderRepo(t, dir, helmOpts(), "argo", "addons")
	for _, name := range targetNames(res) {
		if strings.Contains(name, "ghs_secret") || strings.Contains(name, "[Application") {
			t.Errorf("generated from .git: %s", name)
		}
	}
}
