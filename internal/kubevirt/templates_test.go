package kubevirt

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// --kubevirt-templates: parent Templates from outside the inputs.
func TestLoadTemplates(t *testing.T) {
	dir := t.TempDir()
	tmpl := "apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: small-vm\n  annotations:\n    validations: |\n      [{\"name\": \"LimitCores\", \"path\": \"jsonpath::.spec.domain.cpu.cores\", \"rule\": \"integer\", \"message\": \"Core amount not within range\", \"max\": 4},\n       {\"name\": \"LimitCores\", \"path\": \"jsonpath::.spec.domain.cpu.sockets\", \"rule\": \"integer\", \"message\": \"m\", \"max\": 4}]\nobjects: []\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ignored\n"
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "small.yaml"), []byte(tmpl), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte("a: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	templates, problems := LoadTemplates([]string{dir, filepath.Join(dir, "missing")}, manifest.DefaultLimits)
	if len(templates) != 1 || templates[0].ID.Name != "small-vm" {
		t.Fatalf("templates %v", templates)
	}
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.Error())
	}
	if len(problems) != 2 || !problems[0].Input || !strings.HasPrefix(problems[0].Location.File, filepath.ToSlash(dir)+"/broken.yaml") ||
		!strings.Contains(msgs[1], "missing: the directory does not exist") {
		t.Errorf("problems:\n%s", strings.Join(msgs, "\n"))
	}

	vm := "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\n  labels:\n    vm.kubevirt.io/template: small-vm\n    vm.kubevirt.io/template.namespace: openshift\nspec:\n  template:\n    spec:\n      domain:\n        cpu:\n          cores: 8\n"
	out := run(t, &Analyzer{Templates: templates}, plainTarget(t, "vms/vm.yaml", vm))
	got := short(out.Findings)
	tmplFile := filepath.ToSlash(dir) + "/sub/small.yaml"
	// The second rule named LimitCores fails on the VM with the
	// validator's cause, at its definition in the Template.
	want := tmplFile + ":8: error: m: duplicate Rule Name [kubevirt/LimitCores]\n" +
		"vms/vm.yaml:13: error: Core amount not within range: value 8 is higher than maximum [4] [kubevirt/LimitCores]\n"
	if got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	// A rendered Template of the same name wins over the directory's.
	own := "apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: small-vm\n  namespace: openshift\n  annotations:\n    validations: '[]'\nobjects: []\n"
	out = run(t, &Analyzer{Templates: templates}, plainTarget(t, "t/own.yaml", own), plainTarget(t, "vms/vm.yaml", vm))
	if len(out.Findings) != 0 {
		t.Errorf("rendered Template not preferred:\n%s", short(out.Findings))
	}
}

// A Template whose own VM breaks its rules is caught where it is written:
// the finding is on the Template's file, at the VM's field.
func TestTemplateViolatingItsOwnRules(t *testing.T) {
	text := "apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: tiny\n  namespace: openshift\nobjects:\n" +
		"- apiVersion: kubevirt.io/v1\n  kind: VirtualMachine\n  metadata:\n    name: ${NAME}\n    annotations:\n      vm.kubevirt.io/validations: |\n" +
		"        [{\"name\": \"minimal-required-memory\", \"path\": \"jsonpath::.spec.domain.memory.guest\", \"rule\": \"integer\", \"message\": \"This VM requires more memory.\", \"min\": 1610612736}]\n" +
		"  spec:\n    template:\n      spec:\n        domain:\n          memory:\n            guest: ${MEMORY}\n" +
		"parameters:\n- name: NAME\n  generate: expression\n  from: tiny-[a-z]{4}\n- name: MEMORY\n  value: 1Gi\n"
	templates := parseObjects(t, "templates/tiny.yaml", text, "templates")
	tg := templateTarget(t, "templates", templates)
	out := run(t, nil, tg)
	if got, want := short(out.Findings), "templates/tiny.yaml:19: error: This VM requires more memory.: value 1073741824 is lower than minimum [1610612736] [kubevirt/minimal-required-memory]\n"; got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	vm := section(out).VirtualMachines[0]
	if vm.Template != "openshift/tiny" || vm.Object.Name != "tiny-name" || vm.Allowed {
		t.Errorf("%+v", vm)
	}
	if f := out.Findings[0]; f.Related[0].Line != 13 || f.Help == "" || !strings.Contains(f.Help, "at least 1610612736 bytes (1.5Gi)") {
		t.Errorf("related %+v help %q", f.Related, f.Help)
	}
	// Processed objects that the render stage did not also list in the
	// target's objects are still checked, once.
	tg.Objects = nil
	if out := run(t, nil, tg); len(out.Findings) != 1 || section(out).Summary.VirtualMachines != 1 {
		t.Errorf("objects only in Templates: %s", short(out.Findings))
	}
}

// A Template the render stage has not processed: its VMs' rules are linted
// where they are written, and not evaluated (their parameters are not
// substituted); once processed, they are evaluated and not linted twice.
func TestUnprocessedTemplateIsLinted(t *testing.T) {
	text := "apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: tiny\nobjects:\n" +
		"- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: ${NAME}-config\n" +
		"- apiVersion: kubevirt.io/v1\n  kind: VirtualMachine\n  metadata:\n    name: ${NAME}\n    annotations:\n      vm.kubevirt.io/validations: |\n" +
		"        [\n          {\"name\": \"memory\", \"path\": \"jsonpath::.spec.domain.memory.guest\", \"rule\": \"integer\", \"message\": \"More memory.\", \"min\": 1610612736},\n" +
		"          {\"name\": \"bus\", \"path\": \"jsonpath::.spec.domain.devices.disks[*].disk.bus\", \"rule\": \"enumeration\", \"message\": \"m\"}\n        ]\n" +
		"  spec:\n    template:\n      spec:\n        domain:\n          memory:\n            guest: ${MEMORY}\n" +
		"parameters:\n- name: NAME\n  generate: expression\n  from: tiny-[a-z]{4}\n- name: MEMORY\n  value: 1Gi\n"
	objs := parseObjects(t, "templates/tiny.yaml", text, "templates")
	raw := &render.Target{Name: "templates", Objects: objs}
	out := run(t, nil, raw)
	// The unknown type fails on any VM: reported as the failing rule, at
	// its definition, before and after processing.
	want := "templates/tiny.yaml:18: error: m: unrecognized Rule type [kubevirt/bus]\n"
	if got := short(out.Findings); got != want {
		t.Errorf("unprocessed:\n%s\nwant:\n%s", got, want)
	}
	if n := section(out).Summary.VirtualMachines; n != 0 {
		t.Errorf("%d VMs evaluated, want none", n)
	}
	processed := templateTarget(t, "templates", objs)
	processed.Objects = append(objs, processed.Objects...) // the Template stays among the objects
	out = run(t, nil, processed)
	want += "templates/tiny.yaml:25: error: More memory.: value 1073741824 is lower than minimum [1610612736] [kubevirt/memory]\n"
	if got := short(out.Findings); got != want {
		t.Errorf("processed:\n%s\nwant:\n%s", got, want)
	}
}

// Through the real render stage, whose processed objects have no document
// of their own: a rule that a parameter breaks, and the definition of a
// rule the Template's VM violates, are located at their own lines of the
// Template's file (the parameters change the annotation's text, not its
// lines).
func TestRenderedTemplateRuleLines(t *testing.T) {
	text := `apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: small
  namespace: openshift
objects:
- apiVersion: kubevirt.io/v1
  kind: VirtualMachine
  metadata:
    name: ${NAME}
    annotations:
      vm.kubevirt.io/validations: |
        [
          {"name": "memory", "path": "jsonpath::.spec.domain.memory.guest", "rule": "integer", "message": "More memory.", "min": 2147483648},
          {"name": "cores", "path": "jsonpath::.spec.domain.cpu.cores", "rule": "integer", "message": "Fewer cores.", "max": "${MAX_CORES}"}
        ]
  spec:
    template:
      spec:
        domain:
          cpu:
            cores: 4
          memory:
            guest: ${MEMORY}
parameters:
- name: NAME
  value: small-vm
- name: MEMORY
  value: 1Gi
- name: MAX_CORES
  value: "2"
`
	fsys := fstest.MapFS{"templates/small.yaml": &fstest.MapFile{Data: []byte(text)}}
	set := manifest.Load(fsys, []string{"."}, manifest.LoadOptions{})
	res := render.Render(context.Background(), fsys, set, render.Options{})
	if len(res.Targets) != 1 || len(res.Targets[0].Templates) != 1 {
		t.Fatalf("render: %+v", res)
	}
	out := run(t, nil, res.Targets...)
	want := `templates/small.yaml:15: error: vm.kubevirt.io/validations rule 2 ("cores"): cannot unmarshall IntOrPath from JSON: invalid JSONPath: a path is "jsonpath::" followed by the field's path in the VM, for example "jsonpath::.spec.domain.cpu.cores" [kubevirt/invalid-validations]
templates/small.yaml:24: error: More memory.: value 1073741824 is lower than minimum [2147483648] [kubevirt/memory]
`
	if got := short(out.Findings); got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	for _, f := range out.Findings {
		if f.RuleID == "kubevirt/memory" && (len(f.Related) == 0 || f.Related[0].File != "templates/small.yaml" || f.Related[0].Line != 14) {
			t.Errorf("rule definition at %+v, want templates/small.yaml:14", f.Related)
		}
	}
}

// A Template's legacy rules that no VM is checked against still report
// the rules the validator fails on any VM, at their definition; once a VM
// uses the Template, its check reports them instead (not twice).
func TestUnusedTemplateRulesThatAlwaysFail(t *testing.T) {
	tmpl := "apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: base\n  namespace: openshift\n  annotations:\n    validations: |\n" +
		"      [\n        {\"name\": \"a\", \"path\": \"jsonpath::.spec.domain.cpu.cores\", \"rule\": \"integer\", \"message\": \"m\", \"min\": 1},\n" +
		"        {\"name\": \"a\", \"path\": \"jsonpath::.spec.domain.cpu.cores\", \"rule\": \"interger\", \"message\": \"m\"}\n      ]\nobjects: []\n"
	out := run(t, nil, plainTarget(t, "t/base.yaml", tmpl))
	// ssp-operator validation/eval.go (Evaluate): the duplicate name is
	// the second rule's only cause, although its type is unknown too.
	if got, want := short(out.Findings), "t/base.yaml:10: error: m: duplicate Rule Name [kubevirt/a]\n"; got != want {
		t.Errorf("findings:\n%s\nwant:\n%s", got, want)
	}
	vm := "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\n  labels:\n    vm.kubevirt.io/template: base\n    vm.kubevirt.io/template.namespace: openshift\nspec:\n  template:\n    spec:\n      domain:\n        cpu:\n          cores: 2\n"
	out = run(t, nil, plainTarget(t, "t/base.yaml", tmpl), plainTarget(t, "vms/vm.yaml", vm))
	if got, want := short(out.Findings), "t/base.yaml:10: error: m: duplicate Rule Name [kubevirt/a]\n"; got != want {
		t.Errorf("with a VM:\n%s\nwant:\n%s", got, want)
	}
	if out.Findings[0].Object.Kind != "VirtualMachine" {
		t.Errorf("reported on %s, want the VM", out.Findings[0].Object)
	}
}
