package compare

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// checkInput renders the testdata inputs the way plumb check does (one
// target per directory, provenance from the documents).
func checkInput(t *testing.T, dirs ...string) *analyzer.Input {
	t.Helper()
	fsys := os.DirFS("testdata")
	set := manifest.Load(fsys, dirs, manifest.LoadOptions{})
	if len(set.Problems) > 0 {
		t.Fatal(set.Problems)
	}
	res := render.Render(context.Background(), fsys, set, render.Options{})
	return &analyzer.Input{Targets: res.Targets}
}

func analyze(t *testing.T, a *Analyzer, in *analyzer.Input) *analyzer.Output {
	t.Helper()
	out, err := a.Analyze(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func findingsOf(out *analyzer.Output, rule string) []finding.Finding {
	var fs []finding.Finding
	for _, f := range out.Findings {
		if f.RuleID == rule {
			fs = append(fs, f)
		}
	}
	return fs
}

func TestAnalyzerFindings(t *testing.T) {
	a, setup := NewAnalyzer(Setup{Reference: "testdata/ref", ReferenceDisplay: "testdata/ref",
		Overrides: "testdata/overrides.yaml", OverridesDisplay: "testdata/overrides.yaml"})
	if len(setup) != 0 {
		t.Fatalf("setup findings: %v", setup)
	}
	out := analyze(t, a, checkInput(t, "inputs"))

	drift := findingsOf(out, RuleDrift)
	if len(drift) != 2 {
		t.Fatalf("drift findings: %v", drift)
	}
	d := drift[0]
	if d.Object.Kind != "Deployment" {
		d = drift[1]
	}
	// The drifted field is reported at the line that sets it.
	if d.Location.File != "inputs/frontend.yaml" || d.Location.Line != 10 || d.Location.Column != 5 ||
		d.Path.String() != "spec.strategy.type" || d.Object.Target != "inputs" || d.Level != finding.Error {
		t.Errorf("drift finding %+v", d)
	}
	if d.Message != "Deployment shop/frontend: spec.strategy.type is Recreate, the reference template frontend/deployment.yaml expects RollingUpdate" {
		t.Errorf("message %q", d.Message)
	}
	wantDiff := "--- reference/frontend/deployment.yaml\n+++ inputs/frontend.yaml\n@@ -6,7 +6,7 @@\n spec:\n   replicas: 3\n   strategy:\n-    type: RollingUpdate\n+    type: Recreate\n   template:\n     spec:\n       containers:\n"
	if d.Diff != wantDiff {
		t.Errorf("diff:\n%s\nwant:\n%s", d.Diff, wantDiff)
	}
	if d.Fingerprint == "" || d.Source != finding.SourceCompare {
		t.Error("fingerprint and source are set")
	}

	missing := findingsOf(out, RuleMissing)
	if len(missing) != 2 {
		t.Fatalf("missing findings: %v", missing)
	}
	for _, m := range missing {
		switch {
		case strings.Contains(m.Message, "pdb.yaml"):
			if m.Location != loc("testdata/ref/metadata.yaml", 14) || m.Object.Kind != "PodDisruptionBudget" || m.Object.Name != "frontend" || m.Object.Target != "inputs" ||
				!strings.Contains(m.Message, "part apps, component frontend") || !strings.Contains(m.Help, "Keeps the frontend serving") {
				t.Errorf("missing pdb: %+v", m)
			}
		case strings.HasPrefix(m.Message, MsgOneRequired):
			if m.Location.Line != 16 || !strings.Contains(m.Message, "cache/redis.yaml, cache/memcached.yaml") {
				t.Errorf("oneOf: %+v", m)
			}
		default:
			t.Errorf("unexpected %v", m)
		}
	}
	validation := findingsOf(out, RuleValidation)
	if len(validation) != 1 || validation[0].Location.File != "inputs/platform.yaml" || validation[0].Location.Line != 21 ||
		!strings.HasPrefix(validation[0].Message, MsgNoneOf) {
		t.Errorf("noneOf findings: %v", validation)
	}
	unmatched := findingsOf(out, RuleUnmatched)
	if len(unmatched) != 1 || unmatched[0].Level != finding.Note || unmatched[0].Location.Line != 27 {
		t.Errorf("unmatched: %v", unmatched)
	}

	// The section is kube-compare's JSON shape, per target.
	section, ok := out.Section.(map[string]*Output)
	if !ok || section["inputs"] == nil {
		t.Fatalf("section %T", out.Section)
	}
	data, err := json.Marshal(out.Section)
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, string(data), `{"inputs":{"Summary":{"ValidationIssuses":`, `"NumDiffCRs":2`, `"patchedCRs":1`)
	if len(out.Rules) != len(Rules()) {
		t.Error("rules described")
	}
}

func TestDriftFieldAttribution(t *testing.T) {
	ref := mustLoad(t, v2Ref("allOf", map[string]string{"cm.yaml": `
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  config: |
    line one
    line two
    line three
  gone: value
  scalar: a
  long: one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen end
  list:
  - a
  - b
`}, "cm.yaml"))
	docs, _ := manifest.Parse("app/cm.yaml", []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  config: |
    line one
    line 2
    line three
  scalar: b
  long: one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen END
  extra:
    nested: true
    more: 1
  list:
  - a
  - c
  - d
`), manifest.Limits{})
	objs, _ := docs[0].Objects("app")
	out := analyze(t, &Analyzer{Ref: ref}, &analyzer.Input{Targets: []*render.Target{{Name: "app", Objects: objs}}})
	got := map[string]string{}
	for _, f := range findingsOf(out, RuleDrift) {
		got[f.Path.String()] = manifest.FormatLocation(f.Location) + " " + f.Message
		// A long string is folded, as kube-compare prints it: only the
		// line holding the change differs, and it is the field's.
		if f.Path.String() == "data.long" && !strings.Contains(f.Diff, "   long: one two three four five six seven eight nine ten eleven twelve thirteen fourteen\n-    fifteen end\n") {
			t.Errorf("diff of the folded string:\n%s", f.Diff)
		}
	}
	want := map[string]string{
		"data.config":  "app/cm.yaml:6:3 ConfigMap cm: data.config differs from the reference template cm.yaml",
		"data.long":    "app/cm.yaml:11:3 ConfigMap cm: data.long differs from the reference template cm.yaml",
		"data.extra":   "app/cm.yaml:12:3 ConfigMap cm: data.extra is not in the reference template cm.yaml",
		"data.gone":    "app/cm.yaml:5:1 ConfigMap cm: data.gone is missing; the reference template cm.yaml expects it",
		"data.scalar":  "app/cm.yaml:10:3 ConfigMap cm: data.scalar is b, the reference template cm.yaml expects a",
		"data.list[1]": "app/cm.yaml:17:5 ConfigMap cm: data.list[1] is c, the reference template cm.yaml expects b",
		"data.list[2]": "app/cm.yaml:18:5 ConfigMap cm: data.list[2] is not in the reference template cm.yaml",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q\n want %q", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected finding at %s: %s", k, got[k])
		}
	}
}

func TestAnalyzerSetupProblems(t *testing.T) {
	a, fs := NewAnalyzer(Setup{Reference: "testdata/nope", ReferenceDisplay: "testdata/nope"})
	if len(fs) != 1 || !fs[0].InputError || fs[0].RuleID != RuleReference || fs[0].Location.File != "testdata/nope" {
		t.Fatalf("findings %v", fs)
	}
	out := analyze(t, a, checkInput(t, "inputs"))
	if len(out.Findings) != 0 || out.Section != nil || len(out.Rules) == 0 {
		t.Errorf("an unusable reference compares nothing but describes its rules: %+v", out)
	}
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/diff.yaml", []byte("correlationSettings:\n  manualCorrelation:\n    correlationPairs:\n      v1_X_y: nope.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, fs = NewAnalyzer(Setup{Reference: "testdata/ref/metadata.yaml", ReferenceDisplay: "testdata/ref/metadata.yaml", DiffConfig: dir + "/diff.yaml", DiffConfigDisplay: "diff.yaml"})
	if len(fs) != 1 || !fs[0].InputError || fs[0].Location != (manifest.Location{File: "diff.yaml", Line: 4, Column: 7}) {
		t.Errorf("diff config problems: %v", fs)
	}
}

func TestAnalyzerTargetsAndTemplateErrors(t *testing.T) {
	ref := mustLoad(t, v2Ref("anyOf", map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  n: {{ .data.n.deeper }}\n"}, "cm.yaml"))
	mk := func(target, n string) *render.Target {
		docs, _ := manifest.Parse(target+"/cm.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  n: "+n+"\n"), manifest.Limits{})
		objs, _ := docs[0].Objects(target)
		return &render.Target{Name: target, Objects: objs}
	}
	in := &analyzer.Input{Targets: []*render.Target{mk("overlays/prod", "null"), mk("overlays/dev", "null"), mk("base", "null")}}
	out := analyze(t, &Analyzer{Ref: ref, Targets: []string{"overlays/*"}}, in)
	section := out.Section.(map[string]*Output)
	if len(section) != 2 || section["base"] != nil {
		t.Errorf("targets compared: %v", section)
	}
	errs := findingsOf(out, RuleReference)
	if len(errs) != 2 || !errs[0].InputError || errs[0].Location.File != "ref/cm.yaml" || errs[0].Location.Line != 6 ||
		!strings.Contains(errs[0].Message, "template injection failed: cm.yaml on v1_ConfigMap_cm (overlays/") {
		t.Errorf("template failures: %v", errs)
	}
	if errs[0].Fingerprint == errs[1].Fingerprint {
		t.Error("failures in two targets need distinct fingerprints")
	}
}
