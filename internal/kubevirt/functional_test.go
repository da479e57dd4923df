package kubevirt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/render"
)

// The validator's functional tests (ssp-operator tests/validator_test.go,
// "Template validator webhooks"), research §3.2: parent Templates with the
// legacy validations annotation, VMs that name them, and VMs with their own
// rules. The cluster's default machine type is taken to be q35.

const functionalTemplates = `apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: template-with-rules
  namespace: kubevirt-test
  annotations:
    validations: |
      [
        {"name": "EnoughMemory", "path": "jsonpath::.spec.domain.resources.requests.memory", "message": "Memory size not within range", "rule": "integer", "min": 67108864, "max": 536870912},
        {"name": "LimitCores", "path": "jsonpath::.spec.domain.cpu.cores", "message": "Core amount not within range", "rule": "integer", "min": 1, "max": 4},
        {"name": "SupportedChipset", "path": "jsonpath::.spec.domain.machine.type", "rule": "enum", "message": "Machine type is a supported value", "values": ["q35"]}
      ]
objects: []
---
apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: template-with-rules-optional
  namespace: kubevirt-test
  annotations:
    validations: |
      [
        {"name": "EnoughMemory", "path": "jsonpath::.spec.domain.resources.requests.memory", "valid": "jsonpath::.spec.domain.resources.requests.memory", "message": "Memory size not within range", "rule": "integer", "min": 67108864, "max": 536870912},
        {"name": "LimitCores", "path": "jsonpath::.spec.domain.cpu.cores", "valid": "jsonpath::.spec.domain.cpu.cores", "message": "Core amount not within range", "rule": "integer", "min": 1, "max": 4}
      ]
objects: []
---
apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: template-with-incorrect-rules
  namespace: kubevirt-test
  annotations:
    validations: |
      [
        {"name": "EnoughMemory", "path": "jsonpath::.spec.domain.resources.requests.memory", "message": "Memory size not within range", "rule": "integer", "min": 67108864, "max": 536870912},
        {"name": "SupportedChipset", "path": "jsonpath::.spec.domain.machine.type", "rule": "value-set", "values": ["q35"]}
      ]
objects: []
---
apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: template-with-incorrect-rules-just-warning
  namespace: kubevirt-test
  annotations:
    validations: |
      [
        {"name": "EnoughMemory", "path": "jsonpath::.spec.domain.resources.requests.memory", "message": "Memory size not within range", "rule": "integer", "min": 77108864, "max": 536870912, "justWarning": true}
      ]
objects: []
---
apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: template-without-rules
  namespace: kubevirt-test
  annotations:
    validations: "[]"
objects: []
`

// vmSpec builds the functional tests' VM: requests.memory, an optional cpu
// with cores, the machine type, and how it names its Template.
type vmSpec struct {
	memory  string
	cpu     string // "" for no cpu, else the cpu mapping in flow style
	machine string
	meta    string // extra metadata lines (labels/annotations), indented 2
}

func (v vmSpec) yaml() string {
	machine := v.machine
	if machine == "" {
		machine = "q35"
	}
	memory := v.memory
	if memory == "" {
		memory = "64M"
	}
	var b strings.Builder
	b.WriteString("apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: testvm\n  namespace: kubevirt-test\n")
	b.WriteString(v.meta)
	b.WriteString("spec:\n  runStrategy: Halted\n  template:\n    spec:\n      domain:\n")
	if v.cpu != "" {
		fmt.Fprintf(&b, "        cpu: %s\n", v.cpu)
	}
	fmt.Fprintf(&b, "        machine:\n          type: %s\n", machine)
	fmt.Fprintf(&b, "        resources:\n          requests:\n            memory: %s\n", memory)
	b.WriteString("        devices:\n          interfaces:\n          - name: default\n            bridge: {}\n")
	b.WriteString("      networks:\n      - name: default\n        pod: {}\n")
	return b.String()
}

func templateAnnotations(name string) string {
	return "  annotations:\n    vm.kubevirt.io/template: " + name + "\n    vm.kubevirt.io/template.namespace: kubevirt-test\n"
}

func vmRules(max int) string {
	return fmt.Sprintf("    vm.kubevirt.io/validations: |\n      [{\"name\": \"LimitCores\", \"path\": \"jsonpath::.spec.domain.cpu.cores\", \"message\": \"Core amount not within range\", \"rule\": \"integer\", \"min\": 1, \"max\": %d}]\n", max)
}

func TestFunctionalScenarios(t *testing.T) {
	cases := []struct {
		id       string
		vm       vmSpec
		allowed  bool
		source   string
		findings string // the findings, in short form
	}{
		{"5584 VM without template", vmSpec{cpu: "{cores: 2}", memory: "128M"}, true, SourceNone, ""},
		{"annotations point to a nonexistent template", vmSpec{cpu: "{cores: 2}", meta: templateAnnotations("nonexisting-template")}, true, SourceTemplateNotFound,
			"vm.yaml:7: note: parent Template kubevirt-test/nonexisting-template is not among the inputs, so its validation rules were not checked (the validator admits the VM in that case) [kubevirt/template-not-found]\n"},
		{"5585 template without rules", vmSpec{meta: templateAnnotations("template-without-rules")}, true, SourceTemplate, ""},
		{"5033 template rules met", vmSpec{cpu: "{cores: 2}", memory: "128M", meta: templateAnnotations("template-with-rules")}, true, SourceTemplate, ""},
		{"2960 unsupported machine type", vmSpec{cpu: "{cores: 2}", memory: "128M", machine: "test", meta: templateAnnotations("template-with-rules")}, false, SourceTemplate,
			"vm.yaml:16: error: Machine type is a supported value: Some of [test] are not in [q35] [kubevirt/SupportedChipset]\n"},
		{"5586 optional rules skipped without cpu", vmSpec{memory: "128M", meta: templateAnnotations("template-with-rules-optional")}, true, SourceTemplate, ""},
		{"5587 cpu absent: cores 0", vmSpec{memory: "128M", meta: templateAnnotations("template-with-rules")}, false, SourceTemplate,
			// cpu is absent: reported at the domain that should hold it.
			"vm.yaml:13: error: Core amount not within range: value 0 is lower than minimum [1] [kubevirt/LimitCores]\n"},
		{"5589 incorrect rules", vmSpec{memory: "128M", meta: templateAnnotations("template-with-incorrect-rules")}, false, SourceTemplate, ""},
		{"5590 incorrect rules, memory too low", vmSpec{memory: "32M", meta: templateAnnotations("template-with-incorrect-rules")}, false, SourceTemplate,
			"vm.yaml:18: error: Memory size not within range: value 32000000 is lower than minimum [67108864] [kubevirt/EnoughMemory]\n"},
		{"2959 justWarning", vmSpec{memory: "1G", meta: templateAnnotations("template-with-incorrect-rules-just-warning")}, true, SourceTemplate,
			"vm.yaml:18: warning: Memory size not within range: value 1000000000 is higher than maximum [536870912] [kubevirt/EnoughMemory]\n"},
		{"5591 only the template-namespace annotation", vmSpec{cpu: "{cores: 2}", meta: "  annotations:\n    vm.kubevirt.io/template-namespace: kubevirt-test\n"}, true, SourceNone, ""},
		{"6199 UI-style template.namespace annotation", vmSpec{cpu: "{cores: 2}", memory: "128M", meta: templateAnnotations("template-with-rules")}, true, SourceTemplate, ""},
		{"5592 template in labels", vmSpec{cpu: "{cores: 2}", memory: "128M", meta: "  labels:\n    vm.kubevirt.io/template: template-with-rules\n    vm.kubevirt.io/template-namespace: kubevirt-test\n"}, true, SourceTemplate, ""},
		{"5593 sockets only: cores defaulted to 1", vmSpec{cpu: "{sockets: 1}", memory: "128M", meta: templateAnnotations("template-with-rules")}, true, SourceTemplate, ""},
		{"5173 VM rules met", vmSpec{cpu: "{cores: 1}", meta: "  annotations:\n" + vmRules(4)}, true, SourceVM, ""},
		{"5034 VM rules broken", vmSpec{cpu: "{cores: 5}", meta: "  annotations:\n" + vmRules(4)}, false, SourceVM,
			"vm.yaml:14: error: Core amount not within range: value 5 is higher than maximum [4] [kubevirt/LimitCores]\n"},
		{"5035 VM rules replace template rules", vmSpec{cpu: "{cores: 5}", memory: "64M", meta: templateAnnotations("template-with-rules") + vmRules(4)}, false, SourceVM,
			"vm.yaml:16: error: Core amount not within range: value 5 is higher than maximum [4] [kubevirt/LimitCores]\n"},
		{"5036 VM max 6 wins over template max 4", vmSpec{cpu: "{cores: 5}", memory: "128M", meta: templateAnnotations("template-with-rules") + vmRules(6)}, true, SourceVM, ""},
		{"5174 VM rules, template missing, cores 3", vmSpec{cpu: "{cores: 3}", meta: templateAnnotations("nonexisting-template") + vmRules(4)}, true, SourceVM, ""},
		{"5046 VM rules, template missing, cores 5", vmSpec{cpu: "{cores: 5}", meta: templateAnnotations("nonexisting-template") + vmRules(4)}, false, SourceVM,
			"vm.yaml:16: error: Core amount not within range: value 5 is higher than maximum [4] [kubevirt/LimitCores]\n"},
		{"5047 VM rules only, cores 5", vmSpec{cpu: "{cores: 5}", meta: "  annotations:\n" + vmRules(4)}, false, SourceVM,
			"vm.yaml:14: error: Core amount not within range: value 5 is higher than maximum [4] [kubevirt/LimitCores]\n"},
		{"5175 VM rules only, cores 3", vmSpec{cpu: "{cores: 3}", meta: "  annotations:\n" + vmRules(4)}, true, SourceVM, ""},
		{"a VM being deleted is allowed at once", vmSpec{cpu: "{cores: 5}", meta: "  deletionTimestamp: \"2025-01-01T00:00:00Z\"\n  annotations:\n" + vmRules(4)}, true, SourceDeleting, ""},
	}
	tmplTarget := plainTarget(t, "templates/templates.yaml", functionalTemplates)
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			vmTarget := &render.Target{Name: ".", Objects: parseObjects(t, "vm.yaml", c.vm.yaml(), ".")}
			out := run(t, nil, tmplTarget, vmTarget)
			var vmFindings []finding.Finding
			for _, f := range out.Findings {
				if f.Location.File == "vm.yaml" {
					vmFindings = append(vmFindings, f)
				}
			}
			if got := short(vmFindings); got != c.findings {
				t.Errorf("findings:\n%s\nwant:\n%s\nVM:\n%s", got, c.findings, c.vm.yaml())
			}
			rep := section(out).VirtualMachines[0]
			if rep.Allowed != c.allowed || rep.RuleSource != c.source {
				t.Errorf("allowed=%v source=%s (%s), want allowed=%v source=%s", rep.Allowed, rep.RuleSource, rep.Message, c.allowed, c.source)
			}
		})
	}
}

// 5589: the incorrect Template's broken rule is a configuration finding on
// the Template, reported once however many VMs use it, and the VM is
// rejected with the validator's message.
func TestFunctionalIncorrectTemplateRules(t *testing.T) {
	tmplTarget := plainTarget(t, "templates/templates.yaml", functionalTemplates)
	vms := vmSpec{memory: "128M", meta: templateAnnotations("template-with-incorrect-rules")}.yaml()
	vmTarget := &render.Target{Name: ".", Objects: append(parseObjects(t, "a/vm.yaml", vms, "."), parseObjects(t, "b/vm.yaml", vms, ".")...)}
	out := run(t, nil, tmplTarget, vmTarget)
	line := lineOf(t, functionalTemplates, "name: template-with-incorrect-rules", `"name": "SupportedChipset"`)
	// ssp-operator internal/template-validator/validation/eval.go
	// (Evaluate): the rule fails on each VM with the validator's single
	// cause, the type error before the missing message.
	want := fmt.Sprintf(`templates/templates.yaml:%d: error: : unrecognized Rule type [kubevirt/SupportedChipset]
templates/templates.yaml:%d: error: : unrecognized Rule type [kubevirt/SupportedChipset]
`, line, line)
	if got := short(out.Findings); got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	for _, f := range out.Findings {
		if f.InputError {
			t.Errorf("%s: an input error; a failing rule is a finding", f.Message)
		}
	}
	for _, rep := range section(out).VirtualMachines {
		if rep.Allowed || rep.Message != ": unrecognized Rule type" {
			t.Errorf("%s: allowed=%v message %q", rep.File, rep.Allowed, rep.Message)
		}
	}
}
