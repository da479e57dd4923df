package finding

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

func TestFingerprintIgnoresLocation(t *testing.T) {
	obj := ObjectID{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web", Target: "apps/web"}
	a := Finding{RuleID: "check/X", Object: obj, Path: manifest.MustParsePath("spec.replicas"), Location: Location{File: "a.yaml", Line: 3}}
	b := a
	b.Location = Location{File: "a.yaml", Line: 30, Column: 7}
	a.SetFingerprint()
	b.SetFingerprint()
	if a.Fingerprint != b.Fingerprint || len(a.Fingerprint) != 32 {
		t.Fatalf("fingerprints differ across line moves: %s %s", a.Fingerprint, b.Fingerprint)
	}
	for name, change := range map[string]func(*Finding){
		"rule":   func(f *Finding) { f.RuleID = "check/Y" },
		"target": func(f *Finding) { f.Object.Target = "apps/api" },
		"path":   func(f *Finding) { f.Path = manifest.MustParsePath("spec.template") },
		"key":    func(f *Finding) { f.Key = "expectation-2" },
	} {
		c := a
		change(&c)
		c.SetFingerprint()
		if c.Fingerprint == a.Fingerprint {
			t.Errorf("changing the %s does not change the fingerprint", name)
		}
	}
	// Findings about a file (no object) are told apart by the file.
	f1 := Finding{RuleID: "manifest/yaml-syntax", Location: Location{File: "a.yaml", Line: 1}}
	f2 := Finding{RuleID: "manifest/yaml-syntax", Location: Location{File: "b.yaml", Line: 1}}
	f1.SetFingerprint()
	f2.SetFingerprint()
	if f1.Fingerprint == f2.Fingerprint {
		t.Error("file-level findings of two files share a fingerprint")
	}
}

func TestSortIsTotal(t *testing.T) {
	mk := func(file string, line int, level Level, rule, msg string) Finding {
		f := Finding{RuleID: rule, Level: level, Message: msg, Location: Location{File: file, Line: line}}
		f.SetFingerprint()
		return f
	}
	want := []Finding{
		mk("a.yaml", 1, Error, "r/a", "m"),
		mk("a.yaml", 1, Warning, "r/a", "m"),
		mk("a.yaml", 1, Warning, "r/b", "m"),
		mk("a.yaml", 2, Note, "r/a", "a"),
		mk("a.yaml", 2, Note, "r/a", "b"),
		mk("b.yaml", 1, Error, "r/a", "m"),
	}
	for i := 0; i < 20; i++ {
		got := slices.Clone(want)
		// A deterministic shuffle.
		for j := range got {
			k := (j*7 + i) % len(got)
			got[j], got[k] = got[k], got[j]
		}
		Sort(got)
		for j := range got {
			if got[j].Message != want[j].Message || got[j].Location != want[j].Location || got[j].Level != want[j].Level || got[j].RuleID != want[j].RuleID {
				t.Fatalf("order %d: got %v", i, got)
			}
		}
	}
}

func TestLevelJSON(t *testing.T) {
	b, err := json.Marshal(struct{ L Level }{Warning})
	if err != nil || string(b) != `{"L":"warning"}` {
		t.Fatalf("%s %v", b, err)
	}
	var v struct{ L Level }
	if err := json.Unmarshal([]byte(`{"L":"note"}`), &v); err != nil || v.L != Note {
		t.Fatalf("%v %v", v, err)
	}
	if err := json.Unmarshal([]byte(`{"L":"fatal"}`), &v); err == nil {
		t.Fatal("an unknown level should not parse")
	}
	if !Error.AtLeast(Warning) || Note.AtLeast(Warning) {
		t.Error("AtLeast is wrong")
	}
}

func TestFindingJSONKeys(t *testing.T) {
	f := Finding{Source: SourceCheck, RuleID: "check/X", Level: Error, Message: "m",
		Object: ObjectID{Kind: "Pod", Name: "p"}, Path: manifest.MustParsePath(`metadata.labels["a.b"]`),
		Location: Location{File: "f.yaml", Line: 2, Column: 3}, Key: "hidden"}
	f.SetFingerprint()
	b, _ := json.Marshal(f)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"fingerprint", "source", "rule_id", "level", "message", "object", "path", "location"} {
		if _, ok := m[k]; !ok {
			t.Errorf("missing key %q in %s", k, b)
		}
	}
	if m["path"] != `metadata.labels["a.b"]` {
		t.Errorf("path = %v", m["path"])
	}
	if _, ok := m["Key"]; ok {
		t.Error("Key must not be serialised")
	}
}
