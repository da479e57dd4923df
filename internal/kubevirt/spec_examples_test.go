package kubevirt

import (
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// The examples of the spec (common-templates templates/VALIDATION.md,
// "Version 201902-2"), each as a Template whose VM carries the example's
// annotation verbatim, processed and checked as a Template in a pull
// request would be. The spec's VMs have no spec.template; a small domain
// is added so the rules can be evaluated.

func specTemplate(annotation, domain string) string {
	return "apiVersion: v1\nkind: Template\nmetadata:\n  name: windows-10\nobjects:\n" +
		"- apiVersion: kubevirt.io/v1\n  kind: VirtualMachine\n  metadata:\n    name: ${NAME}\n    annotations:\n" +
		"      vm.kubevirt.io/validations: |\n" + indent(annotation, 8) +
		"  spec:\n    template:\n      spec:\n        domain:\n" + indent(domain, 10) +
		"parameters:\n- name: NAME\n  generate: expression\n  from: win10-[a-z0-9]{6}\n"
}

const sataDisk = "cpu:\n  cores: 4\ndevices:\n  disks:\n  - name: root\n    disk:\n      bus: sata\n"

func TestSpecExamples(t *testing.T) {
	cases := []struct {
		name, annotation, domain string
		// want: level rule message, each at the line of its `at` text.
		want []struct{ finding, at string }
	}{
		{"format example (curly quotes)", `[
  {
    "name": "validation-rule-01",
    "valid": "jsonpath::.some.json.path",
    "path”: "jsonpath::.some.json.path[*].leaf",
    "rule”: "integer",
    "message”: ".some.json.path[*].leaf must exists",
    "min”: 1,
    "justWarning": true
  },
  {
    "name": "validation-rule-02",
    "valid": "jsonpath::.another.json.path",
    "path": "jsonpath::.another.json.path.item",
    "rule": "integer",
    "message": "jsonpath::./another.json.path.item must be below a threshold",
    "max": "jsonpath::.yet.another.json.path.defines.the.limit"
  }
]`, sataDisk, []struct{ finding, at string }{
			{"error kubevirt/invalid-validations vm.kubevirt.io/validations is not a valid JSON list of rules: invalid character 'j' after object key", `"path”`}}},
		{"lacks rule", `[
  {
    "name": "core-limits",
    "path": "jsonpath::.spec.domain.cpu.cores",
    "message": "cpu cores must be limited",
    "min": 1,
    "max": 8
  }
]`, sataDisk, []struct{ finding, at string }{
			{`error kubevirt/core-limits cpu cores must be limited: unrecognized Rule type`, "{"}}},
		{"lacks name, message (curly quotes)", `[
  {
    “rule”: “integer”,
    "path": "jsonpath::.spec.domain.cpu.cores",
    "min": 1,
    "max": 8
  }
]`, sataDisk, []struct{ finding, at string }{
			{"error kubevirt/invalid-validations vm.kubevirt.io/validations is not a valid JSON list of rules: invalid character 'â' looking for beginning of object key string", "“rule”"}}},
		{"lacks path", `[
  {
    "rule": "integer",
    "name": "core-limits",
    "message": "cpu cores must be limited",
    "min": 1,
    "max": 8
  }
]`, sataDisk, []struct{ finding, at string }{
			{`error kubevirt/core-limits cpu cores must be limited: missing required key`, "{"}}},
		{"min/max (missing comma)", `[
  {
    "name": "core-limits",
    "valid": "jsonpath::.spec.domain.cpu",
    "path": "jsonpath::.spec.domain.cpu.cores",
    "rule": "integer",
    "message": "cpu cores must be limited"
    "min": 1,
    "max": 8
  }
]`, sataDisk, []struct{ finding, at string }{
			{`error kubevirt/invalid-validations vm.kubevirt.io/validations is not a valid JSON list of rules: invalid character '"' after object key:value pair`, `"min": 1`}}},
		{"values (a path KubeVirt does not have)", `[
  {
    "name": "supported-bus",
    "path": "jsonpath::.spec.devices.disks[*].type",
    "rule": "enum",
    "message": "the disk bus type must be one of the supported values",
    "values": ["virtio", "scsi"]
  }
]`, sataDisk, []struct{ finding, at string }{
			{"error kubevirt/supported-bus the disk bus type must be one of the supported values: invalid JSONPath", "{"}}},
		{"minLength (a path KubeVirt does not have)", `[
  {
    "name": "non-empty-net",
    "path": "jsonpath::.spec.devices.interfaces[*].name",
    "rule": "string",
    "message": "the network name must be non-empty",
    "minLength": 1
  }
]`, sataDisk, []struct{ finding, at string }{
			{"error kubevirt/non-empty-net the network name must be non-empty: invalid JSONPath", "{"}}},
		{"regex (a path KubeVirt does not have)", `[
  {
    "name": "supported-bus",
    "path": "jsonpath::.spec.devices.disks[*].type",
    "rule": "regex",
    "message": "the disk bus type must be one of the supported values",
    "regex": "(?mi)^virtio|scsi$"
  }
]`, sataDisk, []struct{ finding, at string }{
			{"error kubevirt/supported-bus the disk bus type must be one of the supported values: invalid JSONPath", "{"}}},
		{"justWarning", `[
  {
    "name": "supported-bus",
    "valid": "jsonpath::.spec.domain.devices.disks[*].disk.bus",
    "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus",
    "rule": "enum",
    "message": "the disk bus type must be one of the supported values",
    "values": ["virtio", "scsi"],
    "justWarning": true
  }
]`, sataDisk, []struct{ finding, at string }{
			{"warning kubevirt/supported-bus the disk bus type must be one of the supported values: Some of [sata] are not in [virtio, scsi]", "bus: sata"}}},
		{"well-formed core limits, satisfied", `[
  {
    "name": "core-limits",
    "path": "jsonpath::.spec.domain.cpu.cores",
    "message": "cpu cores must be limited",
    "rule": "integer",
    "min": 1,
    "max": 8
  }
]`, sataDisk, nil},
		{"well-formed core limits, too many cores", `[
  {
    "name": "core-limits",
    "path": "jsonpath::.spec.domain.cpu.cores",
    "message": "cpu cores must be limited",
    "rule": "integer",
    "min": 1,
    "max": 8
  }
]`, strings.Replace(sataDisk, "cores: 4", "cores: 16", 1), []struct{ finding, at string }{
			{"error kubevirt/core-limits cpu cores must be limited: value 16 is higher than maximum [8]", "cores: 16"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := specTemplate(c.annotation, c.domain)
			var templates []*manifest.Object
			for _, o := range parseObjects(t, "templates/windows-10.yaml", text, "templates") {
				if isTemplate(o) {
					templates = append(templates, o)
				}
			}
			out := run(t, nil, templateTarget(t, "templates", templates))
			finding.Sort(out.Findings)
			if len(out.Findings) != len(c.want) {
				t.Fatalf("%d findings, want %d:\n%s", len(out.Findings), len(c.want), short(out.Findings))
			}
			for i, w := range c.want {
				f := out.Findings[i]
				if got := f.Level.String() + " " + f.RuleID + " " + f.Message; got != w.finding {
					t.Errorf("finding %d:\n got %s\nwant %s", i, got, w.finding)
				}
				if line := lineOf(t, text, "vm.kubevirt.io/validations", w.at); f.Location.Line != line {
					t.Errorf("finding %d at line %d, want %d (%q)", i, f.Location.Line, line, w.at)
				}
			}
			vm := section(out).VirtualMachines[0]
			if vm.Template != "windows-10" {
				t.Errorf("template %q", vm.Template)
			}
		})
	}
}
