package compare

import (
	"strings"
	"testing"
	"text/template"

	"github.com/plumb-ci/plumb/internal/value"
)

func TestOmitFields(t *testing.T) {
	obj := map[string]any{
		"metadata": map[string]any{
			"name":        "x",
			"annotations": map[string]any{"only": "one"},
			"labels":      map[string]any{"team.io/a": "1", "team.io/b": "2", "keep": "3"},
		},
		"spec":   map[string]any{"list": []any{map[string]any{"x": int64(1)}}, "empty": map[string]any{}},
		"status": map[string]any{"phase": "Ready"},
	}
	paths := []omitPath{
		{segs: []string{"metadata", "annotations", "only"}},
		{segs: []string{"metadata", "labels", "team.io/"}, prefix: true},
		{segs: []string{"spec", "list", "0", "x"}}, // lists are not traversed
		{segs: []string{"status"}},
		{segs: []string{"not", "there"}},
	}
	omitFields(obj, paths)
	want := map[string]any{
		"metadata": map[string]any{"name": "x", "labels": map[string]any{"keep": "3"}},
		"spec":     map[string]any{"list": []any{map[string]any{"x": int64(1)}}, "empty": map[string]any{}},
	}
	if !value.Equal(obj, want) {
		t.Errorf("got %v\nwant %v", obj, want)
	}
	// Removing the last field prunes every parent the removal emptied.
	obj = map[string]any{"metadata": map[string]any{"annotations": map[string]any{"a": "1"}}, "kind": "K"}
	omitFields(obj, []omitPath{{segs: []string{"metadata", "annotations", "a"}}})
	if !value.Equal(obj, map[string]any{"kind": "K"}) {
		t.Errorf("not pruned: %v", obj)
	}
}

func execTemplate(t *testing.T, text string, data any) (string, error) {
	t.Helper()
	tmpl, err := template.New("t").Funcs(funcMap(&lookupFuncs{}, false)).Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	err = tmpl.Execute(&b, data)
	return b.String(), err
}

func TestHelperFunctions(t *testing.T) {
	data := map[string]any{"spec": map[string]any{"b": "true", "a": []any{int64(1), "x"}, "n": int64(7)}}
	cases := map[string]string{
		`{{ .spec | toYaml }}`:                      "a:\n- 1\n- x\nb: \"true\"\n\"n\": 7",
		`{{ .spec | toJson }}`:                      `{"a":[1,"x"],"b":"true","n":7}`,
		`{{ (fromYaml "a: 1\nb: [x]").b }}`:         "[x]",
		`{{ (fromYaml "a: [").Error }}`:             "line 1: YAML syntax error: did not find expected node content",
		`{{ (fromYaml "- 1").Error }}`:              "the YAML is a list, not a mapping",
		`{{ index (fromYamlArray "- a\n- b") 1 }}`:  "b",
		`{{ (fromJson "{\"a\": 2}").a }}`:           "2",
		`{{ (fromJson "[").Error }}`:                "unexpected EOF",
		`{{ len (fromJsonArray "[1,2,3]") }}`:       "3",
		`{{ toToml (dict "a" 1) }}`:                 "a = 1\n",
		`{{ list "b" "a" | sortAlpha | join "," }}`: "a,b",
		`{{ len (until 3) }} {{ repeat 2 "ab" }}`:   "3 abab",
	}
	for text, want := range cases {
		got, err := execTemplate(t, text, data)
		if err != nil {
			t.Errorf("%s: %v", text, err)
			continue
		}
		if want != "" && got != want {
			t.Errorf("%s = %q, want %q", text, got, want)
		}
	}
	for _, text := range []string{`{{ until 1000000 }}`, `{{ untilStep 0 10000000 1 }}`, `{{ repeat 10000000 "x" }}`, `{{ seq 1 1000000 }}`} {
		if _, err := execTemplate(t, text, nil); err == nil || !strings.Contains(err.Error(), "limited") && !strings.Contains(err.Error(), "exceed") {
			t.Errorf("%s: %v (want a size limit error)", text, err)
		}
	}
}

func TestRenderTemplateStripsNoValue(t *testing.T) {
	tmpl := template.Must(template.New("t.yaml").Funcs(funcMap(nil, false)).Parse("kind: K\nmissing: {{ .nope }}\nname: x-{{ .metadata.name }}\n"))
	obj, text, err := renderTemplate(boundedForTest(tmpl), map[string]any{}, "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, "<no value>") || obj["missing"] != nil || obj["name"] != "x-" {
		t.Errorf("obj %v text %q", obj, text)
	}
	tmpl = template.Must(template.New("t.yaml").Parse("a: 1\n---\nb: 2\n"))
	if _, _, err := renderTemplate(boundedForTest(tmpl), nil, "t.yaml"); err == nil || !strings.Contains(err.Error(), "2 YAML documents") {
		t.Errorf("two documents: %v", err)
	}
	tmpl = template.Must(template.New("t.yaml").Parse(`{{ range $i := . }}{{ printf "%0100000d" 0 }}{{ end }}`))
	big := make([]int, 200)
	if _, _, err := renderTemplate(boundedForTest(tmpl), map[string]any{}, "t.yaml"); err != nil {
		t.Fatal(err)
	}
	if err := tmpl.Execute(&cappedBuffer{limit: 1 << 10}, big); err == nil {
		t.Error("the output cap did not stop a runaway template")
	}
}
