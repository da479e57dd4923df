package manifest

import (
	"testing"
)

func objectsOf(t *testing.T, src string) ([]*Object, []Problem) {
	t.Helper()
	docs, problems := Parse("f.yaml", []byte(src), DefaultLimits)
	if len(problems) != 0 {
		t.Fatalf("parse problems: %v", problems)
	}
	var objs []*Object
	for _, d := range docs {
		o, p := d.Objects("t")
		objs = append(objs, o...)
		problems = append(problems, p...)
	}
	return objs, problems
}

func TestClassifyHygieneProblems(t *testing.T) {
	objs, problems := objectsOf(t, `kind: CronJob
metadata:
  name: report
---
apiVersion: v1
metadata:
  name: nokind
---
apiVersion: v1
kind: ConfigMap
metadata:
  namespace: x
---
apiVersion: v1
kind: Secret
---
just: data
---
- a list
`)
	want := []struct {
		rule      string
		level     string
		line, col int
	}{
		{RuleMissingAPI, "error", 1, 1},
		{RuleMissingKind, "error", 5, 1},
		{RuleMissingName, "error", 11, 1},
		{RuleMissingName, "error", 15, 1}, // no metadata at all: points at kind
		// "just: data" and "- a list" are not objects: skipped, no finding.
	}
	if len(problems) != len(want) {
		t.Fatalf("problems = %v", problems)
	}
	for i, w := range want {
		p := problems[i]
		if p.Rule != w.rule || p.Level != w.level || p.Location.Line != w.line || p.Location.Column != w.col || p.Input {
			t.Errorf("problem %d = %+v, want %s %s at %d:%d", i, p, w.rule, w.level, w.line, w.col)
		}
	}
	// Objects with a kind are still analysed; the document without a kind is not.
	if len(objs) != 3 {
		t.Errorf("objects = %d, want 3", len(objs))
	}
}

func TestClassifyListItems(t *testing.T) {
	objs, problems := objectsOf(t, `apiVersion: v1
kind: List
items:
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: a
  - apiVersion: v1
    kind: ConfigMap
    metadata:
      name: b
    data:
      k: v
`)
	if len(problems) != 0 || len(objs) != 2 {
		t.Fatalf("objects=%d problems=%v", len(objs), problems)
	}
	if objs[1].ID != (ObjectID{APIVersion: "v1", Kind: "ConfigMap", Name: "b", Target: "t"}) {
		t.Errorf("id = %+v", objs[1].ID)
	}
	// Paths of an item are relative to the item.
	if loc, exact := objs[1].Locate(MustParsePath("data.k")); !exact || loc.Line != 13 || loc.Column != 7 {
		t.Errorf("Locate(data.k) = %+v %v", loc, exact)
	}
	if loc, _ := objs[1].Locate(nil); loc.Line != 8 || loc.Column != 5 {
		t.Errorf("item start = %+v", loc)
	}
}

func TestKustomizeConfigIsNotAnObject(t *testing.T) {
	docs, _ := Parse("apps/web/kustomization.yaml", []byte("resources: [a.yaml]\n"), DefaultLimits)
	if !docs[0].IsKustomizeConfig() {
		t.Error("kustomization.yaml not recognised")
	}
	docs, _ = Parse("apps/web/component.yaml", []byte("apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n"), DefaultLimits)
	if !docs[0].IsKustomizeConfig() {
		t.Error("a Component not recognised")
	}
}

func TestObjectAccessors(t *testing.T) {
	objs, _ := objectsOf(t, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app: web, n: 3}
  annotations: {a: b}
spec:
  replicas: 2
`)
	o := objs[0]
	if o.ID.Group() != "apps" || o.ID.String() != "Deployment shop/web [t]" {
		t.Errorf("id = %v group %q", o.ID, o.ID.Group())
	}
	if l := o.Labels(); len(l) != 1 || l["app"] != "web" {
		t.Errorf("labels = %v (non-string values are dropped)", l)
	}
	if v, ok := o.Get(MustParsePath("spec.replicas")); !ok || v != int64(2) {
		t.Errorf("Get(spec.replicas) = %v %v", v, ok)
	}
	if _, ok := o.Get(MustParsePath("spec.replicas[0]")); ok {
		t.Error("indexing a scalar should fail")
	}
}

func TestMaskSecrets(t *testing.T) {
	objs, _ := objectsOf(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata:\n  password: aHVudGVyMg==\nstringData:\n  token: hunter2\n")
	masked := MaskSecretContent(objs[0].Content)
	if masked["data"].(map[string]any)["password"] != Redacted || masked["stringData"].(map[string]any)["token"] != Redacted {
		t.Errorf("masked = %v", masked)
	}
	if objs[0].Content["stringData"].(map[string]any)["token"] != "hunter2" {
		t.Error("masking modified the original")
	}
	n, ok := MaskSecretNode(objs[0].Content, objs[0].Node)
	if !ok || n == objs[0].Node || n.Content[7].Content[1].Value != Redacted || objs[0].Node.Content[7].Content[1].Value != "aHVudGVyMg==" {
		t.Error("node masking is wrong or modified the original")
	}
}

// TestClassifyMessages: each message says what to write, at the line to
// change.
func TestClassifyMessages(t *testing.T) {
	for _, c := range []struct {
		src, rule, at, message string
	}{
		{"kind: CronJob\nmetadata: {name: r}\n", RuleMissingAPI, "f.yaml:1:1",
			"kind CronJob has no apiVersion: add apiVersion: batch/v1"},
		{"kind: Widget\nmetadata: {name: w}\n", RuleMissingAPI, "f.yaml:1:1",
			"kind Widget has no apiVersion: add the apiVersion of its API group (for example apps/v1 for a Deployment)"},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 2024\n", RuleMissingName, "f.yaml:4:3",
			`ConfigMap has metadata.name the number 2024, not a string: quote it (name: "2024")`},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [a, b]\n", RuleMissingName, "f.yaml:4:3",
			"ConfigMap has metadata.name a list, not a string: write the name"},
		{"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: x\n", RuleMissingName, "f.yaml:3:1",
			"ConfigMap has no metadata.name: every object needs a name"},
		{"kind: \"\"\nmetadata: {name: z}\n", RuleMissingKind, "f.yaml:1:1",
			"kind is empty, not the name of a kind: write the kind (for example kind: Deployment)"},
		{"apiVersion: v1\nkind: 5\nmetadata: {name: z}\n", RuleMissingKind, "f.yaml:2:1",
			"kind is the number 5, not the name of a kind: write the kind (for example kind: Deployment)"},
		{"apiVersion: v1\nmetadata: {name: z}\n", RuleMissingKind, "f.yaml:1:1",
			"the object has apiVersion but no kind: add kind (for example kind: Deployment)"},
	} {
		_, problems := objectsOf(t, c.src)
		if len(problems) != 1 {
			t.Errorf("%q: problems %v, want one", c.src, problems)
			continue
		}
		p := problems[0]
		if p.Rule != c.rule || FormatLocation(Location{File: p.Location.File, Line: p.Location.Line, Column: p.Location.Column}) != c.at || p.Message != c.message {
			t.Errorf("%q:\n got %s %s: %s\nwant %s %s: %s", c.src, p.Rule, FormatLocation(p.Location), p.Message, c.rule, c.at, c.message)
		}
	}
}
