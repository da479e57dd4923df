package kubevirt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
)

// vmWith is a VM carrying an annotation block (the lines after
// "vm.kubevirt.io/validations: |", indented by 6) and a domain body
// (indented by 8).
func vmWith(name, rules, domain string) string {
	return "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: " + name + "\n  annotations:\n" +
		"    vm.kubevirt.io/validations: |\n" + indent(rules, 6) +
		"spec:\n  template:\n    spec:\n      domain:\n" + indent(domain, 8)
}

func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(pad + l + "\n")
	}
	return b.String()
}

const okDomain = "cpu:\n  cores: 2\nmemory:\n  guest: 2Gi\ndevices:\n  disks:\n  - name: root\n    disk:\n      bus: virtio\n"

func checkText(t *testing.T, file, text string) ([]finding.Finding, *Section) {
	t.Helper()
	out := run(t, nil, plainTarget(t, file, text))
	finding.Sort(out.Findings)
	return out.Findings, section(out)
}

// expectOne asserts a single finding with the rule, message, input-error
// flag, and the line of the first line containing at.
func expectOne(t *testing.T, fs []finding.Finding, text, rule, message string, input bool, at string) {
	t.Helper()
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1:\n%s", len(fs), short(fs))
	}
	f := fs[0]
	if f.RuleID != rule || f.Message != message || f.InputError != input {
		t.Errorf("got %s %q input=%v\nwant %s %q input=%v", f.RuleID, f.Message, f.InputError, rule, message, input)
	}
	if want := lineOf(t, text, "", at); f.Location.Line != want {
		t.Errorf("line %d, want %d (%q)", f.Location.Line, want, at)
	}
}

func TestMalformedAnnotations(t *testing.T) {
	for _, c := range []struct {
		name, rules, message, at string
		rejection                string
	}{
		{"trailing comma", "[\n  {\"name\": \"a\",\n   \"rule\": \"integer\",}\n]",
			`vm.kubevirt.io/validations is not a valid JSON list of rules: invalid character '}' looking for beginning of object key string`,
			`"rule": "integer",}`, "invalid character '}' looking for beginning of object key string"},
		{"curly quotes (the spec's first example)", "[\n  {\n    \"name\": \"validation-rule-01\",\n    \"path\u201d: \"jsonpath::.spec.domain.cpu.cores\"\n  }\n]",
			// The curly quote does not end the key, which runs on to the
			// next straight quote.
			`vm.kubevirt.io/validations is not a valid JSON list of rules: invalid character 'j' after object key`,
			"\"path\u201d", "invalid character 'j' after object key"},
		{"an object instead of a list", "{\"name\": \"a\"}",
			`vm.kubevirt.io/validations is not a valid JSON list of rules: the text is one JSON object, not a list: write the rules as a list, [{...}, {...}] (a single rule too)`,
			`{"name": "a"}`, "json: cannot unmarshal object into Go value of type []validation.Rule"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := vmWith("vm", c.rules, okDomain)
			fs, sec := checkText(t, "vms/vm.yaml", text)
			expectOne(t, fs, text, RuleInvalidValidations, c.message, true, c.at)
			if vm := sec.VirtualMachines[0]; vm.Allowed || vm.Message != c.rejection {
				t.Errorf("allowed=%v message %q, want rejected with %q", vm.Allowed, vm.Message, c.rejection)
			}
		})
	}
}

func TestMalformedRulesAreReportedOneByOne(t *testing.T) {
	rules := `[
  {"name": "memory", "path": "jsonpath::.spec.domain.memory.guest", "rule": "integer", "message": "needs memory", "min": 4294967296},
  {"name": "flag",
   "path": "jsonpath::.spec.domain.cpu.cores", "rule": "integer", "message": "m",
   "justWarning": "true"},
  {"name": "no-prefix", "path": ".spec.domain.cpu.cores", "rule": "integer", "message": "m"},
  {"name": "syntax", "path": "jsonpath::.spec.domain[", "rule": "integer", "message": "m"},
  {"name": "quantity-min", "path": "jsonpath::.spec.domain.memory.guest", "rule": "integer", "message": "m", "min": "1Gi"},
  {"name": "values", "path": "jsonpath::.spec.domain.machine.type", "rule": "enum", "message": "m", "values": [1]}
]`
	text := vmWith("vm", rules, okDomain)
	fs, sec := checkText(t, "vm.yaml", text)
	want := []struct{ at, msg string }{
		{`"min": 4294967296}`, "needs memory: value 2147483648 is lower than minimum [4294967296]"},
		{`"justWarning": "true"`, `vm.kubevirt.io/validations rule 2 ("flag"): justWarning: the value is a string, want true or false`},
		{`"name": "no-prefix"`, `vm.kubevirt.io/validations rule 3 ("no-prefix"): invalid JSONPath: a path is "jsonpath::" followed by the field's path in the VM, for example "jsonpath::.spec.domain.cpu.cores"`},
		{`"name": "syntax"`, `vm.kubevirt.io/validations rule 4 ("syntax"): unterminated array`},
		{`"name": "quantity-min"`, `vm.kubevirt.io/validations rule 5 ("quantity-min"): cannot unmarshall IntOrPath from JSON: invalid JSONPath: a path is "jsonpath::" followed by the field's path in the VM, for example "jsonpath::.spec.domain.cpu.cores"`},
		{`"name": "values"`, `vm.kubevirt.io/validations rule 6 ("values"): values: the value is a number, want a string`},
	}
	// The memory rule is reported at the guest field, after the rules.
	got := map[string]int{}
	for _, f := range fs {
		got[f.Message] = f.Location.Line
	}
	for _, w := range want[1:] {
		line, ok := got[w.msg]
		if !ok {
			t.Errorf("missing %q in\n%s", w.msg, short(fs))
			continue
		}
		if l := lineOf(t, text, "", w.at); line != l {
			t.Errorf("%q at line %d, want %d", w.msg, line, l)
		}
	}
	if line, ok := got[want[0].msg]; !ok || line != lineOf(t, text, "", "guest: 2Gi") {
		t.Errorf("the well-formed rule is still evaluated and reported at the guest line: %v %d\n%s", ok, line, short(fs))
	}
	if len(fs) != len(want) {
		t.Errorf("%d findings, want %d:\n%s", len(fs), len(want), short(fs))
	}
	vm := sec.VirtualMachines[0]
	// encoding/json keeps going after a type error but stops at an
	// unmarshaler's error: the validator's message is rule 3's.
	if vm.Allowed || vm.Message != "invalid JSONPath" {
		t.Errorf("allowed=%v message %q", vm.Allowed, vm.Message)
	}
	outcomes := []string{}
	for _, r := range vm.Rules {
		outcomes = append(outcomes, r.Name+":"+r.Outcome)
	}
	if got := strings.Join(outcomes, " "); got != "memory:unsatisfied flag:invalid no-prefix:invalid syntax:invalid quantity-min:invalid values:invalid" {
		t.Errorf("rule outcomes %s", got)
	}
}

func TestLintFindings(t *testing.T) {
	rules := `[
  {"name": "dup", "path": "jsonpath::.spec.domain.cpu.cores", "rule": "integer", "message": "m", "min": 1},
  {"name": "dup", "path": "jsonpath::.spec.domain.cpu.cores", "rule": "integer", "message": "m", "min": 1},
  {"name": "no-rule", "path": "jsonpath::.spec.domain.cpu.cores", "message": "m"},
  {"name": "unknown", "path": "jsonpath::.spec.domain.cpu.cores", "rule": "range", "message": "m"},
  {"name": "no-message", "path": "jsonpath::.spec.domain.cpu.cores", "rule": "integer"},
  {"name": "no-path", "rule": "integer", "message": "m"},
  {"name": "pcre", "path": "jsonpath::.spec.domain.machine.type", "rule": "regex", "message": "m", "regex": "^(?!pc)"},
  {"path": "jsonpath::.spec.domain.cpu.cores", "rule": "integer", "message": "unnamed", "min": 4}
]`
	text := vmWith("vm", rules, okDomain)
	fs, sec := checkText(t, "vm.yaml", text)
	// ssp-operator internal/template-validator/validation/eval.go
	// (Evaluate): the rules the validator fails when it evaluates them are
	// failing rules, kubevirt/<name>, each with the validator's single
	// cause (a duplicate name first, then the type, then the message), at
	// the rule's definition. Only the missing name, which the validator
	// accepts, is a (warning) configuration finding.
	type w struct{ rule, at, msg string }
	want := []w{
		{"kubevirt/dup", `"name": "dup", "path"`, `m: duplicate Rule Name`},
		{"kubevirt/no-rule", `"name": "no-rule"`, `m: unrecognized Rule type`},
		{"kubevirt/unknown", `"name": "unknown"`, `m: unrecognized Rule type`},
		{"kubevirt/no-message", `"name": "no-message"`, `: missing required key`},
		{"kubevirt/no-path", `"name": "no-path"`, `m: missing required key`},
		{"kubevirt/pcre", `"name": "pcre"`, "m: error parsing regexp: invalid or unsupported Perl syntax: `(?!`"},
		{RuleInvalidValidations, `"message": "unnamed"`, `vm.kubevirt.io/validations rule 8: missing key "name": the spec makes it mandatory (the validator accepts an unnamed rule, but a second one fails as a duplicate name)`},
		{"kubevirt/rule-8", "cores: 2", "unnamed: value 2 is lower than minimum [4]"},
	}
	type key struct{ rule, msg string }
	byMsg := map[key]finding.Finding{}
	for _, f := range fs {
		byMsg[key{f.RuleID, f.Message}] = f
	}
	for _, x := range want {
		f, ok := byMsg[key{x.rule, x.msg}]
		if !ok {
			t.Errorf("missing %s %q", x.rule, x.msg)
			continue
		}
		// "dup" appears twice; the second is on the next line.
		line := lineOf(t, text, "", x.at)
		if x.at == `"name": "dup", "path"` {
			line++
		}
		if f.Location.Line != line || f.InputError || (f.RuleID == RuleInvalidValidations) != (f.Level == finding.Warning) {
			t.Errorf("%q: %s line %d input=%v level %v, want %s line %d", x.msg, f.RuleID, f.Location.Line, f.InputError, f.Level, x.rule, line)
		}
	}
	if f := byMsg[key{"kubevirt/pcre", "m: error parsing regexp: invalid or unsupported Perl syntax: `(?!`"}]; !strings.Contains(f.Help, "RE2 has no look-ahead") {
		t.Errorf("the regex finding's help lacks RE2's hint: %s", f.Help)
	}
	if len(fs) != len(want) {
		t.Errorf("%d findings, want %d:\n%s", len(fs), len(want), short(fs))
	}
	// The validator's verdict is still computed and recorded.
	vm := sec.VirtualMachines[0]
	wantMsg := "m: duplicate Rule Name, m: unrecognized Rule type, m: unrecognized Rule type, : missing required key, m: missing required key, m: error parsing regexp: invalid or unsupported Perl syntax: `(?!`, unnamed: value 2 is lower than minimum [4]"
	if vm.Allowed || vm.Message != wantMsg {
		t.Errorf("message\n got %q\nwant %q", vm.Message, wantMsg)
	}
}

func TestInvalidVirtualMachines(t *testing.T) {
	rules := `[{"name": "cores", "path": "jsonpath::.spec.domain.cpu.cores", "rule": "integer", "message": "m", "min": 1}]`
	for _, c := range []struct{ name, domain, at, msg string }{
		{"a string where an integer goes", "cpu:\n  cores: two\n", "cores: two",
			"cannot check the KubeVirt validation rules: spec.template.spec.domain.cpu.cores: a string where the VirtualMachine schema wants a non-negative integer (uint32)"},
		{"a negative count in a list", "devices:\n  disks:\n  - name: a\n  - name: b\n    bootOrder: -1\n", "bootOrder: -1",
			"cannot check the KubeVirt validation rules: spec.template.spec.domain.devices.disks[1].bootOrder: the number -1 where the VirtualMachine schema wants a non-negative integer (uint)"},
		{"a quantity that does not parse", "memory:\n  guest: 2 GB\n", "guest: 2 GB",
			`cannot check the KubeVirt validation rules: spec.template.spec.domain.memory.guest: "2 GB" is not a quantity (quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$')`},
		{"a list where a mapping goes", "devices: []\n", "devices: []",
			"cannot check the KubeVirt validation rules: spec.template.spec.domain.devices: a list where the VirtualMachine schema wants a mapping"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := vmWith("vm", rules, c.domain)
			fs, sec := checkText(t, "vm.yaml", text)
			expectOne(t, fs, text, RuleInvalidVM, c.msg, true, c.at)
			if sec.VirtualMachines[0].Allowed {
				t.Error("allowed")
			}
		})
	}
	t.Run("no spec.template", func(t *testing.T) {
		text := "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\n  annotations:\n    vm.kubevirt.io/validations: '" + rules + "'\nspec:\n  runStrategy: Always\n"
		fs, _ := checkText(t, "vm.yaml", text)
		expectOne(t, fs, text, RuleInvalidVM, "cannot check the KubeVirt validation rules: spec.template is missing: a VirtualMachine needs one, and the template validator's webhook crashes on a VM without it", true, "spec:")
	})
	t.Run("an annotation that is not a string", func(t *testing.T) {
		text := "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\n  annotations:\n    vm.kubevirt.io/validations:\n    - name: cores\nspec:\n  template:\n    spec:\n      domain: {}\n"
		fs, _ := checkText(t, "vm.yaml", text)
		expectOne(t, fs, text, RuleInvalidValidations, "vm.kubevirt.io/validations must be a string holding a JSON list of rules (write it as a `|` block); annotations are strings", true, "vm.kubevirt.io/validations:")
	})
}

// Evaluation errors are rule findings: at the rule when its path resolves
// nowhere, at the field otherwise.
func TestEvaluationErrors(t *testing.T) {
	t.Run("a path the VM type does not have (the spec's enum example)", func(t *testing.T) {
		rules := `[
  {
    "name": "supported-bus",
    "path": "jsonpath::.spec.devices.disks[*].type",
    "rule": "enum",
    "message": "the disk bus type must be one of the supported values",
    "values": ["virtio", "scsi"]
  }
]`
		text := vmWith("vm", rules, okDomain)
		fs, _ := checkText(t, "vm.yaml", text)
		expectOne(t, fs, text, "kubevirt/supported-bus", "the disk bus type must be one of the supported values: invalid JSONPath", false, "{")
	})
	t.Run("a null quantity, on which the validator crashes", func(t *testing.T) {
		rules := `[{"name": "memory", "path": "jsonpath::.spec.domain.memory.guest", "rule": "integer", "message": "This VM requires more memory.", "min": 1073741824}]`
		text := vmWith("vm", rules, "memory:\n  hugepages:\n    pageSize: 2Mi\n")
		fs, _ := checkText(t, "vm.yaml", text)
		expectOne(t, fs, text, "kubevirt/memory", "This VM requires more memory.: the value is null (a nil *resource.Quantity): the template validator's webhook crashes on it, so the cluster rejects the VM", false, "memory:")
	})
	t.Run("no values: no disks", func(t *testing.T) {
		rules := `[{"name": "bus", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "rule": "enum", "message": "bus", "values": ["virtio"], "justWarning": true}]`
		text := vmWith("vm", rules, "cpu:\n  cores: 1\n")
		fs, _ := checkText(t, "vm.yaml", text)
		// An error fails the VM even on a justWarning rule: an error finding.
		expectOne(t, fs, text, "kubevirt/bus", "bus: no values were found", false, "domain:")
	})
	t.Run("a fractional quantity", func(t *testing.T) {
		rules := `[{"name": "memory", "path": "jsonpath::.spec.domain.memory.guest", "rule": "integer", "message": "m", "min": 1}]`
		text := vmWith("vm", rules, "memory:\n  guest: 1500m\n")
		fs, _ := checkText(t, "vm.yaml", text)
		expectOne(t, fs, text, "kubevirt/memory", "m: mismatching type: *resource.Quantity, not int or resource.Quantity", false, "guest: 1500m")
	})
}

// Other inputs are still processed when one is bad, and a skipped VM is
// not checked at all.
func TestBadInputDoesNotStopTheOthers(t *testing.T) {
	broken := vmWith("broken", "[{\"name\": \"a\",}]", okDomain)
	failing := vmWith("failing", `[{"name": "cores", "path": "jsonpath::.spec.domain.cpu.cores", "rule": "integer", "message": "more cores", "min": 4}]`, okDomain)
	skipped := strings.Replace(vmWith("skipped", "[{\"name\": \"a\",}]", okDomain), "  annotations:\n", "  annotations:\n    vm.kubevirt.io/skip-validations: \"false\"\n", 1)
	out := run(t, nil, plainTarget(t, "a/broken.yaml", broken), plainTarget(t, "b/failing.yaml", failing), plainTarget(t, "c/skipped.yaml", skipped))
	got := short(out.Findings)
	want := fmt.Sprintf("a/broken.yaml:%d: error: vm.kubevirt.io/validations is not a valid JSON list of rules: invalid character '}' looking for beginning of object key string [kubevirt/invalid-validations]\n"+
		"b/failing.yaml:%d: error: more cores: value 2 is lower than minimum [4] [kubevirt/cores]\n",
		lineOf(t, broken, "", `{"name": "a",}`), lineOf(t, failing, "", "cores: 2"))
	if got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	if src := section(out).VirtualMachines[2].RuleSource; src != SourceSkip {
		t.Errorf("skipped VM source %s", src)
	}
}

// White space alone is not JSON.
func TestWhiteSpaceAnnotation(t *testing.T) {
	text := "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\n  annotations:\n    vm.kubevirt.io/validations: '   '\nspec:\n  template:\n    spec:\n      domain: {}\n"
	fs, sec := checkText(t, "vm.yaml", text)
	expectOne(t, fs, text, RuleInvalidValidations, "vm.kubevirt.io/validations is not a valid JSON list of rules: unexpected end of JSON input", true, "vm.kubevirt.io/validations:")
	if sec.VirtualMachines[0].Message != "unexpected end of JSON input" {
		t.Errorf("message %q", sec.VirtualMachines[0].Message)
	}
}

// A quoted (not block) annotation is located at its key.
func TestQuotedAnnotationLocation(t *testing.T) {
	text := "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\n  annotations:\n" +
		"    vm.kubevirt.io/validations: '[{\"name\": \"a\", \"rule\": \"integr\", \"path\": \"jsonpath::.spec.domain.cpu.cores\", \"message\": \"m\"}]'\n" +
		"spec:\n  template:\n    spec:\n      domain: {}\n"
	fs, _ := checkText(t, "vm.yaml", text)
	expectOne(t, fs, text, "kubevirt/a", `m: unrecognized Rule type`, false, "vm.kubevirt.io/validations:")
}

// An empty VM annotation falls through to the parent Template; "[]" means
// no rules and no fallback.
func TestEmptyAnnotations(t *testing.T) {
	tmpl := "apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: t\n  namespace: ns\n  annotations:\n    validations: |\n      [{\"name\": \"cores\", \"path\": \"jsonpath::.spec.domain.cpu.cores\", \"rule\": \"integer\", \"message\": \"more cores\", \"min\": 4}]\nobjects: []\n"
	vm := func(ann string) string {
		return "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\n  labels:\n    vm.kubevirt.io/template: t\n    vm.kubevirt.io/template.namespace: ns\n  annotations:\n    vm.kubevirt.io/validations: '" + ann + "'\nspec:\n  template:\n    spec:\n      domain:\n        cpu:\n          cores: 2\n"
	}
	out := run(t, nil, plainTarget(t, "t/t.yaml", tmpl), plainTarget(t, "v/vm.yaml", vm("")))
	if got := short(out.Findings); got != "v/vm.yaml:15: error: more cores: value 2 is lower than minimum [4] [kubevirt/cores]\n" {
		t.Errorf("empty annotation: %s", got)
	}
	if r := out.Findings[0].Related[0]; r.File != "t/t.yaml" || r.Line != 8 || !strings.Contains(r.Message, "Template ns/t") {
		t.Errorf("related %+v", r)
	}
	// A null value decodes as "" and falls through too.
	null := strings.Replace(vm(""), "vm.kubevirt.io/validations: ''", "vm.kubevirt.io/validations:", 1)
	out = run(t, nil, plainTarget(t, "t/t.yaml", tmpl), plainTarget(t, "v/vm.yaml", null))
	if got := short(out.Findings); got != "v/vm.yaml:15: error: more cores: value 2 is lower than minimum [4] [kubevirt/cores]\n" {
		t.Errorf("null annotation: %s", got)
	}
	out = run(t, nil, plainTarget(t, "t/t.yaml", tmpl), plainTarget(t, "v/vm.yaml", vm("[]")))
	if len(out.Findings) != 0 || section(out).VirtualMachines[0].RuleSource != SourceVM {
		t.Errorf("[]: %s %+v", short(out.Findings), section(out).VirtualMachines[0])
	}
}
