package render

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/testcorpus"
)

func TestTemplateProcessing(t *testing.T) {
	res := renderRepo(t, "testdata/repo", fixtureOptions(), "apps/templates")
	if len(res.Targets) != 1 || len(res.Targets[0].Templates) != 1 {
		t.Fatalf("targets %+v", res.Targets)
	}
	tg := res.Targets[0]
	tmpl := tg.Templates[0]
	if tmpl.Object.ID.Kind != "Template" || len(tmpl.Objects) != 2 || len(tg.Objects) != 2 {
		t.Fatalf("template %+v, objects %d", tmpl.Object.ID, len(tg.Objects))
	}
	for _, o := range tg.Objects {
		if o.ID.Kind == "Template" {
			t.Error("the Template itself is among the objects")
		}
	}
	svc := object(t, res, "apps/templates", "Service", "demo")
	// ${{PORT}} is a number, the hard-coded namespace is stripped, the
	// template's labels are added.
	if v, _ := svc.Get(manifest.MustParsePath("spec.ports[0].port")); v != int64(8080) {
		t.Errorf("port %#v", v)
	}
	if _, ok := svc.Get(manifest.MustParsePath("metadata.namespace")); ok || svc.ID.Namespace != "" {
		t.Error("hard-coded namespace kept")
	}
	if v, _ := svc.Get(manifest.MustParsePath("metadata.labels.template")); v != "web-template" {
		t.Errorf("template label %#v", v)
	}
	d := object(t, res, "apps/templates", "Deployment", "demo")
	for path, want := range map[string]any{
		"spec.replicas":                                 int64(2),
		"spec.template.spec.containers[0].image":        "quay.io/example/web:latest",
		"spec.template.spec.containers[0].env[1].value": "${HOME}", // not a parameter: left as written
		"metadata.labels.app":                           "demo",
		"spec.template.spec.containers[0].env[0].name":  "PASSWORD",
	} {
		if v, _ := d.Get(manifest.MustParsePath(path)); v != want {
			t.Errorf("%s = %#v, want %#v", path, v, want)
		}
	}
	// The generated password is 12 characters from [a-zA-Z0-9], the same
	// on every run.
	pw, _ := d.Get(manifest.MustParsePath("spec.template.spec.containers[0].env[0].value"))
	if s, _ := pw.(string); !regexp.MustCompile(`^[a-zA-Z0-9]{12}$`).MatchString(s) {
		t.Errorf("generated %q", pw)
	}
	again := renderRepo(t, "testdata/repo", fixtureOptions(), "apps/templates")
	pw2, _ := object(t, again, "apps/templates", "Deployment", "demo").Get(manifest.MustParsePath("spec.template.spec.containers[0].env[0].value"))
	if pw != pw2 {
		t.Errorf("generated values differ between runs: %v %v", pw, pw2)
	}
	// A supplied value wins over the declared one and over generation.
	res = renderRepo(t, "testdata/repo", Options{Params: TemplateParams{
		Global:      map[string]string{"NAME": "x", "REPLICAS": "4"},
		PerTemplate: map[string]map[string]string{"web-template": {"REPLICAS": "7", "PASSWORD": "given"}},
	}}, "apps/templates")
	d = object(t, res, "apps/templates", "Deployment", "x")
	if v, _ := d.Get(manifest.MustParsePath("spec.replicas")); v != int64(7) {
		t.Errorf("per-template value: replicas %#v", v)
	}
	if v, _ := d.Get(manifest.MustParsePath("spec.template.spec.containers[0].env[0].value")); v != "given" {
		t.Errorf("supplied value not used: %#v", v)
	}
}

func TestGenerateValue(t *testing.T) {
	for from, re := range map[string]string{
		"[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}": `^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}$`,
		"fedora-[a-z0-9]{16}":                 `^fedora-[a-z0-9]{16}$`,
		"[\\w]{10}":                           `^[a-zA-Z0-9_]{10}$`,
		"[\\d]{3}":                            `^[0-9]{3}$`,
		"[A-F0-9]{4}x":                        `^[A-F0-9]{4}x$`,
		"literal":                             `^literal$`,
	} {
		got, err := generateValue(from, "t/p")
		if err != nil || !regexp.MustCompile(re).MatchString(got) {
			t.Errorf("%s: %q %v", from, got, err)
		}
		again, _ := generateValue(from, "t/p")
		other, _ := generateValue(from, "t/q")
		if again != got {
			t.Errorf("%s: not deterministic", from)
		}
		if strings.Contains(from, "{") && other == got {
			t.Errorf("%s: the seed does not change the value", from)
		}
	}
	for _, from := range []string{"[a-z]{0}", "[a-z]{256}", "[z-a]{3}", "[a-z]{x}"} {
		if _, err := generateValue(from, "s"); err == nil {
			t.Errorf("%s accepted", from)
		}
	}
}

// TestKubevirtCommonTemplates processes the 172 KubeVirt common templates:
// every one processes cleanly, generated names follow their patterns, and
// each VirtualMachine's fields locate into the template file.
func TestKubevirtCommonTemplates(t *testing.T) {
	data, err := os.ReadFile(testcorpus.Dir(t, "kubevirt-common-templates", "common-templates-v0.35.0.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "templates.yaml"), data, 0o644))
	res := renderRepo(t, dir, Options{})
	for _, p := range res.Problems {
		t.Errorf("problem: %s", p.Error())
	}
	if len(res.Targets) != 1 {
		t.Fatalf("%d targets", len(res.Targets))
	}
	tg := res.Targets[0]
	if len(tg.Templates) != 172 {
		t.Fatalf("%d templates, want 172", len(tg.Templates))
	}
	for _, tmpl := range tg.Templates {
		if len(tmpl.Objects) != 1 || tmpl.Objects[0].ID.Kind != "VirtualMachine" {
			t.Fatalf("%s: objects %v", tmpl.Object.ID.Name, tmpl.Objects)
		}
		vm := tmpl.Objects[0]
		if strings.Contains(vm.ID.Name, "${") || vm.ID.Name == "" {
			t.Errorf("%s: VM name %q", tmpl.Object.ID.Name, vm.ID.Name)
		}
		loc, exact := vm.Locate(manifest.MustParsePath("spec.template.spec.domain.devices.disks[0].name"))
		if loc.File != "templates.yaml" || !exact || loc.Line <= 1 {
			t.Errorf("%s: disk location %+v", tmpl.Object.ID.Name, loc)
		}
		if tmpl.Object.Annotations()["openshift.io/display-name"] == "" {
			t.Errorf("%s: the Template lost its annotations", tmpl.Object.ID.Name)
		}
	}
}

// TestTemplateInKustomization: a Template built by kustomize is processed
// after the build; its objects locate through kustomize's provenance into
// the template file (or the patch that changed the template).
func TestTemplateInKustomization(t *testing.T) {
	res := renderRepo(t, "testdata/ktemplate", Options{})
	for _, p := range res.Problems {
		t.Errorf("problem: %s", p.Error())
	}
	cm := object(t, res, ".", "ConfigMap", "from-patch")
	if len(res.Targets[0].Templates) != 1 || res.Targets[0].Templates[0].Object.ID.Name != "team-tmpl" {
		t.Fatalf("templates %+v", res.Targets[0].Templates)
	}
	for path, want := range map[string]string{
		"data.greeting": "template.yaml:11:7",
		"metadata.name": "template.yaml:9:7",
		"":              "template.yaml:6:5",
	} {
		loc, _ := cm.Locate(manifest.MustParsePath(path))
		if got := manifest.FormatLocation(manifest.Location{File: loc.File, Line: loc.Line, Column: loc.Column}); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
	tmpl := res.Targets[0].Templates[0].Object
	loc, _ := tmpl.Locate(manifest.MustParsePath("parameters[0].value"))
	if manifest.FormatLocation(manifest.Location{File: loc.File, Line: loc.Line, Column: loc.Column}) != "kustomization.yaml:10:9" {
		t.Errorf("patched parameter at %+v", loc)
	}
}

// TestTemplateProblems: processed objects are checked as plain objects
// are (apiVersion, kind, a name a parameter leaves empty), at their line
// under objects[]; a template of the wrong shape or declaring a parameter
// twice is an input error at the line; the good objects still count.
func TestTemplateProblems(t *testing.T) {
	res := renderRepo(t, "testdata/badtemplates", Options{})
	var got []string
	for _, p := range res.Problems {
		got = append(got, p.Rule+" "+manifest.FormatLocation(manifest.Location{File: p.Location.File, Line: p.Location.Line, Column: p.Location.Column})+" "+p.Message)
		if strings.HasPrefix(p.Rule, "render/") != p.Input {
			t.Errorf("%s: input %v", p.Error(), p.Input)
		}
	}
	want := []string{
		"manifest/missing-api-version objects.yaml:12:5 kind ConfigMap has no apiVersion: add apiVersion: v1",
		"manifest/missing-name objects.yaml:18:7 ConfigMap has an empty metadata.name: every object needs a name",
		"manifest/not-an-object objects.yaml:19:5 template objects: objects[3] is not a mapping: not a Kubernetes object, skipped",
		"manifest/not-an-object objects.yaml:20:5 template objects: objects[4] has neither apiVersion nor kind: not a Kubernetes object, skipped",
		"render/template shape.yaml:5:1 template shape: parameters must be a list of parameters (- name: ...), not a mapping",
		"render/template shape.yaml:6:1 template shape: objects must be a list of objects, not a string",
		"render/template twice.yaml:8:5 template twice: parameter NAME is declared twice (first at line 6)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var names []string
	for _, o := range res.Objects() {
		names = append(names, o.ID.Name)
	}
	if strings.Join(names, ",") != "settings,no-api-version," {
		t.Errorf("objects %q", names)
	}
}
