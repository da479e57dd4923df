package main

import (
	"strings"
	"testing"
)

const renderRepo = "../../internal/render/testdata/repo"

func TestRenderShowOrigin(t *testing.T) {
	code, out, errOut := plumb(t, "render", "--root", renderRepo, renderRepo+"/overlays/dev", "--show-origin")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		"# target: overlays/dev\n",
		"image: nginx:1.27  # overlays/dev/kustomization.yaml:11\n",
		"replicas: 2  # overlays/dev/kustomization.yaml:14\n",
		"value: dev  # overlays/dev/replicas-patch.yaml:12\n",
		"app: web  # base/kustomization.yaml:7\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestRenderParams(t *testing.T) {
	dir := renderRepo + "/apps/templates"
	code, out, errOut := plumb(t, "render", "--root", renderRepo, dir, "--param", "NAME=shop")
	if code != 0 || !strings.Contains(out, "name: shop") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	// A required parameter without a value renders with a placeholder and
	// one warning at the parameter.
	code, out, errOut = plumb(t, "render", "--root", renderRepo, dir)
	if code != 0 || !strings.Contains(errOut, "apps/templates/web-template.yaml:37:5: warning: template web-template: parameter NAME is required and has no value, so the template was checked with \"plumb-required-name\"") ||
		!strings.Contains(out, "plumb-required-name") {
		t.Errorf("missing required parameter: exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = plumb(t, "render", "--root", renderRepo, dir, "--param", "NAME=x", "--param", "NAMEE=y")
	if code != 2 || !strings.Contains(errOut, "unknown Template parameter NAMEE") {
		t.Errorf("unknown parameter: exit %d\n%s", code, errOut)
	}
	code, _, errOut = plumb(t, "render", "--root", renderRepo, dir, "--param", "NAME")
	if code != 2 || !strings.Contains(errOut, `--param "NAME": want NAME=VALUE`) {
		t.Errorf("malformed --param: exit %d\n%s", code, errOut)
	}
}

// Kustomizations that cannot be built are the repository's content:
// findings at the entry to fix (exit 1 by --fail-on), printed once; a
// remote base is a warning, its target not rendered.
func TestCheckBadKustomizationsAreFindings(t *testing.T) {
	root := "../../internal/render/testdata/bad"
	code, out, errOut := plumb(t, "check", "--root", root, root)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{
		`missing/kustomization.yaml:3:5: error: resources[1]: resource "nothere.yaml" not found`,
		"remote/kustomization.yaml:2:5: warning: resources[0]: remote",
	} {
		if strings.Contains(errOut, want) || !strings.Contains(out, want) {
			t.Errorf("want %q once, in the report:\n%s\n%s", want, out, errOut)
		}
	}
	// The good target is still checked.
	if !strings.Contains(out, "4 objects in 5 targets checked") {
		t.Errorf("no summary:\n%s", out)
	}
}
