package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// fluxSubstituteRepo is a Flux home-lab shape: a cluster Kustomization
// substituting variables, from a ConfigMap and inline, into apps/web.
func fluxSubstituteRepo(t *testing.T, postBuild string) string {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"clusters/home/apps.yaml": "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n" +
			"  path: ./apps/web\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  postBuild:\n" + postBuild,
		"clusters/home/vars.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-vars\n  namespace: flux-system\ndata:\n  domain: home.example\n  replicas: \"2\"\n",
		"apps/web/kustomization.yaml": "resources:\n  - deployment.yaml\n  - script.yaml\n",
		"apps/web/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${namespace:=web}
spec:
  replicas: ${replicas}
  template:
    spec:
      containers:
        - name: web
          image: nginx:${tag:-1.27}
          args: ["--host=web.${domain}", "--cost=$$5"]
`,
		"apps/web/script.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: script\n  annotations:\n    kustomize.toolkit.fluxcd.io/substitute: disabled\ndata:\n  run.sh: echo ${HOME}\n",
	})
	return dir
}

func TestFluxKustomizationPostBuildSubstitution(t *testing.T) {
	dir := fluxSubstituteRepo(t, "    substitute:\n      tag: \"1.27.3\"\n      replicas: \"3\"\n    substituteFrom:\n      - kind: ConfigMap\n        name: cluster-vars\n")
	res := renderRepo(t, dir, Options{}, "clusters", "apps")
	for _, p := range res.Problems {
		t.Errorf("%s: %s", manifest.FormatLocation(p.Location), p.Message)
	}
	const name = "apps/web[Kustomization apps in clusters/home]"
	d := object(t, res, name, "Deployment", "web")
	spec := d.Content["spec"].(map[string]any)
	if r := spec["replicas"]; r != int64(3) {
		t.Errorf("replicas %#v, want 3 (substitute over substituteFrom, typed as a number)", r)
	}
	if d.ID.Namespace != "web" || d.ID.Target != name {
		t.Errorf("id %+v, want namespace web from the default", d.ID)
	}
	c := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	if c["image"] != "nginx:1.27.3" {
		t.Errorf("image %v", c["image"])
	}
	if args := c["args"].([]any); args[0] != "--host=web.home.example" || args[1] != "--cost=$5" {
		t.Errorf("args %v", args)
	}
	if got := at(t, d, "spec.replicas"); got != "apps/web/deployment.yaml:7:3" {
		t.Errorf("replicas at %s, want the line as written", got)
	}
	if cm := object(t, res, name, "ConfigMap", "script"); cm.Content["data"].(map[string]any)["run.sh"] != "echo ${HOME}" {
		t.Errorf("disabled resource substituted: %v", cm.Content["data"])
	}
	// The directory's own build keeps the placeholders.
	raw := object(t, res, "apps/web", "Deployment", "web")
	if r := raw.Content["spec"].(map[string]any)["replicas"]; r != "${replicas}" {
		t.Errorf("the directory's own build: replicas %#v", r)
	}
}

// What the controller refuses is an error at the entry; what plumb does not
// read is a note; neither renders the post-build target. No variables, or
// only optional sources missing: the controller substitutes nothing (or
// what is there).
func TestFluxKustomizationPostBuildProblems(t *testing.T) {
	for _, c := range []struct {
		name, postBuild, want string
		rendered              bool
	}{
		{"bad name", "    substitute:\n      my-var: x\n", `clusters/home/apps.yaml:13:7: error: Kustomization apps: variable name "my-var" is invalid`, false},
		{"secret", "    substituteFrom:\n      - kind: Secret\n        name: creds\n", "clusters/home/apps.yaml:13:9: note: Kustomization apps: its variables come from Secret creds, which plumb does not read", false},
		{"missing configmap", "    substituteFrom:\n      - kind: ConfigMap\n        name: nope\n", "clusters/home/apps.yaml:13:9: note: Kustomization apps: its variables come from ConfigMap nope, which is not among the repository's objects", false},
		{"inline only", "    substitute:\n      tag: x\n      replicas: \"1\"\n      domain: d\n", "", true},
		{"optional missing", "    substituteFrom:\n      - kind: Secret\n        name: creds\n        optional: true\n      - kind: ConfigMap\n        name: cluster-vars\n", "", true},
		{"nothing to substitute", "    substitute: {}\n", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := fluxSubstituteRepo(t, c.postBuild)
			res := renderRepo(t, dir, Options{}, "clusters", "apps")
			var got []string
			for _, p := range res.Problems {
				got = append(got, manifest.FormatLocation(p.Location)+": "+p.Level+": "+p.Message)
			}
			if c.want == "" && len(got) != 0 || c.want != "" && (len(got) != 1 || !strings.HasPrefix(got[0], c.want)) {
				t.Errorf("problems %q, want %q", got, c.want)
			}
			if has := containsStr(targetNames(res), "apps/web[Kustomization apps in clusters/home]"); has != c.rendered {
				t.Errorf("post-build target rendered: %v, want %v (%v)", has, c.rendered, targetNames(res))
			}
		})
	}
}

// An expression envsubst cannot read fails the Kustomization, as in the
// controller.
func TestFluxKustomizationBadExpression(t *testing.T) {
	dir := fluxSubstituteRepo(t, "    substitute:\n      tag: x\n")
	writeTree(t, dir, map[string]string{"apps/web/script.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: script\ndata:\n  run.sh: echo ${HOME\n"})
	res := renderRepo(t, dir, Options{}, "clusters", "apps")
	if len(res.Problems) != 1 || res.Problems[0].Rule != RuleFluxSubstitute || res.Problems[0].Level != "error" ||
		!strings.Contains(res.Problems[0].Message, "ConfigMap script: the variables cannot be substituted") {
		t.Fatalf("problems %+v", res.Problems)
	}
}

// A variable written in many values cannot grow the render past the
// target's size budget: the Kustomization is an error, and nothing is
// built from it.
func TestFluxKustomizationSubstitutionIsBounded(t *testing.T) {
	dir := fluxSubstituteRepo(t, "    substitute:\n      big: "+strings.Repeat("x", 64<<10)+"\n")
	var many strings.Builder
	many.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: script\ndata:\n")
	for i := range 200 {
		fmt.Fprintf(&many, "  k%03d: ${big}${big}${big}${big}\n", i)
	}
	writeTree(t, dir, map[string]string{"apps/web/script.yaml": many.String()})
	opts := Options{Limits: manifest.DefaultLimits}
	opts.Limits.MaxTargetBytes = 16 << 20
	res := renderRepo(t, dir, opts, "clusters", "apps")
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Message, "exceed the render target's size budget") {
		t.Fatalf("problems %+v", res.Problems)
	}
	if containsStr(targetNames(res), "apps/web[Kustomization apps in clusters/home]") {
		t.Error("the post-build target was rendered")
	}
}

// A variable used without a default that the Kustomization does not give
// is a warning at the value that uses it: the controller writes "".
func TestFluxKustomizationUnsetVariable(t *testing.T) {
	dir := fluxSubstituteRepo(t, "    substitute:\n      tag: \"1.27.3\"\n      replicas: \"3\"\n")
	res := renderRepo(t, dir, Options{}, "clusters", "apps")
	var got []string
	for _, p := range res.Problems {
		got = append(got, manifest.FormatLocation(p.Location)+": "+p.Level+": "+p.Message)
	}
	want := "apps/web/deployment.yaml:13:18: warning: Kustomization apps substitutes ${domain} here, but gives no variable domain and the expression no default: kustomize-controller writes an empty string"
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Errorf("problems %q, want %q", got, want)
	}
	d := object(t, res, "apps/web[Kustomization apps in clusters/home]", "Deployment", "web")
	c := d.Content["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	if args := c["args"].([]any); args[0] != "--host=web." {
		t.Errorf("args %v", args)
	}
}
