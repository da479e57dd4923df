package hygiene

import (
	"context"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

func target(t *testing.T, name string, files map[string]string) *render.Target {
	t.Helper()
	tg := &render.Target{Name: name, Kind: render.KindPlain}
	for _, file := range []string{"a.yaml", "b.yaml"} {
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

func TestDuplicateObjects(t *testing.T) {
	tg := target(t, "apps/web", map[string]string{
		"a.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: shop}\n",
		// Same group, kind, namespace and name under another version: the same object.
		"b.yaml": "# copy\napiVersion: apps/v1beta2\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: web, namespace: other}\n",
	})
	// The same object in another target is not a duplicate.
	other := target(t, "apps/web-copy", map[string]string{"a.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n"})
	out, err := Analyzer{}.Analyze(context.Background(), &analyzer.Input{Targets: []*render.Target{tg, other}})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) != 1 {
		t.Fatalf("findings = %v", out.Findings)
	}
	f := out.Findings[0]
	if f.RuleID != manifest.RuleDuplicateObject || f.Level != finding.Error || f.Location.File != "b.yaml" || f.Location.Line != 2 ||
		f.Related[0].File != "a.yaml" || f.Related[0].Line != 1 || f.Fingerprint == "" {
		t.Errorf("finding = %+v", f)
	}
	if !strings.HasPrefix(f.Message, "Deployment shop/web is defined twice in target apps/web (first at a.yaml:1:1)") {
		t.Errorf("message = %q", f.Message)
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
