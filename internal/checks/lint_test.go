package checks

import (
	"strings"
	"testing"
	"testing/fstest"
)

// header is the valid head of a check; cases append their own body.
const header = `id: "X1"
name: A check
group: test
description: d
remediation: r
`

const body = `metadata:
  target_type: object
facts:
  - name: f
    gatherer: manifest@v1
    argument: spec.x
expectations:
  - name: e
    expect: facts.f == 1
`

// lintOne loads one check file named X1.yaml (or name) and returns its
// diagnostics as strings.
func lintOne(t *testing.T, name, content string) []string {
	t.Helper()
	cat := Load(Source{FS: fstest.MapFS{name: {Data: []byte(content)}}, Dir: ".", Display: "cat"})
	var out []string
	for _, d := range cat.Diagnostics {
		out = append(out, d.String())
	}
	return out
}

func TestValidCheckHasNoDiagnostics(t *testing.T) {
	if ds := lintOne(t, "X1.yaml", header+body); len(ds) != 0 {
		t.Fatalf("diagnostics: %v", ds)
	}
}

// TestLintErrorsNameFileLineAndProblem covers every lint rule: each case is
// a broken check and the diagnostic it must produce, at its line and
// column.
func TestLintErrorsNameFileLineAndProblem(t *testing.T) {
	cases := []struct {
		name, file, content, want string
	}{
		{"yaml syntax", "X1.yaml", header + "facts: [\n", "cat/X1.yaml:6:1: error: YAML syntax error"},
		{"not a mapping", "X1.yaml", "- a\n", "cat/X1.yaml:1:1: error: must be a mapping, not a list"},
		{"two documents", "X1.yaml", header + body + "---\n" + header, "cat/X1.yaml:16:1: error: the file holds 2 YAML documents"},
		{"missing key", "X1.yaml", strings.Replace(header, "group: test\n", "", 1) + body, `cat/X1.yaml:1:1: error: missing required key "group"`},
		{"unknown key", "X1.yaml", header + "severty: warning\n" + body, `cat/X1.yaml:6:1: error: severty: unknown key "severty"`},
		{"numeric id", "123456.yaml", strings.Replace(header, `id: "X1"`, "id: 123456", 1) + body, `cat/123456.yaml:1:5: error: id: must be a string, not the number 123456 (quote it: "123456")`},
		{"id and file name", "X2.yaml", header + body, `cat/X2.yaml:1:5: error: id: the id "X1" does not match the file name X2.yaml`},
		{"bad id", "a b.yaml", strings.Replace(header, `id: "X1"`, `id: "a b"`, 1) + body, `error: id: "a b" is not a valid check id`},
		{"unknown severity", "X1.yaml", header + "severity: major\n" + body, `cat/X1.yaml:6:11: error: severity: unknown severity "major": want critical or warning`},
		{"no metadata", "X1.yaml", header + strings.Replace(body, "metadata:\n  target_type: object\n", "", 1), "error: metadata: missing metadata.target_type"},
		{"no target_type", "X1.yaml", header + strings.Replace(body, "target_type: object", "kind: Pod", 1), "cat/X1.yaml:7:3: error: metadata: missing target_type"},
		{"bad target_type", "X1.yaml", header + strings.Replace(body, "target_type: object", "target_type: host", 1), "cat/X1.yaml:7:16: error: metadata.target_type: unknown target_type host"},
		{"metadata map value", "X1.yaml", header + strings.Replace(body, "target_type: object", "target_type: object\n  x: {a: b}", 1), "cat/X1.yaml:8:6: error: metadata.x: must be a string, number, boolean or a list"},
		{"no facts", "X1.yaml", header + "metadata:\n  target_type: object\nfacts: []\nexpectations:\n  - name: e\n    expect: true\n", "cat/X1.yaml:8:1: error: facts: a check needs at least one fact"},
		{"fact without gatherer", "X1.yaml", header + strings.Replace(body, "    gatherer: manifest@v1\n", "", 1), `cat/X1.yaml:9:5: error: facts[0]: missing required key "gatherer"`},
		{"unknown gatherer", "X1.yaml", header + strings.Replace(body, "manifest@v1", "sysctl@v1", 1), `cat/X1.yaml:10:15: error: facts[0]: unknown gatherer "sysctl@v1"`},
		{"unknown gatherer version", "X1.yaml", header + strings.Replace(body, "manifest@v1", "manifest@v9", 1), `error: facts[0]: gatherer "manifest@v9": no version v9 (available: @v1)`},
		{"bad gatherer argument", "X1.yaml", header + strings.Replace(body, "spec.x", "spec..x", 1), `cat/X1.yaml:11:15: error: facts[0]: gatherer manifest@v1: path "spec..x": empty key`},
		{"object gatherer on a group check", "X1.yaml", header + strings.Replace(body, "target_type: object", "target_type: group", 1), "error: facts[0]: gatherer manifest@v1 reads one object and cannot run on a target_type: group check"},
		{"duplicate fact", "X1.yaml", header + strings.Replace(body, "expectations:", "  - name: f\n    gatherer: count@v1\nexpectations:", 1), `cat/X1.yaml:12:11: error: facts[1].name: duplicate fact name "f" (first declared at line 9)`},
		{"value without default", "X1.yaml", header + body + "values:\n  - name: v\n", `cat/X1.yaml:16:5: error: values[0]: missing required key "default"`},
		{"duplicate value", "X1.yaml", header + body + "values:\n  - {name: v, default: 1}\n  - {name: v, default: 2}\n", `error: values[1].name: duplicate value name "v"`},
		{"condition without when", "X1.yaml", header + body + "values:\n  - name: v\n    default: 1\n    conditions:\n      - value: 2\n", `cat/X1.yaml:19:9: error: values[0].conditions[0]: missing required key "when"`},
		{"condition reads facts", "X1.yaml", header + body + "values:\n  - name: v\n    default: 1\n    conditions:\n      - value: 2\n        when: facts.f == 1\n", "cat/X1.yaml:20:15: error: values[0].conditions[0].when: undeclared reference to 'facts' (in container '') (this expression sees only env)"},
		{"condition not boolean", "X1.yaml", header + body + "values:\n  - name: v\n    default: 1\n    conditions:\n      - value: 2\n        when: '\"prod\"'\n", "error: values[0].conditions[0].when: must be a boolean expression, but it returns string"},
		{"no expectations", "X1.yaml", header + strings.SplitAfter(body, "spec.x\n")[0] + "expectations: []\n", "cat/X1.yaml:12:1: error: expectations: a check needs at least one expectation"},
		{"expectation without expression", "X1.yaml", header + strings.Replace(body, "    expect: facts.f == 1\n", "", 1), "cat/X1.yaml:13:5: error: expectations[0]: needs one of expect, expect_same or expect_enum"},
		{"two expression keys", "X1.yaml", header + body + "    expect_same: facts.f\n", "cat/X1.yaml:13:5: error: expectations[0]: has expect and expect_same: an expectation has exactly one"},
		{"duplicate expectation", "X1.yaml", header + body + "  - name: e\n    expect: true\n", `error: expectations[1].name: duplicate expectation name "e" (first declared at line 13): Wanda merges`},
		{"syntax error", "X1.yaml", header + strings.Replace(body, "facts.f == 1", "facts.f == = 1", 1), "cat/X1.yaml:14:24: error: expectations[0].expect: Syntax error"},
		{"syntax error in a block", "X1.yaml", header + strings.Replace(body, "expect: facts.f == 1", "expect: >-\n      facts.f == 1 &&\n        facts.f ===", 1), "cat/X1.yaml:16:19: error: expectations[0].expect: Syntax error"},
		{"undeclared fact", "X1.yaml", header + strings.Replace(body, "facts.f == 1", "facts.g == 1", 1), "cat/X1.yaml:14:13: error: expectations[0].expect: facts.g is not declared by this check (declared: facts.f)"},
		{"undeclared value", "X1.yaml", header + strings.Replace(body, "facts.f == 1", "facts.f == values.v", 1), "error: expectations[0].expect: values.v is not declared by this check (declared: none)"},
		{"expect not boolean", "X1.yaml", header + strings.Replace(body, "facts.f == 1", "size(facts.f)", 1), "error: expectations[0].expect: expect must return a boolean, but this expression returns int"},
		{"expect_enum not string", "X1.yaml", header + strings.Replace(body, "expect: facts.f == 1", "expect_enum: facts.f == 1", 1), `error: expectations[0].expect_enum: expect_enum must return "passing", "warning" or "critical", but this expression returns bool`},
		{"expect_enum never passes", "X1.yaml", header + strings.Replace(body, "expect: facts.f == 1", `expect_enum: 'facts.f == 1 ? "warning" : "critical"'`, 1), `error: expectations[0].expect_enum: passing return value not found`},
		{"warning_message on expect", "X1.yaml", header + body + "    warning_message: careful\n", "cat/X1.yaml:15:22: error: expectations[0].warning_message: warning_message is only available for expect_enum expectations"},
		{"interpolated expect_same message", "X1.yaml", header + strings.Replace(body, "expect: facts.f == 1", "expect_same: facts.f\n    failure_message: got ${facts.f}", 1), "cat/X1.yaml:15:22: error: expectations[0].failure_message: String interpolation is not allowed here"},
		{"unclosed interpolation", "X1.yaml", header + body + "    failure_message: got ${facts.f\n", "cat/X1.yaml:15:22: error: expectations[0].failure_message: the ${ at offset 4 is never closed"},
		{"bad interpolation", "X1.yaml", header + body + "    failure_message: got ${facts.f +}\n", "cat/X1.yaml:15:37: error: expectations[0].failure_message: Syntax error"},
		{"check-level when reads facts", "X1.yaml", header + "when: facts.f == 1\n" + body, "cat/X1.yaml:6:7: error: when: undeclared reference to 'facts'"},
		{"exclude not boolean", "X1.yaml", header + "exclude: host.name\n" + body, ""},
		{"exclude reads env", "X1.yaml", header + "exclude: env.x == 1\n" + body, "error: exclude: undeclared reference to 'env' (in container '') (this expression sees only host, target)"},
		{"customization_disabled type", "X1.yaml", header + "customization_disabled: yes\n" + body, `cat/X1.yaml:6:25: error: customization_disabled: must be true or false, not the string "yes"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := lintOne(t, c.file, c.content)
			if c.want == "" {
				if len(ds) != 0 {
					t.Errorf("diagnostics: %v", ds)
				}
				return
			}
			for _, d := range ds {
				if strings.Contains(d, c.want) {
					return
				}
			}
			t.Errorf("no diagnostic contains %q; got:\n%s", c.want, strings.Join(ds, "\n"))
		})
	}
}

func TestLintWarnings(t *testing.T) {
	ds := lintOne(t, "X1.yaml", header+"premium: false\n"+strings.Replace(body, "expect: facts.f == 1", `expect_enum: 'facts.f == 1 ? "passing" : "critical"'`, 1))
	for _, want := range []string{
		"cat/X1.yaml:6:1: warning: premium: premium is deprecated",
		"warning: expectations[0].expect_enum: warning return value not found",
	} {
		if !strings.Contains(strings.Join(ds, "\n"), want) {
			t.Errorf("missing %q in:\n%s", want, strings.Join(ds, "\n"))
		}
	}
	cat := Load(Source{FS: fstest.MapFS{"X1.yaml": {Data: []byte(header + "premium: false\n" + body)}}, Dir: ".", Display: "cat"})
	if len(cat.Usable()) != 1 {
		t.Error("a check with only warnings is not usable")
	}
}

func TestCatalogDirectoryRules(t *testing.T) {
	fs := fstest.MapFS{
		"a/X1.yaml":         {Data: []byte(header + body)},
		"a/X1.yaml.wip":     {Data: []byte("work in progress")},
		"a/VERSION":         {Data: []byte("1.0")},
		"a/README.md":       {Data: []byte("# checks")},
		"a/Y1.yml":          {Data: []byte(strings.Replace(header, "X1", "Y1", 1) + body)},
		"a/sub/Z1.yaml":     {Data: []byte("not read")},
		"b/X1.yaml":         {Data: []byte(header + body)},
		"b/Z2.yaml":         {Data: []byte(strings.Replace(header, "X1", "Z2", 1) + body)},
		"missing/.keep.txt": {Data: nil},
	}
	cat := Load(Source{FS: fs, Dir: "a", Display: "a"}, Source{FS: fs, Dir: "b", Display: "b"}, Source{FS: fs, Dir: "nope", Display: "nope"})
	var ds []string
	for _, d := range cat.Diagnostics {
		ds = append(ds, d.String())
	}
	got := strings.Join(ds, "\n")
	for _, want := range []string{
		"a/Y1.yml: warning: not read: check files are named <id>.yaml",
		`b/X1.yaml:1:5: error: id: duplicate check id "X1": already defined at a/X1.yaml:1`,
		"nope: error: cannot read the catalog directory: file does not exist",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if n := len(cat.Usable()); n != 2 {
		t.Errorf("%d usable checks, want 2 (X1 from a, Z2)", n)
	}
	if c := cat.Get("X1"); c == nil || c.File != "a/X1.yaml" {
		t.Errorf("X1 = %v, want the first directory's", c)
	}
}
