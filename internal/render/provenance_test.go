package render

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// renderRepo renders a fixture repository under testdata.
func renderRepo(t testing.TB, dir string, opts Options, paths ...string) *Result {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	if len(paths) == 0 {
		paths = []string{"."}
	}
	set := manifest.Load(root.FS(), paths, manifest.LoadOptions{})
	return Render(context.Background(), root.FS(), set, opts)
}

// object finds an object by target, kind and name.
func object(t testing.TB, res *Result, target, kind, name string) *manifest.Object {
	t.Helper()
	for _, tg := range res.Targets {
		if tg.Name != target {
			continue
		}
		for _, o := range tg.Objects {
			if o.ID.Kind == kind && o.ID.Name == name {
				return o
			}
		}
	}
	t.Fatalf("no %s %s in target %s", kind, name, target)
	return nil
}

func fixtureOptions() Options {
	return Options{Params: TemplateParams{Global: map[string]string{"NAME": "demo"}}}
}

// TestProvenance asserts the exact source position of fields of rendered
// objects: base resources, strategic merge, JSON 6902 and inline patches,
// images, replicas, namespace, namePrefix, nameSuffix, commonLabels,
// commonAnnotations, a configMapGenerator (literals, a file, an env file),
// a component, and a Template.
func TestProvenance(t *testing.T) {
	res := renderRepo(t, "testdata/repo", fixtureOptions())
	for _, p := range res.Problems {
		if p.Input {
			t.Fatalf("unexpected problem: %s", p.Error())
		}
	}
	type obj struct{ target, kind, name string }
	dev := obj{"overlays/dev", "Deployment", "dev-web"}
	devSvc := obj{"overlays/dev", "Service", "dev-web"}
	devCM := obj{"overlays/dev", "ConfigMap", "dev-web-config-7btmm4g7db"}
	prod := obj{"overlays/prod", "Deployment", "web-prod"}
	prodSvc := obj{"overlays/prod", "Service", "web-prod"}
	prodMon := obj{"overlays/prod", "ServiceMonitor", "web-prod"}
	tmplDeploy := obj{"apps/templates", "Deployment", "demo"}
	tmplSvc := obj{"apps/templates", "Service", "demo"}
	cases := []struct {
		o     obj
		path  string
		want  string // file:line:col
		exact bool
	}{
		// The base resource.
		{dev, "", "base/deployment.yaml:1:1", true},
		{dev, "kind", "base/deployment.yaml:2:1", true},
		{dev, "metadata.labels.tier", "base/deployment.yaml:6:5", true},
		{dev, "spec.template.spec.containers[1].image", "base/deployment.yaml:26:11", true},
		{dev, "spec.template.spec.containers[1].args[1]", "base/deployment.yaml:27:27", true},
		{dev, "spec.template.spec.containers[0].name", "base/deployment.yaml:18:11", true},
		{dev, "spec.template.spec.containers[0].ports[0].containerPort", "base/deployment.yaml:21:15", true},
		{devSvc, "spec.ports[0].targetPort", "base/service.yaml:10:7", true},
		// An absent field: its nearest present ancestor.
		{dev, "spec.template.spec.containers[0].securityContext.runAsNonRoot", "base/deployment.yaml:18:11", false},
		{dev, "spec.template.spec.containers[7]", "base/deployment.yaml:17:7", false},
		// A strategic merge patch file (the merge key stays the base's).
		{dev, "spec.template.spec.containers[0].env[0].value", "overlays/dev/replicas-patch.yaml:12:15", true},
		{dev, "spec.template.spec.containers[0].env[0].name", "base/deployment.yaml:23:15", true},
		{dev, "spec.template.spec.containers[0].resources.limits.memory", "overlays/dev/replicas-patch.yaml:15:15", true},
		{dev, "spec.template.spec.containers[0].resources", "overlays/dev/replicas-patch.yaml:13:11", true},
		// Transformers: the kustomization entry.
		{dev, "metadata.namespace", "overlays/dev/kustomization.yaml:3:1", true},
		{dev, "metadata.name", "overlays/dev/kustomization.yaml:4:1", true},
		{dev, "spec.template.spec.containers[0].image", "overlays/dev/kustomization.yaml:11:5", true},
		{dev, "spec.replicas", "overlays/dev/kustomization.yaml:14:5", true},
		{dev, "metadata.labels.app", "base/kustomization.yaml:7:3", true},
		{dev, "spec.selector.matchLabels.app", "base/kustomization.yaml:7:3", true},
		{dev, "spec.template.metadata.labels.app", "base/kustomization.yaml:7:3", true},
		{devSvc, "spec.selector.app", "base/kustomization.yaml:7:3", true},
		{devSvc, "metadata.labels", "base/kustomization.yaml:7:3", true},
		// The generator: its entry, each literal, the file, the env file line.
		{devCM, "", "overlays/dev/kustomization.yaml:16:5", true},
		{devCM, "data.LOG_LEVEL", "overlays/dev/kustomization.yaml:18:9", true},
		{devCM, "data.FEATURE_X", "overlays/dev/kustomization.yaml:19:9", true},
		{devCM, `data["settings.properties"]`, "overlays/dev/settings.properties:1:1", true},
		{devCM, "data.WORKERS", "overlays/dev/app.env:2:1", true},
		{devCM, "data.CACHE_TTL", "overlays/dev/app.env:3:3", true},
		{devCM, "metadata.name", "overlays/dev/kustomization.yaml:4:1", true},
		{devCM, "metadata.namespace", "overlays/dev/kustomization.yaml:3:1", true},
		// JSON 6902 patch operations: their value.
		{prod, "spec.replicas", "overlays/prod/json-patch.yaml:3:3", true},
		{prod, "spec.template.spec.containers[0].resources", "overlays/prod/json-patch.yaml:6:3", true},
		{prod, "spec.template.spec.containers[0].resources.limits.cpu", "overlays/prod/json-patch.yaml:8:7", true},
		{prod, "spec.template.spec.containers[0].resources.limits.memory", "overlays/prod/json-patch.yaml:9:7", true},
		{prod, "spec.template.spec.containers[0].resources.requests.cpu", "overlays/prod/json-patch.yaml:6:3", false},
		// An inline patch in the kustomization.
		{prodSvc, "spec.type", "overlays/prod/kustomization.yaml:20:9", true},
		{prodSvc, "spec.ports[0].port", "base/service.yaml:9:7", true},
		// nameSuffix, namespace, commonAnnotations, images with a new name and digest.
		{prod, "metadata.name", "overlays/prod/kustomization.yaml:4:1", true},
		{prod, "metadata.namespace", "overlays/prod/kustomization.yaml:3:1", true},
		{prod, "metadata.annotations.owner", "overlays/prod/kustomization.yaml:22:3", true},
		{prod, "spec.template.metadata.annotations.owner", "overlays/prod/kustomization.yaml:22:3", true},
		{prod, "spec.template.spec.containers[1].image", "overlays/prod/kustomization.yaml:26:5", true},
		{prod, "spec.template.spec.containers[0].image", "base/deployment.yaml:19:11", true},
		{prod, "spec.template.spec.containers[0].env[0].value", "base/deployment.yaml:24:15", true},
		// The component: its resource and its patch.
		{prodMon, "spec.endpoints[0].interval", "components/monitoring/service-monitor.yaml:11:7", true},
		{prodMon, "metadata.name", "overlays/prod/kustomization.yaml:4:1", true},
		{prod, `spec.template.metadata.annotations["prometheus.io/scrape"]`, "components/monitoring/scrape-patch.yaml:9:9", true},
		{prod, "spec.template.metadata.annotations", "components/monitoring/scrape-patch.yaml:8:7", true},
		// The Template: fields map to objects[i] in the template file.
		{tmplDeploy, "", "apps/templates/web-template.yaml:18:5", true},
		{tmplDeploy, "metadata.name", "apps/templates/web-template.yaml:21:7", true},
		{tmplDeploy, "spec.replicas", "apps/templates/web-template.yaml:25:7", true},
		{tmplDeploy, "spec.template.spec.containers[0].image", "apps/templates/web-template.yaml:30:15", true},
		{tmplDeploy, "metadata.labels.template", "apps/templates/web-template.yaml:8:3", true},
		{tmplSvc, "spec.ports[0].port", "apps/templates/web-template.yaml:17:11", true},
		{tmplSvc, "metadata.namespace", "apps/templates/web-template.yaml:12:5", false},
	}
	for _, c := range cases {
		o := object(t, res, c.o.target, c.o.kind, c.o.name)
		loc, exact := o.Locate(manifest.MustParsePath(c.path))
		got := manifest.FormatLocation(manifest.Location{File: loc.File, Line: loc.Line, Column: loc.Column})
		if got != c.want || exact != c.exact {
			t.Errorf("%s %s [%s] %q: got %s (exact %v), want %s (exact %v)", c.o.kind, c.o.name, c.o.target, c.path, got, exact, c.want, c.exact)
		}
	}
	if len(cases) < 25 {
		t.Fatalf("only %d cases", len(cases))
	}
}

// TestProvenanceSpans checks that a location covers the key and a
// single-line value, so annotations underline exactly what to edit.
func TestProvenanceSpans(t *testing.T) {
	res := renderRepo(t, "testdata/repo", fixtureOptions())
	o := object(t, res, "overlays/dev", "Deployment", "dev-web")
	loc, _ := o.Locate(manifest.MustParsePath("spec.template.spec.containers[0].image"))
	if loc.EndLine != 11 || loc.EndColumn != 19 { // newTag: "1.27"
		t.Errorf("span %+v", loc)
	}
	o = object(t, res, "overlays/prod", "Service", "web-prod")
	loc, _ = o.Locate(manifest.MustParsePath("spec.type"))
	if loc.Line != 20 || loc.Column != 9 || loc.EndColumn != 27 { // type: LoadBalancer, inside the inline patch
		t.Errorf("inline span %+v", loc)
	}
}

// TestInlinePatchForms locates fields of inline patches written as a
// single-line JSON string and as a folded block (which cannot be mapped
// line by line, so it points at the patch entry).
func TestInlinePatchForms(t *testing.T) {
	res := renderRepo(t, "testdata/inline", Options{})
	for _, p := range res.Problems {
		if p.Input {
			t.Fatalf("unexpected problem: %s", p.Error())
		}
	}
	o := object(t, res, ".", "Deployment", "app")
	for path, want := range map[string]string{
		"spec.replicas":                          "kustomization.yaml:9:58",
		"spec.template.spec.containers[0].image": "kustomization.yaml:10:5",
		"metadata.labels.team":                   "kustomization.yaml:13:7",
	} {
		loc, _ := o.Locate(manifest.MustParsePath(path))
		if got := manifest.FormatLocation(manifest.Location{File: loc.File, Line: loc.Line, Column: loc.Column}); got != want {
			t.Errorf("%s: got %s, want %s", path, got, want)
		}
	}
	if !strings.HasPrefix(object(t, res, ".", "Deployment", "app").ID.Target, ".") {
		t.Error("target name")
	}
}

// TestProvenanceThroughLayers: a diamond of bases with different prefixes,
// an inline patchesStrategicMerge with $patch: delete, labels with
// includeTemplates, a JSON patch appending to a list, and a replacement.
func TestProvenanceThroughLayers(t *testing.T) {
	res := renderRepo(t, "testdata/complex", Options{})
	for _, p := range res.Problems {
		if p.Input {
			t.Fatalf("problem %s", p.Error())
		}
	}
	for _, c := range []struct{ kind, name, path, want string }{
		{"Deployment", "a-app", "metadata.name", "mid-a/kustomization.yaml:1:1"},
		{"Deployment", "b-app", "metadata.name", "mid-b/kustomization.yaml:1:1"},
		{"Deployment", "a-app", "metadata.namespace", "top/kustomization.yaml:1:1"},
		{"Deployment", "a-app", "spec.template.spec.containers[0].env[0].value", "top/kustomization.yaml:25:13"},
		{"Deployment", "b-app", "spec.template.spec.containers[0].env[0].value", "base/app.yaml:17:15"},
		{"Deployment", "b-app", "spec.template.spec.containers[0].env[2].name", "top/kustomization.yaml:13:11"},
		{"Deployment", "b-app", "spec.template.spec.containers[0].env[2]", "top/kustomization.yaml:12:9"},
		{"Deployment", "b-app", "spec.template.metadata.labels.side", "mid-b/kustomization.yaml:6:7"},
		{"Deployment", "b-app", "spec.template.metadata.labels.role", "base/app.yaml:10:9"},
		{"ConfigMap", "b-settings", "metadata.labels.side", "mid-b/kustomization.yaml:6:7"},
		{"ConfigMap", "a-settings", "data.url", "base/app.yaml:26:3"},
	} {
		o := object(t, res, "top", c.kind, c.name)
		loc, _ := o.Locate(manifest.MustParsePath(c.path))
		if got := manifest.FormatLocation(manifest.Location{File: loc.File, Line: loc.Line, Column: loc.Column}); got != c.want {
			t.Errorf("%s %s %s: %s, want %s", c.kind, c.name, c.path, got, c.want)
		}
	}
	a := object(t, res, "top", "Deployment", "a-app")
	if env, _ := a.Get(manifest.MustParsePath("spec.template.spec.containers[0].env")); len(env.([]any)) != 1 {
		t.Errorf("$patch: delete not applied: %v", env)
	}
}

// TestProvenancePatchEdits asserts that what a patch sets, adds to a list
// or removes inside a container is located at the patch line, and what it
// leaves alone stays at the base: strategic merge scalars, a JSON patch
// add at the end of a list, a null, a $patch: delete and a JSON patch
// remove.
func TestProvenancePatchEdits(t *testing.T) {
	res := renderRepo(t, "testdata/patchline", Options{}, "overlay")
	for _, p := range res.Problems {
		if p.Input {
			t.Fatalf("problem %s", p.Error())
		}
	}
	o := object(t, res, "overlay", "Deployment", "web")
	const c0, c1 = "spec.template.spec.containers[0].", "spec.template.spec.containers[1]."
	for _, c := range []struct {
		path, want string
		exact      bool
	}{
		{c0 + "securityContext.privileged", "overlay/security.yaml:11:11", true},
		{c0 + "securityContext.runAsUser", "overlay/security.yaml:12:11", true},
		{c0 + "securityContext.capabilities.add[1]", "overlay/ops.yaml:3:3", true},
		{c0 + "resources.limits", "overlay/security.yaml:16:11", false},
		{c0 + "resources.limits.memory", "overlay/security.yaml:16:11", false},
		{c0 + "readinessProbe", "overlay/security.yaml:13:9", false},
		{c1 + "name", "overlay/ops.yaml:4:3", false},
		// Untouched by the patches: the base.
		{c0 + "securityContext.capabilities.add[0]", "base/deployment.yaml:22:19", true},
		{c0 + "securityContext.allowPrivilegeEscalation", "base/deployment.yaml:19:11", true},
		{c0 + "resources.requests.memory", "base/deployment.yaml:30:13", true},
		{c0 + "livenessProbe", "base/deployment.yaml:15:9", false},
		{c1 + "image", "base/deployment.yaml:35:9", true},
		{c0 + "name", "base/deployment.yaml:15:9", true},
	} {
		loc, exact := o.Locate(manifest.MustParsePath(c.path))
		if got := manifest.FormatLocation(manifest.Location{File: loc.File, Line: loc.Line, Column: loc.Column}); got != c.want || exact != c.exact {
			t.Errorf("%s: %s (exact %v), want %s (exact %v)", c.path, got, exact, c.want, c.exact)
		}
		// PatchedAt answers for what a patch wrote or removed, and only
		// for that.
		ploc, patched := o.PatchedAt(manifest.MustParsePath(c.path))
		if fromPatch := strings.HasPrefix(c.want, "overlay/"); patched != fromPatch || patched && ploc != loc {
			t.Errorf("%s: PatchedAt %v %v, want %v at %v", c.path, ploc, patched, fromPatch, loc)
		}
	}
}

// TestPatchedAtIsNotATransformer asserts that a field a transformer wrote
// (namePrefix, images) is not claimed as a patch's.
func TestPatchedAtIsNotATransformer(t *testing.T) {
	res := renderRepo(t, "testdata/repo", fixtureOptions())
	o := object(t, res, "overlays/dev", "Deployment", "dev-web")
	for _, p := range []string{"metadata.name", "spec.template.spec.containers[0].image", "kind"} {
		if loc, ok := o.PatchedAt(manifest.MustParsePath(p)); ok {
			t.Errorf("%s: PatchedAt %v", p, loc)
		}
	}
}
