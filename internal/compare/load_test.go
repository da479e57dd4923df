package compare

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const cmTemplate = `
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .metadata.name }}
  namespace: ns
data:
  key: value
`

func TestLoadV1(t *testing.T) {
	// Key names match case-insensitively, as kube-compare's decoder does
	// (its own test data writes Parts and Components).
	ref := mustLoad(t, map[string]string{
		"metadata.yaml": `
Parts:
  - name: p
    Components:
      - name: c
        type: Required
        requiredTemplates:
          - path: a.yaml
            description: the a
        optionalTemplates:
          - path: dir/b.yaml
fieldsToOmit:
  items:
    mine:
      - pathTokey: metadata.labels
`,
		"a.yaml":     cmTemplate,
		"dir/b.yaml": strings.Replace(cmTemplate, "ConfigMap", "Secret", 1),
	})
	if ref.Version != 1 || len(ref.Parts) != 1 || len(ref.Templates) != 2 {
		t.Fatalf("version %d, %d parts, %d templates", ref.Version, len(ref.Parts), len(ref.Templates))
	}
	c := ref.Parts[0].Components[0]
	if c.Type != TypeRequired || len(c.Templates) != 1 || len(c.Optional) != 1 {
		t.Fatalf("component: %+v", c)
	}
	a := ref.Template("a.yaml")
	if a.Description != "the a" || a.Line != 7 || a.File != "ref/a.yaml" {
		t.Errorf("template a: description %q line %d file %q", a.Description, a.Line, a.File)
	}
	if got := a.fixed; got != (identity{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns"}) {
		t.Errorf("fixed fields %+v: the templated name must not be fixed", got)
	}
	if ref.Template("dir/b.yaml").fixed.Kind != "Secret" {
		t.Error("templates in sub-directories are identified by their relative path")
	}
}

func TestLoadV2DescriptionsInherit(t *testing.T) {
	ref := mustLoad(t, map[string]string{
		"metadata.yaml": `
apiVersion: V2
parts:
  - name: p
    description: part text
    components:
      - name: c1
        description: component text
        allOf:
          - path: a.yaml
          - path: b.yaml
            description: own text
      - name: c2
        anyOf:
          - path: c.yaml
`,
		"a.yaml": cmTemplate, "b.yaml": cmTemplate, "c.yaml": cmTemplate,
	})
	for path, want := range map[string]string{"a.yaml": "component text", "b.yaml": "own text", "c.yaml": "part text"} {
		if got := ref.Template(path).Description; got != want {
			t.Errorf("%s: description %q, want %q", path, got, want)
		}
	}
	if ref.Parts[0].Components[0].Group != AllOf || ref.Parts[0].Components[1].Group != AnyOf {
		t.Error("group types not recorded")
	}
}

func TestLoadErrors(t *testing.T) {
	v2 := func(components string) string {
		return "apiVersion: v2\nparts:\n  - name: p\n    components:\n" + components
	}
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"not YAML", map[string]string{"metadata.yaml": "parts:\n  - name: [\n"},
			[]string{"ref/metadata.yaml:2: not valid YAML: did not find expected node content"}},
		{"unknown apiVersion", map[string]string{"metadata.yaml": "apiVersion: v3\nparts: []\n"},
			[]string{"ref/metadata.yaml:1:13: unknown reference file apiVersion: 'v3'"}},
		{"unknown keys, all of them", map[string]string{"metadata.yaml": "partz: []\nfieldsToOmitt: {}\n"},
			[]string{`ref/metadata.yaml:1:1: metadata: unknown key "partz"`, `ref/metadata.yaml:2:1: metadata: unknown key "fieldsToOmitt"`}},
		{"v1 template entry keys are strict", map[string]string{"metadata.yaml": `
parts:
  - name: p
    components:
      - name: c
        type: Required
        requiredTemplates:
          - path: a.yaml
            config:
              ignore-unspecified-fieldz: true
`, "a.yaml": cmTemplate},
			[]string{`ref/metadata.yaml:9:15: parts[0].components[0].requiredTemplates[0].config: unknown key "ignore-unspecified-fieldz"`}},
		{"component without group", map[string]string{"metadata.yaml": v2("      - name: c\n")},
			[]string{"ref/metadata.yaml:5:9: component c has no templates"}},
		{"component with two groups", map[string]string{"metadata.yaml": v2("      - name: c\n        allOf: [{path: a.yaml}]\n        anyOf: [{path: a.yaml}]\n"), "a.yaml": cmTemplate},
			[]string{"ref/metadata.yaml:5:9: too many keys (allOf,anyOf) in index 0 of component c"}},
		{"missing template file", map[string]string{"metadata.yaml": v2("      - name: c\n        allOf:\n          - path: gone.yaml\n")},
			[]string{"ref/metadata.yaml:7: an error occurred while reading template: gone.yaml specified in the config. error: the file does not exist"}},
		{"template outside the reference", map[string]string{"metadata.yaml": v2("      - name: c\n        allOf:\n          - path: ../secret.yaml\n")},
			[]string{`ref/metadata.yaml:7:19: parts[0].components[0].allOf[0].path: "../secret.yaml" is not a file inside the reference directory: paths are relative to it and may not start with / or leave it with ..`}},
		{"function files and absolute paths outside the reference", map[string]string{"metadata.yaml": v2("      - name: c\n        allOf:\n          - path: /etc/passwd\n          - path: a/../a.yaml\n") + "templateFunctionFiles: [ok.tmpl, ../../f.tmpl]\n", "a.yaml": cmTemplate, "ok.tmpl": ""},
			[]string{`ref/metadata.yaml:7:19: parts[0].components[0].allOf[0].path: "/etc/passwd" is not a file inside the reference directory`,
				`ref/metadata.yaml:9:34: templateFunctionFiles[1]: "../../f.tmpl" is not a file inside the reference directory`}},
		{"template parse error", map[string]string{"metadata.yaml": v2("      - name: c\n        allOf:\n          - path: a.yaml\n"),
			"a.yaml": "kind: ConfigMap\nmetadata:\n  name: {{ .metadata.name \n"},
			[]string{"ref/a.yaml:4: an error occurred while parsing template: a.yaml specified in the config. error: template: a.yaml:4: unclosed action started at a.yaml:3"}},
		{"env is not available", map[string]string{"metadata.yaml": v2("      - name: c\n        allOf:\n          - path: a.yaml\n"),
			"a.yaml": "kind: ConfigMap\ndata:\n  home: {{ env \"HOME\" }}\n"},
			[]string{`function "env" not defined (plumb leaves out sprig's env, expandenv, getHostByName: a reference cannot read the runner's environment or the network`}},
		{"expandenv is not available", map[string]string{"metadata.yaml": v2("      - name: c\n        allOf:\n          - path: a.yaml\n"),
			"a.yaml": "kind: ConfigMap\ndata:\n  home: {{ expandenv \"$HOME\" }}\n"},
			[]string{`function "expandenv" not defined`}},
		{"getHostByName is not available", map[string]string{"metadata.yaml": v2("      - name: c\n        allOf:\n          - path: a.yaml\n"),
			"a.yaml": "kind: ConfigMap\ndata:\n  ip: {{ getHostByName \"example.com\" }}\n"},
			[]string{`function "getHostByName" not defined`}},
		{"readFile does not exist", map[string]string{"metadata.yaml": v2("      - name: c\n        allOf:\n          - path: a.yaml\n"),
			"a.yaml": "kind: ConfigMap\ndata:\n  pw: {{ readFile \"/etc/passwd\" }}\n"},
			[]string{`ref/a.yaml:3: an error occurred while parsing template: a.yaml specified in the config. error: template: a.yaml:3: function "readFile" not defined (plumb compare --show-template-functions lists the functions a template may call; a template cannot read files or the environment)`}},
		{"empty-data execution error", map[string]string{"metadata.yaml": v2("      - name: c\n        allOf:\n          - path: a.yaml\n"),
			"a.yaml": "kind: ConfigMap\ndata:\n  n: {{ len .spec.annotations }}\n"},
			[]string{"ref/a.yaml:3: failed to parse template a.yaml with empty data: template: a.yaml:3:8: executing \"a.yaml\" at <len .spec.annotations>"}},
		{"empty-data output is not YAML", map[string]string{"metadata.yaml": v2("      - name: c\n        allOf:\n          - path: a.yaml\n"),
			"a.yaml": "kind: ConfigMap\ndata: [\n"},
			[]string{"failed to parse template a.yaml with empty data: template: a.yaml isn't a yaml file after injection", "The Template After Execution: kind: ConfigMap"}},
		{"template without kind", map[string]string{"metadata.yaml": v2("      - name: c\n        allOf:\n          - path: a.yaml\n"),
			"a.yaml": "apiVersion: v1\nmetadata:\n  name: x\n"},
			[]string{"ref/a.yaml: template missing kind: a.yaml"}},
		{"function file parse error", map[string]string{"metadata.yaml": v2("      - name: c\n        allOf:\n          - path: a.yaml\n") + "templateFunctionFiles: [f.tmpl]\n",
			"a.yaml": cmTemplate, "f.tmpl": "{{ define \"x\" }}{{ end \n"},
			[]string{"ref/f.tmpl:2: an error occurred while parsing the template function files specified in the config. error: template: f.tmpl:2: unclosed action"}},
		{"unknown inline diff function and bad pattern", map[string]string{"metadata.yaml": v2(`      - name: c
        allOf:
          - path: a.yaml
            config:
              perField:
                - pathToKey: data.a
                  inlineDiffFunc: fuzzy
                - pathToKey: data.b
                  inlineDiffFunc: regex
                - pathToKey: data.c
                  inlineDiffFunc: capturegroups
`), "a.yaml": "kind: ConfigMap\ndata:\n  a: x\n  b: '(unclosed'\n  c: |\n    ok (?<v>.*)\n    bad (?<w>[a-)\n"},
			[]string{"ref/metadata.yaml:10: template a.yaml: perField data.a: InlineDiffFunc that does not exist. InlineDiffFunc: fuzzy",
				"ref/a.yaml: template a.yaml: perField data.b: the regex pattern is invalid: error parsing regexp: missing closing )",
				"ref/a.yaml: template a.yaml: perField data.c: the capturegroups pattern is invalid: line 2: capture group at offset 4 is not closed"}},
		{"unknown inline diff function beside a template that does not parse", map[string]string{"metadata.yaml": v2(`      - name: c
        allOf:
          - path: a.yaml
            config:
              perField:
                - pathToKey: data.a
                  inlineDiffFunc: regexp
`), "a.yaml": "kind: ConfigMap\ndata:\n  a: {{ .x \n"},
			[]string{"ref/metadata.yaml:10: template a.yaml: perField data.a: InlineDiffFunc that does not exist. InlineDiffFunc: regexp",
				"ref/a.yaml:4: an error occurred while parsing template: a.yaml"}},
		{"fieldsToOmit problems", map[string]string{"metadata.yaml": v2("      - name: c\n        allOf:\n          - path: a.yaml\n            config:\n              fieldsToOmitRefs: [nope]\n") + `
fieldsToOmit:
  defaultOmitRef: missing
  items:
    a:
      - include: b
    b:
      - include: a
    c:
      - isPrefix: true
    d:
      - pathToKey: 'metadata."unterminated'
`, "a.yaml": cmTemplate},
			[]string{`ref/metadata.yaml:12: fieldsToOmit's defaultOmitRef "missing" not found in items`,
				"ref/metadata.yaml:14: fieldsToOmit: circular include found a -> b -> a",
				"ref/metadata.yaml:16: fieldsToOmit: circular include found b -> a -> b",
				"ref/metadata.yaml:19: fieldsToOmit.items.c: an entry has neither include nor pathToKey",
				`ref/metadata.yaml:21: fieldsToOmit.items.d: path "metadata.\"unterminated": extraneous or missing " in quoted-field`,
				`ref/metadata.yaml:7: template a.yaml: fieldsToOmitRefs entry "nope" not found it fieldsToOmit Items`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mustContain(t, loadProblems(t, c.files), c.want...)
		})
	}
}

func TestLoadWarnings(t *testing.T) {
	ref, ps := Load(refFS(map[string]string{
		"metadata.yaml": `
apiVersion: v2
parts:
  - name: p
    components:
      - name: c
        anyOf:
          - path: a.yaml
            config:
              ignore-unspecified-fieldz: true
          - path: b.yaml
fieldsToOmit:
  items:
    cluster-compare-built-in: []
    lists:
      - pathToKey: spec.containers.0.image
`,
		"a.yaml": cmTemplate,
		"b.yaml": cmTemplate,
	}), "metadata.yaml", "ref")
	if ref == nil {
		t.Fatalf("warnings must not stop loading: %v", ps)
	}
	mustContain(t, ps.Error(),
		`ref/metadata.yaml:9:15: parts[0].components[0].anyOf[0].config: unknown key "ignore-unspecified-fieldz"`,
		"kube-compare ignores it here, so it has no effect",
		"fieldsToOmit.items.cluster-compare-built-in is reserved for the built-in list",
		"omission paths cannot index lists",
		"overlapping object definitions")
	if ref.Template("a.yaml").Config.IgnoreUnspecifiedFields {
		t.Error("a misspelled key must not set the option")
	}
	if len(ref.Overlaps) != 1 || !strings.Contains(ref.Overlaps[0], "a.yaml, b.yaml") {
		t.Errorf("overlaps: %v", ref.Overlaps)
	}
	for _, p := range ps {
		if !p.Warning {
			t.Errorf("not a warning: %v", p)
		}
	}

	ref, ps = Load(refFS(map[string]string{
		"metadata.yaml": "parts:\n  - name: p\n    components:\n      - name: c\n        type: required\n        requiredTemplates: [{path: a.yaml}]\n",
		"a.yaml":        cmTemplate,
	}), "metadata.yaml", "ref")
	if ref == nil {
		t.Fatal(ps)
	}
	mustContain(t, ps.Error(), `component "c" has type "required"; only "Required" and "Optional" (exact case) report missing required templates, so this component never will`)
}

func TestLoadPathStaysInsideTheReference(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside.yaml")
	refDir := filepath.Join(dir, "ref")
	for name, data := range map[string]string{
		outside:                                cmTemplate,
		filepath.Join(refDir, "metadata.yaml"): "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf: [{path: link.yaml}]\n",
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(refDir, "link.yaml")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	ref, ps := LoadPath(refDir, "ref")
	if ref != nil {
		t.Fatal("a symlink leaving the reference directory was followed")
	}
	mustContain(t, ps.Error(), "ref/metadata.yaml:6: an error occurred while reading template: link.yaml specified in the config. error: path escapes from parent")

	// A directory path finds metadata.yaml; a missing path says so.
	if _, ps := LoadPath(filepath.Join(dir, "nowhere"), ""); !strings.Contains(ps.Error(), "Reference config file doesn't exist") {
		t.Errorf("missing reference: %v", ps)
	}
}

func TestParseKeyPath(t *testing.T) {
	cases := map[string][]string{
		"metadata.name":                          {"metadata", "name"},
		".spec.x":                                {"spec", "x"},
		`metadata.annotations."k8s.io/x.y"`:      {"metadata", "annotations", "k8s.io/x.y"},
		`"spec"."selector"`:                      {"spec", "selector"},
		`"kubectl.kubernetes.io/last-applied"`:   {"kubectl.kubernetes.io/last-applied"},
		`data."a ""quoted"" key"`:                {"data", `a "quoted" key`},
		"spec.list.0.bigTextBlock":               {"spec", "list", "0", "bigTextBlock"},
		`metadata.labels."pod-security.k8s.io/"`: {"metadata", "labels", "pod-security.k8s.io/"},
	}
	for in, want := range cases {
		got, err := parseKeyPath(in)
		if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("parseKeyPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", ".", "a..b", `a."b`, "a.b\nc"} {
		if _, err := parseKeyPath(bad); err == nil {
			t.Errorf("parseKeyPath(%q) accepted", bad)
		}
	}
}

// kube-compare pkg/compare/referenceV1.go (the v1 component's
// requiredTemplates and optionalTemplates) and pkg/compare/compare.go (the
// per-template match counts, keyed by path): a template listed both as
// required and optional is one template; a match satisfies both listings.
// plumb warns, it does not refuse the reference.
func TestTemplateListedAsRequiredAndOptional(t *testing.T) {
	ref, ps := Load(refFS(map[string]string{
		"metadata.yaml": `
parts:
  - name: p
    components:
      - name: c
        type: Required
        requiredTemplates:
          - path: a.yaml
          - path: b.yaml
        optionalTemplates:
          - path: a.yaml
`,
		"a.yaml": cmTemplate,
		"b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n",
	}), "metadata.yaml", "ref")
	if len(ps.Errors()) > 0 || ref == nil {
		t.Fatalf("load errors: %v", ps)
	}
	mustContain(t, ps.Error(), "ref/metadata.yaml:10: template a.yaml is listed again (first at line 7)")
	if len(ref.Templates) != 2 {
		t.Fatalf("templates %d, want a.yaml once and b.yaml", len(ref.Templates))
	}
	res := compareInputs(t, ref, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: ns\ndata:\n  key: value\n", Options{})
	if res.TotalCRs != 1 || res.NumMissing != 1 || len(res.Issues) != 1 || len(res.Issues[0].Templates) != 1 || res.Issues[0].Templates[0].Path != "b.yaml" {
		t.Errorf("TotalCRs %d, missing %d, issues %+v: want only b.yaml missing", res.TotalCRs, res.NumMissing, res.Issues)
	}
}
