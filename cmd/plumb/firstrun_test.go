package main

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
)

// A small application with a base and a dev overlay, a Helm chart, a
// kustomize patch file and tool configuration beside the manifests.
var shopFiles = map[string]string{
	"apps/shop/base/kustomization.yaml": "resources: [deployment.yaml]\n",
	"apps/shop/base/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  selector:
    matchLabels: {app: shop}
  template:
    metadata:
      labels: {app: shop}
    spec:
      containers:
        - name: shop
          image: registry.example.com/shop:latest
`,
	"apps/shop/overlays/dev/kustomization.yaml": "resources: [../../base]\npatches:\n  - path: replicas.yaml\n",
	"apps/shop/overlays/dev/replicas.yaml":      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: shop\nspec:\n  replicas: 2\n",
	"charts/web/Chart.yaml":                     "apiVersion: v2\nname: web\nversion: 1.0.0\n",
	"charts/web/values.yaml":                    "replicas: 1\n",
	"charts/web/templates/deployment.yaml":      "{{- if .Values.enabled }}\nkind: Deployment\n{{- end }}\n",
	".pre-commit-config.yaml":                   "repos: []\n",
	"docs/values-example.yaml":                  "replicas: 3\n",
}

// chdir runs the rest of the test in dir.
func chdir(t *testing.T, dir string) { t.Chdir(dir) }

// The repository root is the git top level of the working directory: run
// in an overlay, plumb builds it with its bases and reports paths relative
// to the repository; run from outside, it checks the repository the path
// names.
func TestRootFollowsTheRepository(t *testing.T) {
	r := gittest.New(t)
	r.Write(shopFiles)
	want := "apps/shop/base/deployment.yaml:14:11: error: image registry.example.com/shop:latest is not pinned: use a version tag or a digest instead of latest [check/C10001]"

	chdir(t, filepath.Join(r.Dir, "apps/shop/overlays/dev"))
	code, out, errOut := plumb(t, "check", ".", "--select", "C10001")
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "1 object in 1 target checked") {
		t.Errorf("from the overlay: exit %d\n%s%s", code, out, errOut)
	}

	chdir(t, t.TempDir())
	code, out, errOut = plumb(t, "check", filepath.Join(r.Dir, "apps"), "--select", "C10001")
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(out, "1 object in 1 target checked") {
		t.Errorf("from outside: exit %d\n%s%s", code, out, errOut)
	}
}

// Only Kubernetes objects are objects: a kustomize patch, tool dotfiles and
// files without objects are skipped — never the subject of a finding — and
// counted; --verbose lists them. A Helm chart's sources are not read as
// objects either: the chart is rendered (here to nothing, as enabled is
// unset), so it is a target, not a skipped file. --exclude with a trailing
// slash excludes the directory.
func TestNonObjectsAreSkippedAndCounted(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, shopFiles)
	code, out, errOut := plumb(t, "check", "--root", dir, dir, "--no-default-checks")
	if code != 0 || !strings.Contains(out, "no findings; 1 object in 2 targets checked\n") ||
		!strings.Contains(out, "3 files skipped: 1 kustomize patch, 1 tool configuration, 1 not a Kubernetes object (--verbose lists them)\n") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	_, out, _ = plumb(t, "check", "--root", dir, dir, "--no-default-checks", "--verbose")
	for _, want := range []string{
		"Skipped (not read as Kubernetes objects):\n",
		"  .pre-commit-config.yaml (tool configuration)\n",
		"  apps/shop/overlays/dev/replicas.yaml (kustomize patch)\n",
		"  docs/values-example.yaml (not a Kubernetes object)\n",
		"3 files skipped: 1 kustomize patch, 1 tool configuration, 1 not a Kubernetes object\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--verbose lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = plumb(t, "check", "--root", dir, dir, "--no-default-checks", "--exclude", "charts/", "--exclude", "docs/")
	if !strings.Contains(out, "2 files skipped: 1 kustomize patch, 1 tool configuration (--verbose lists them)") {
		t.Errorf("--exclude charts/:\n%s", out)
	}
	// A file named on the command line is always read.
	code, out, _ = plumb(t, "check", "--root", dir, filepath.Join(dir, "docs/values-example.yaml"), "--no-default-checks")
	if code != 0 || !strings.Contains(out, "1 file skipped: 1 not a Kubernetes object") {
		t.Errorf("named file: exit %d\n%s", code, out)
	}
}

// In pull-request mode a file broken before the change does not fail the
// pull request (the finding is reported, unchanged); the same breakage
// introduced by the head does. --fail-on never exits 0 whatever the
// repository holds.
func TestPullRequestGateOnBrokenFiles(t *testing.T) {
	const broken = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n"
	const fine = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fine}\n"

	r := gittest.New(t)
	r.Write(map[string]string{"apps/a/broken.yaml": broken, "apps/b/cm.yaml": fine})
	base := r.Commit("base")
	r.Write(map[string]string{"apps/b/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: fine, labels: {a: b}}\n"})
	code, out, errOut := plumb(t, "check", "--root", r.Dir, r.Dir, "--base-ref", base, "--no-default-checks")
	if code != 0 || !strings.Contains(out, "apps/a/broken.yaml:3:1: error: YAML syntax error: did not find expected ',' or '}' [manifest/yaml-syntax] (unchanged)") {
		t.Errorf("broken before the change: exit %d, want 0\n%s%s", code, out, errOut)
	}
	if code, _, _ := plumb(t, "check", "--root", r.Dir, r.Dir, "--base-ref", base, "--no-default-checks", "--gate", "all"); code != 1 {
		t.Errorf("--gate all: exit %d, want 1", code)
	}

	r = gittest.New(t)
	r.Write(map[string]string{"apps/a/broken.yaml": fine, "apps/b/cm.yaml": fine})
	base = r.Commit("base")
	r.Write(map[string]string{"apps/a/broken.yaml": broken})
	code, out, errOut = plumb(t, "check", "--root", r.Dir, r.Dir, "--base-ref", base, "--no-default-checks")
	if code != 1 || !strings.Contains(out, "apps/a/broken.yaml:3:1: error: YAML syntax error: did not find expected ',' or '}' [manifest/yaml-syntax] (new)") {
		t.Errorf("broken by the change: exit %d, want 1\n%s%s", code, out, errOut)
	}
	if code, _, _ := plumb(t, "check", "--root", r.Dir, r.Dir, "--base-ref", base, "--no-default-checks", "--fail-on", "never"); code != 0 {
		t.Errorf("--fail-on never: exit %d, want 0", code)
	}
}

// --min-level hides the less severe findings from the text report (and
// says how many); a large report ends with a digest per rule.
func TestMinLevelAndDigest(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 160 {
		files[filepath.Join("apps", "w"+strings.Repeat("x", i%3), "d"+itoa(i)+".yaml")] = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: w" + itoa(i) +
			"\nspec:\n  template:\n    spec:\n      containers:\n        - name: c\n          image: nginx\n" +
			"    metadata: {labels: {app: w}}\n  selector: {matchLabels: {app: w}}\n"
	}
	writeTree(t, dir, files)
	_, out, _ := plumb(t, "check", "--root", dir, dir, "--select", "C10001,C10002", "--min-level", "error")
	if strings.Contains(out, "warning:") || !strings.Contains(out, "(160 below --min-level error not shown)") || strings.Contains(out, "Findings by rule:") {
		t.Errorf("--min-level error:\n%s", tail(out))
	}
	_, out, _ = plumb(t, "check", "--root", dir, dir, "--select", "C10001,C10002")
	if !strings.Contains(out, "Findings by rule:\n  check/C10001    160  error   Images are pinned to a version, first at apps/w/d0.yaml:10:11\n"+
		"  check/C10002    160  warning Images name their registry, first at apps/w/d0.yaml:10:11\n") {
		t.Errorf("digest:\n%s", tail(out))
	}
	if code, _, errOut := plumb(t, "check", "--root", dir, dir, "--min-level", "loud"); code != 2 || !strings.Contains(errOut, `--min-level: unknown level "loud"`) {
		t.Errorf("bad --min-level: exit %d %s", code, errOut)
	}
}

func tail(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 12 {
		lines = lines[len(lines)-12:]
	}
	return strings.Join(lines, "\n")
}

func itoa(i int) string { return strconv.Itoa(i) }

// An OpenShift template library: a required parameter without a value is
// checked with a placeholder and one warning at the parameter; a Service
// selecting a DeploymentConfig's pods selects a workload; an image an
// image-change trigger sets is not unpinned; the ephemeral and persistent
// variants of a template in one directory are alternatives (a note).
func TestOpenShiftTemplateLibrary(t *testing.T) {
	template := func(name, storage string) string {
		return `{
  "apiVersion": "template.openshift.io/v1",
  "kind": "Template",
  "metadata": {"name": "` + name + `"},
  "objects": [
    {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "${NAME}"},
     "spec": {"selector": {"name": "${NAME}"}, "ports": [{"port": 8080}]}},
    {"apiVersion": "apps.openshift.io/v1", "kind": "DeploymentConfig", "metadata": {"name": "${NAME}"},
     "spec": {"replicas": 1, "selector": {"name": "${NAME}"},
       "template": {"metadata": {"labels": {"name": "${NAME}"}},
         "spec": {"containers": [{"name": "app", "image": " ", "env": [{"name": "SSO_URL", "value": "${SSO_URL}"}]}]}},
       "triggers": [{"type": "ImageChange", "imageChangeParams": {"automatic": true, "containerNames": ["app"],
         "from": {"kind": "ImageStreamTag", "name": "app:latest"}}}]}}` + storage + `
  ],
  "parameters": [
    {"name": "NAME", "value": "app"},
    {"name": "SSO_URL", "required": true}
  ]
}
`
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"templates/app-ephemeral.json": template("app-ephemeral", ""),
		"templates/app-persistent.json": template("app-persistent", `,
    {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "${NAME}"}, "spec": {"accessModes": ["ReadWriteOnce"]}}`),
	})
	code, out, errOut := plumb(t, "check", "--root", dir, dir, "--select", "F10001,C10001,C10002", "--min-level", "note")
	for _, want := range []string{
		`templates/app-ephemeral.json:17:5: warning: template app-ephemeral: parameter SSO_URL is required and has no value, so the template was checked with "plumb-required-sso-url" in its place`,
		`templates/app-persistent.json:6:5: note: Service app (and 1 object more the two define alike) is also defined in templates/app-ephemeral.json:6:5`,
		// The schema analyzer has no schema for OpenShift's own kinds.
		"templates/app-ephemeral.json:8:6: note: no schema for apps.openshift.io/v1 DeploymentConfig",
		"4 findings: 0 errors, 2 warnings, 2 notes",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s%s", want, out, errOut)
		}
	}
	if code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
}

// Files of a plain directory that .plumb.yaml declares a target are applied
// together: an object two of them define is an error there.
func TestDeclaredDirectoryDuplicatesAreErrors(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {a: b}\n"
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"install/a.yaml": cm, "install/b.yaml": cm, "variants/a.yaml": cm, "variants/b.yaml": cm,
		".plumb.yaml": "targets: [install]\n"})
	chdir(t, dir)
	code, out, _ := plumb(t, "check", ".", "--no-default-checks")
	if code != 1 || !strings.Contains(out, "install/b.yaml:1:1: error: ConfigMap settings is defined twice in target install (first at install/a.yaml:1:1)") ||
		!strings.Contains(out, "variants/b.yaml:1:1: note: ConfigMap settings is also defined in variants/a.yaml:1:1") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
