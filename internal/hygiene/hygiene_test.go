package hygiene

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

func target(t *testing.T, name string, files map[string]string) *render.Target {
	t.Helper()
	tg := &render.Target{Name: name, Kind: render.KindPlain}
	for _, file := range []string{"a.yaml", "b.yaml", "c.yaml"} {
		src, ok := files[file]
		if !ok {
			continue
		}
		docs, problems := manifest.Parse(file, []byte(src), manifest.DefaultLimits)
		if len(problems) > 0 {
			t.Fatal(problems)
		}
		for _, d := range docs {
			objs, _ := d.Objects(name)
			tg.Objects = append(tg.Objects, objs...)
		}
	}
	return tg
}

func analyze(t *testing.T, targets ...*render.Target) []string {
	t.Helper()
	out, err := Analyzer{}.Analyze(context.Background(), &analyzer.Input{Targets: targets})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range out.Findings {
		if f.RuleID != manifest.RuleDuplicateObject || f.Fingerprint == "" {
			t.Errorf("finding %+v", f)
		}
		got = append(got, fmt.Sprintf("%s %s:%d (%s:%d) %s", f.Level, f.Location.File, f.Location.Line, f.Related[0].File, f.Related[0].Line, f.Message))
	}
	return got
}

const (
	deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n"
	configMap  = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: shop}\n"
)

// One file that defines an object twice is an error: applying it makes
// one definition replace the other.
func TestDuplicateObjectsInOneFile(t *testing.T) {
	tg := target(t, "apps/web", map[string]string{
		// Same group, kind, namespace and name under another version: the same object.
		"a.yaml": deployment + "---\n" + configMap + "---\n# copy\napiVersion: apps/v1beta2\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n",
	})
	// The same object in another target is not a duplicate.
	other := target(t, "apps/web-copy", map[string]string{"a.yaml": deployment})
	got := analyze(t, tg, other)
	want := []string{"error a.yaml:10 (a.yaml:1) Deployment shop/web is defined twice in target apps/web (first at a.yaml:1:1); applying both makes one silently replace the other"}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Files of a plain directory are often alternatives (install.yaml beside
// install-ha.yaml): a duplicate across them is one note per file, counting
// the other objects the two share, unless .plumb.yaml declares the
// directory a target. In a kustomize build every duplicate is an error.
func TestDuplicateObjectsAcrossFiles(t *testing.T) {
	files := map[string]string{
		"a.yaml": deployment + "---\n" + configMap,
		"b.yaml": "# the HA variant\n" + deployment + "---\n" + configMap,
		"c.yaml": configMap,
	}
	got := analyze(t, target(t, "apps/web", files))
	want := []string{
		"note b.yaml:2 (a.yaml:1) Deployment shop/web (and 1 object more the two define alike) is also defined in a.yaml:1:1: " +
			"applying directory apps/web as a whole would make one replace the other. Nothing to do if the files are alternatives; " +
			"list the directory under targets in .plumb.yaml to make this an error",
		"note c.yaml:1 (a.yaml:5) ConfigMap shop/web is also defined in a.yaml:5:1: applying directory apps/web as a whole would " +
			"make one replace the other. Nothing to do if the files are alternatives; list the directory under targets in .plumb.yaml to make this an error",
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	declared := target(t, "apps/web", files)
	declared.Declared = true
	built := target(t, "apps/web", files)
	built.Kind = render.KindKustomize
	for _, tg := range []*render.Target{declared, built} {
		got := analyze(t, tg)
		if len(got) != 3 || !strings.HasPrefix(got[0], "error b.yaml:2 (a.yaml:1) Deployment shop/web is defined twice") ||
			!strings.HasPrefix(got[2], "error c.yaml:1 (a.yaml:5) ConfigMap shop/web is defined twice") {
			t.Errorf("%s (declared %v): %s", tg.Kind, tg.Declared, strings.Join(got, "\n"))
		}
	}
}

// The objects of one OpenShift Template collide; two Templates of one
// directory (the ephemeral and persistent variants) are alternatives.
func TestDuplicateObjectsOfTemplates(t *testing.T) {
	tg := target(t, "templates", map[string]string{"a.yaml": deployment + "---\n" + configMap, "b.yaml": deployment + "---\n" + configMap})
	objs := tg.Objects
	tmplA := &render.Template{Object: objs[0], Objects: []*manifest.Object{objs[0], objs[1]}}
	tmplB := &render.Template{Object: objs[2], Objects: []*manifest.Object{objs[2], objs[3]}}
	tg.Templates = []*render.Template{tmplA, tmplB}
	got := analyze(t, tg)
	if len(got) != 1 || !strings.HasPrefix(got[0], "note b.yaml:1 (a.yaml:1) Deployment shop/web (and 1 object more the two define alike)") {
		t.Errorf("two templates: %s", strings.Join(got, "\n"))
	}
	tmplA.Objects = append(tmplA.Objects, objs[2])
	tmplB.Objects = tmplB.Objects[1:]
	got = analyze(t, tg)
	if len(got) != 2 || !strings.HasPrefix(got[0], "error b.yaml:1 (a.yaml:1) Deployment shop/web is defined twice") ||
		!strings.HasPrefix(got[1], "note b.yaml:5 (a.yaml:5) ConfigMap shop/web is also defined") {
		t.Errorf("one template defining an object twice: %s", strings.Join(got, "\n"))
	}
}

func TestEveryRuleHasHelp(t *testing.T) {
	for _, r := range Rules() {
		if r.Help == "" || r.Name == "" {
			t.Errorf("rule %s lacks help or name", r.ID)
		}
	}
}

func TestFromProblem(t *testing.T) {
	p := manifest.Problem{Rule: manifest.RuleDuplicateKey, Level: "error", Input: true, Key: "doc0:k",
		Location: manifest.Location{File: "a.yaml", Line: 3, Column: 1}, Related: []manifest.Location{{File: "a.yaml", Line: 2}}}
	f := FromProblem(p)
	if !f.InputError || f.Title != "Duplicate mapping key" || f.Help == "" || len(f.Related) != 1 || f.Fingerprint == "" {
		t.Errorf("finding = %+v", f)
	}
	moved := p
	moved.Location.Line = 30
	if FromProblem(moved).Fingerprint != f.Fingerprint {
		t.Error("the fingerprint depends on the line")
	}
}

// TestThirdCopyHasItsOwnFingerprint: every extra copy of an object is a
// finding, and no two findings share a fingerprint.
func TestThirdCopyHasItsOwnFingerprint(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
	tg := target(t, "apps", map[string]string{"a.yaml": cm + "---\n" + cm, "b.yaml": cm})
	out, err := Analyzer{}.Analyze(context.Background(), &analyzer.Input{Targets: []*render.Target{tg}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) != 2 {
		t.Fatalf("findings = %v", out.Findings)
	}
	if out.Findings[0].Fingerprint == out.Findings[1].Fingerprint {
		t.Error("the second and third copies share a fingerprint")
	}
	for _, f := range out.Findings {
		if f.Related[0].File != "a.yaml" || f.Related[0].Line != 1 {
			t.Errorf("related %+v, want the first definition", f.Related)
		}
	}
}
