package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 31, point 1: .git is not part of the repository's content.
// actions/checkout writes the job's token into .git/config; every way a
// pull request could make plumb read it (a kustomize resource, patch,
// generator file or env file, a replacement's source, a link in the tree,
// in a chart or to the .git directory, a values file named by .plumb.yaml
// or a GitOps definition, a CRD, a reference, a rules file or catalog) is
// refused at the line that names the file, and the token reaches no output.

// gitDirToken is the fake token the checkout wrote.
const gitDirToken = "ghs_gitDirTokenAAAABBBBCCCCDDDDEEEE0123"

// gitDirConfig is .git/config as actions/checkout writes it.
func gitDirConfig() string {
	header := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + gitDirToken))
	return "[core]\n\trepositoryformatversion = 0\n[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic " + header + "\n"
}

// gitDirLeaks lists the forms of the token found in text.
func gitDirLeaks(text string) []string {
	var out []string
	for _, form := range []string{gitDirToken, base64.StdEncoding.EncodeToString([]byte("x-access-token:" + gitDirToken)), "extraheader", "repositoryformatversion"} {
		if strings.Contains(text, form) {
			out = append(out, form)
		}
	}
	return out
}

func gitDirRepo(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: leak\n  namespace: x\ndata:\n  a: b\n"
	deploy := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: x\nspec:\n  selector: {matchLabels: {a: b}}\n" +
		"  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers:\n        - name: c\n          image: r.io/i:1\n          imagePullPolicy: Always\n"
	chart := "apiVersion: v2\nname: c\nversion: 0.1.0\n"
	writeTree(t, repo, map[string]string{
		".git/config":           gitDirConfig(),
		".git/cm.yaml":          cm,
		".git/patch.yaml":       "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: x\nspec:\n  replicas: 3\n",
		".git/replacement.yaml": "- source: {kind: ConfigMap, name: leak, fieldPath: data.a}\n  targets: [{select: {kind: Deployment}, fieldPaths: [metadata.annotations.a]}]\n",
		".git/crd.yaml":         "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: leaks.x.io\n",
		"ok/cm.yaml":            cm,
		// A kustomization at the root can name .git/ without "..".
		"kustomization.yaml":         "resources: [ok/cm.yaml]\nconfigMapGenerator:\n  - name: g\n    files: [gitcfg=.git/config]\n",
		"res/kustomization.yaml":     "resources: [../.git/cm.yaml]\n",
		"patch/kustomization.yaml":   "resources: [d.yaml]\npatches:\n  - path: ../.git/patch.yaml\n",
		"patch/d.yaml":               deploy,
		"envs/kustomization.yaml":    "configMapGenerator:\n  - name: e\n    envs: [cfg.env]\n",
		"repl/kustomization.yaml":    "resources: [d.yaml]\nreplacements:\n  - path: ../.git/replacement.yaml\n",
		"repl/d.yaml":                deploy,
		"linkgen/kustomization.yaml": "configMapGenerator:\n  - name: l\n    files: [cfg]\n",
		"dirlink/kustomization.yaml": "resources: [g/cm.yaml]\n",
		"chart/Chart.yaml":           chart,
		"chart/templates/cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: x\ndata:\n  x: {{ .Files.Get \"files/x\" | quote }}\n",
		"values/Chart.yaml":          chart,
		"values/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: v\n  namespace: x\ndata:\n  a: {{ .Values.a | quote }}\n",
		"argo/app.yaml": "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: a\n  namespace: argocd\nspec:\n  destination: {namespace: x}\n" +
			"  source:\n    path: values\n    helm:\n      valueFiles:\n        - ../.git/config\n",
		"conf/.plumb.yaml": "helm:\n  targets:\n    - chart: values\n      values: [.git/cm.yaml]\n",
		"rules/ok.yaml":    "[]\n",
	})
	links := map[string]string{
		"envs/cfg.env":    "../.git/config",
		"linkgen/cfg":     "../.git/config",
		"dirlink/g":       "../.git",
		"plain/x.yaml":    "../.git/config",
		"chart/files/x":   "../../.git/config",
		"crdlink.yaml":    ".git/crd.yaml",
		"rules/leak.yaml": "../.git/config",
		"rulesfile.yaml":  ".git/config",
		"catalog":         ".git",
		"reference":       ".git",
	}
	for name, target := range links {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	return repo
}

func TestGitDirectoryIsNotContent(t *testing.T) {
	repo := gitDirRepo(t)
	const refused = ": files inside .git are not repository content"
	cases := []struct {
		name string
		args []string
		code int
		// want are lines (or their starts) of the text report.
		want []string
	}{
		{"a generator file at the root", []string{"."}, 1, []string{
			`kustomization.yaml:4:13: error: configMapGenerator[0].files[0]: ".git/config" cannot be read: reads .git/config` + refused}},
		{"a kustomize resource", []string{"res"}, 1, []string{
			`res/kustomization.yaml:1:13: error: resources[0]: resource "../.git/cm.yaml" cannot be read: reads .git/cm.yaml` + refused}},
		{"a patch", []string{"patch"}, 1, []string{
			`patch/kustomization.yaml:3:5: error: patches[0].path: `, `reads .git/patch.yaml` + refused}},
		{"an env file through a link", []string{"envs"}, 1, []string{
			`envs/kustomization.yaml:3:12: error: configMapGenerator[0].envs[0]: "cfg.env" cannot be read: reads .git/config (envs/cfg.env leads there through a symbolic link)` + refused}},
		{"a replacement's source", []string{"repl"}, 1, []string{
			`repl/kustomization.yaml:3:5: error: replacements[0].path: `, `reads .git/replacement.yaml` + refused}},
		{"a generator file through a link", []string{"linkgen"}, 1, []string{
			`linkgen/kustomization.yaml:3:13: error: configMapGenerator[0].files[0]: "cfg" cannot be read: reads .git/config (linkgen/cfg leads there through a symbolic link)` + refused}},
		{"a link to the .git directory", []string{"dirlink"}, 1, []string{
			`dirlink/kustomization.yaml:1:13: error: resources[0]: resource "g/cm.yaml" cannot be read: reads .git/cm.yaml (dirlink/g/cm.yaml leads there through a symbolic link)` + refused}},
		{"a link in the tree", []string{"plain"}, 1, []string{
			`plain/x.yaml:1:1: error: cannot read the file: reads .git/config (plain/x.yaml leads there through a symbolic link)` + refused}},
		{"a link in a chart", []string{"chart"}, 1, []string{
			`chart/files/x: error: the chart cannot be read: reads .git/config (chart/files/x leads there through a symbolic link)` + refused}},
		{"a values file named by .plumb.yaml", []string{"values", "--config", "conf/.plumb.yaml"}, 1, []string{
			`conf/.plumb.yaml:3:7: error: values file .git/cm.yaml cannot be read: reads .git/cm.yaml` + refused}},
		{"a values file named by an Argo CD Application", []string{"argo", "values"}, 1, []string{
			`argo/app.yaml:12:11: error: values file .git/config cannot be read: reads .git/config` + refused}},
		{"CRDs from a directory holding a link", []string{"ok", "--crds", "."}, 2, []string{
			`crdlink.yaml:1:1: error: cannot read the file: reads .git/crd.yaml (crdlink.yaml leads there through a symbolic link)` + refused}},
		{"a rules directory holding a link", []string{"ok", "--rules", "rules"}, 2, []string{
			// Read through an os.Root at rules/, the link leaves it first.
			`rules/leak.yaml: error: cannot read the rules file: the path leads out of the directory it is read from`}},
		{"a rules file that is a link", []string{"ok", "--rules", "rulesfile.yaml"}, 2, []string{
			`rulesfile.yaml: error: cannot read the rules file: reads .git/config (rulesfile.yaml leads there through a symbolic link)` + refused}},
		{"a catalog that is a link to .git", []string{"ok", "--checks", "catalog"}, 2, []string{
			`catalog: error: cannot read the catalog directory: reads .git (catalog leads there through a symbolic link)` + refused}},
		{"a reference that is a link to .git", []string{"ok", "--reference", "reference"}, 2, []string{
			`reference: error: cannot open the reference directory: reads .git (reference leads there through a symbolic link)` + refused}},
		{".git named on the command line", []string{".git/config"}, 2, []string{
			`.git/config:1:1: error: cannot read the file: reads .git/config` + refused}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"check", "--root", ".", "--no-cache", "--no-default-checks", "--format", "text", "--format", "json=" + filepath.Join(t.TempDir(), "r.json")}, c.args...)
			r := runBounded(t, repo, 256<<20, args...)
			if r.code != c.code {
				t.Errorf("exit %d, want %d", r.code, c.code)
			}
			out := r.stdout + r.stderr
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("the output lacks %q", w)
				}
			}
			if leaks := gitDirLeaks(out); len(leaks) > 0 {
				t.Errorf("the output holds %v", leaks)
			}
			if r.elapsed.Seconds() > 10 {
				t.Errorf("took %v", r.elapsed)
			}
			if t.Failed() {
				t.Logf("plumb %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.stdout, r.stderr)
			}
		})
	}
}

// A chart at the repository root never lists .git among its files, and
// plumb render prints nothing of it.
func TestChartAtTheRootDoesNotSeeGit(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "repo")
	writeTree(t, repo, map[string]string{
		".git/config": gitDirConfig(),
		"Chart.yaml":  "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"files/a.txt": "a\n",
		"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: r\n  namespace: x\ndata:\n" +
			"  x: {{ .Files.Get \".git/config\" | quote }}\n  all: {{ range $p, $_ := .Files.Glob \"**\" }}{{ $p }},{{ end }}\n",
	})
	r := runBounded(t, repo, 256<<20, "render", "--root", ".", ".")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, `x: ""`) || !strings.Contains(r.stdout, "all: files/a.txt,") {
		t.Errorf("the chart's files are not what they should be:\n%s", r.stdout)
	}
	if leaks := gitDirLeaks(r.stdout + r.stderr); len(leaks) > 0 {
		t.Errorf("plumb render printed %v", leaks)
	}
}
