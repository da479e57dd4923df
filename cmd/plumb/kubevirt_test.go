package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// End to end through `plumb check`: the KubeVirt validations engine.

func TestDemoReportsTheVirtualMachine(t *testing.T) {
	code, out, _ := plumb(t, "check", "--root", "../..", "../../fixtures/demo")
	want := "fixtures/demo/desktops/windows11.yaml:60:11: error: This VM requires more memory.: value 2147483648 is lower than minimum [4294967296] [kubevirt/minimal-required-memory]"
	if code != 1 || !strings.Contains(out, want) {
		t.Errorf("exit %d, output lacks %q:\n%s", code, want, out)
	}
}

func TestKubeVirtTemplatesFlag(t *testing.T) {
	root := "testdata/kubevirt"
	// Without the parent Template: a note, and the VM is not checked.
	code, out, _ := plumb(t, "check", "--root", root, root+"/vms")
	if code != 0 || !strings.Contains(out, "vms/vm.yaml:7:5: note: parent Template openshift/small-vm is not among the inputs") {
		t.Errorf("without --kubevirt-templates: exit %d\n%s", code, out)
	}
	// With it, the Template's rules apply.
	code, out, _ = plumb(t, "check", "--root", root, root+"/vms", "--kubevirt-templates", root+"/templates")
	if code != 1 || !strings.Contains(out, "vms/vm.yaml:14:11: error: Core amount not within range: value 8 is higher than maximum [4] [kubevirt/LimitCores]") {
		t.Errorf("with --kubevirt-templates: exit %d\n%s", code, out)
	}
	// The same from .plumb.yaml.
	cfg := filepath.Join(t.TempDir(), "plumb.yaml")
	if err := os.WriteFile(cfg, []byte("kubevirt:\n  templates: [testdata/kubevirt/templates]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = plumb(t, "check", "--config", cfg, "--root", root, root+"/vms", "--format", "json")
	var rep struct {
		Kubevirt struct {
			VirtualMachines []struct {
				RuleSource     string `json:"rule_source"`
				SourceTemplate string `json:"source_template"`
				Allowed        bool   `json:"allowed"`
				Message        string `json:"message"`
			} `json:"virtual_machines"`
		} `json:"kubevirt"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	vms := rep.Kubevirt.VirtualMachines
	if code != 1 || len(vms) != 1 || vms[0].RuleSource != "template" || vms[0].SourceTemplate != "openshift/small-vm" || vms[0].Allowed ||
		vms[0].Message != "Core amount not within range: value 8 is higher than maximum [4]" {
		t.Errorf("from .plumb.yaml: exit %d, section %+v", code, vms)
	}
}

// A VM's validation rules that the validator would fail are the
// repository's content: an error finding (exit 1), printed once. A
// --kubevirt-templates directory that does not exist is plumb's input: exit 2.
func TestKubeVirtBadInput(t *testing.T) {
	root := "testdata/kubevirt"
	code, out, errOut := plumb(t, "check", "--root", root, root+"/broken", root+"/vms")
	want := "broken/vm.yaml:14: error: vm.kubevirt.io/validations is not a valid JSON list of rules: invalid character '}' looking for beginning of object key string [kubevirt/invalid-validations]"
	if code != 1 || !strings.Contains(out, want) || strings.Contains(errOut, "broken/vm.yaml:14") {
		t.Errorf("exit %d, want 1 and %q\nstdout:\n%s\nstderr:\n%s", code, want, out, errOut)
	}
	// The other file is still checked.
	if !strings.Contains(out, "vms/vm.yaml:7:5: note:") {
		t.Errorf("the other VM was not checked:\n%s", out)
	}
	code, out, _ = plumb(t, "check", "--root", root, root+"/vms", "--kubevirt-templates", root+"/missing")
	if code != 2 || !strings.Contains(out, "--kubevirt-templates testdata/kubevirt/missing: the directory does not exist") {
		t.Errorf("missing directory: exit %d\n%s", code, out)
	}
}

// A rule the template validator fails when it evaluates it
// (ssp-operator internal/template-validator/validation/eval.go, Evaluate:
// an unknown type, a missing path) is a failing rule of the VM — exit 1,
// kubevirt/<rule name>, the validator's cause — not a configuration error.
func TestKubeVirtRuleFailuresAreFindings(t *testing.T) {
	for _, c := range []struct{ rules, want string }{
		{`[{"name": "a", "path": "jsonpath::.spec.domain.cpu.cores", "rule": "integr", "message": "m", "min": 2}]`,
			"vm/vm.yaml:8: error: m: unrecognized Rule type [kubevirt/a]"},
		{`[{"name": "b", "rule": "integer", "message": "m", "min": 2}]`,
			"vm/vm.yaml:8: error: m: missing required key [kubevirt/b]"},
	} {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "vm"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "vm", "vm.yaml"), []byte(vmWithRules(c.rules)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := plumb(t, "check", "--root", dir, "--no-default-checks", filepath.Join(dir, "vm"))
		if code != 1 || !strings.Contains(out, c.want) {
			t.Errorf("exit %d, want 1 and %q:\n%s\n%s", code, c.want, out, errOut)
		}
	}
}
