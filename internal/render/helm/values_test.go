package helm

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// ReadValues reads values as Helm does — a key written twice keeps its
// last value, nested mappings are replaced, not merged — and finds each
// key written twice, at the later one, in every document and mapping.
func TestReadValuesDuplicates(t *testing.T) {
	text := "a: 1\nb:\n  c: 1\n  c: 2\n  c: 3\nd: {p: 1}\nd: {q: 2}\nbase: &b {k: 1}\nm:\n  <<: *b\n  k: 2\na: 4\n---\ne: 1\ne: 2\n"
	v, err := ReadValues("v.yaml", []byte(text), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Values; got["a"] != float64(4) && got["a"] != 4 || got["b"].(map[string]any)["c"] == nil || got["e"] == nil {
		t.Errorf("values %v", got)
	}
	if d := v.Values["d"].(map[string]any); d["p"] != nil || d["q"] == nil {
		t.Errorf("d is %v, want {q: 2} (the last mapping, not merged)", d)
	}
	var got []string
	for _, p := range v.DuplicateProblems(nil) {
		if p.Level != "warning" || p.Rule != RuleDuplicateKey || len(p.Related) != 1 {
			t.Errorf("problem %+v", p)
		}
		got = append(got, manifest.FormatLocation(p.Location)+" "+p.Key+" "+p.Message)
	}
	want := []string{
		`v.yaml:4:3 doc0:b.c duplicate key "c" (first defined at line 3): Helm keeps only the last value and never uses the first; keep one of them`,
		`v.yaml:5:3 doc0:b.c#2 duplicate key "c" (first defined at line 3): Helm keeps only the last value and never uses the first; keep one of them`,
		`v.yaml:7:1 doc0:d duplicate key "d" (first defined at line 6): Helm keeps only the last value and never uses the first; keep one of them`,
		`v.yaml:12:1 doc0:a duplicate key "a" (first defined at line 1): Helm keeps only the last value and never uses the first; keep one of them`,
		`v.yaml:15:1 doc1:e duplicate key "e" (first defined at line 14): Helm keeps only the last value and never uses the first; keep one of them`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("duplicates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// What Helm cannot read is an error at its line, never empty values.
func TestReadValuesErrors(t *testing.T) {
	for text, want := range map[string]string{
		"a: [1\n":         "v.yaml:2:1: YAML syntax error",
		"- a\n":           "failed to parse v.yaml",
		"a: &A {b: *A}\n": "v.yaml:1:4: nesting is deeper than 500 levels",
	} {
		v, err := ReadValues("v.yaml", []byte(text), manifest.Limits{})
		msg := fmt.Sprint(err)
		var fe *FileError
		if errors.As(err, &fe) {
			msg = manifest.FormatLocation(fe.At) + ": " + fe.Err
		}
		if err == nil || !strings.HasPrefix(msg, want) {
			t.Errorf("%q: values %v, error %s; want %q", text, v, msg, want)
		}
	}
}

// A chart's own values.yaml and a values file given are reported, once
// each; a file the manifest loader read (Reported) is left to it.
func TestRenderReportsDuplicateValues(t *testing.T) {
	fsys := fstest.MapFS{
		"c/Chart.yaml":        {Data: []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n")},
		"c/values.yaml":       {Data: []byte("x: 1\nx: 2\n")},
		"c/templates/cm.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  x: {{ .Values.x | quote }}\n")},
		"v/prod.yaml":         {Data: []byte("x: 3\nx: 4\n")},
		"v/loaded.yaml":       {Data: []byte("x: 5\nx: 6\n")},
	}
	ch, err := LoadChart(fsys, "c", manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRenderer(fsys, manifest.Limits{})
	r.Reported = func(f string) bool { return f == "v/loaded.yaml" }
	out := r.Render(ch, Request{Target: "c", KubeVersion: "v1.37.0", Sources: []Source{{File: "v/prod.yaml"}, {File: "v/loaded.yaml"}}})
	var got []string
	for _, p := range out.Problems {
		got = append(got, p.Error())
	}
	want := "v/prod.yaml:2:1: duplicate key \"x\" (first defined at line 1): Helm keeps only the last value and never uses the first; keep one of them\n" +
		"c/values.yaml:2:1: duplicate key \"x\" (first defined at line 1): Helm keeps only the last value and never uses the first; keep one of them"
	if strings.Join(got, "\n") != want || len(out.Objects) != 1 {
		t.Errorf("problems:\n%s\nwant:\n%s\n(%d objects)", strings.Join(got, "\n"), want, len(out.Objects))
	}
	if x, _ := out.Objects[0].Get(manifest.MustParsePath("data.x")); x != "6" {
		t.Errorf("data.x = %v, want the last value of the last file", x)
	}
}
