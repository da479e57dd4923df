package validation

import (
	"errors"
	"testing"

	v1 "github.com/plumb-ci/plumb/internal/kubevirt/api/v1"
)

// The validator's validation/eval_test.go ("Eval") scenarios.

func TestEvalDuplicateNames(t *testing.T) {
	rules := mustRules(t, `[
	  {"name": "rule-1", "rule": "integer", "message": "cores", "path": "jsonpath::.spec.domain.cpu.cores", "min": 0},
	  {"name": "rule-1", "rule": "integer", "message": "cores again", "path": "jsonpath::.spec.domain.cpu.cores", "min": 0}
	]`)
	res := Evaluate(rules, &v1.VirtualMachine{})
	if res.Allowed {
		t.Fatal("allowed, want rejected")
	}
	if res.Rules[0].Err != nil || res.Rules[0].Outcome != Satisfied {
		t.Errorf("rule 0: %v %v, want satisfied", res.Rules[0].Outcome, res.Rules[0].Err)
	}
	if !errors.Is(res.Rules[1].Err, ErrDuplicateName) {
		t.Errorf("rule 1: %v, want duplicate Rule Name", res.Rules[1].Err)
	}
	if got, want := res.Message(), "cores again: duplicate Rule Name"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

func TestEvalMissingKeys(t *testing.T) {
	rules := mustRules(t, `[{"name": "rule-1", "rule": "integer", "path": "jsonpath::.spec.domain.cpu.cores", "min": 8}]`)
	res := Evaluate(rules, &v1.VirtualMachine{})
	if res.Allowed || !errors.Is(res.Rules[0].Err, ErrMissingRequiredKey) {
		t.Fatalf("allowed=%v err=%v, want missing required key", res.Allowed, res.Rules[0].Err)
	}
	if got := res.Message(); got != ": missing required key" {
		t.Errorf("message %q", got)
	}
}

func TestEvalInvalidRuleType(t *testing.T) {
	rules := mustRules(t, `[{"name": "rule-1", "rule": "foobar", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores"}]`)
	res := Evaluate(rules, &v1.VirtualMachine{})
	if res.Allowed || !errors.Is(res.Rules[0].Err, ErrUnrecognizedRule) {
		t.Fatalf("allowed=%v err=%v, want unrecognized Rule type", res.Allowed, res.Rules[0].Err)
	}
}

func TestEvalUnappliableRuleIsSkipped(t *testing.T) {
	rules := mustRules(t, `[{"name": "rule-1", "rule": "integer", "message": "m",
	  "valid": "jsonpath::.spec.domain.this.path.does.not.exist",
	  "path": "jsonpath::.spec.domain.cpu.cores", "min": 8}]`)
	res := Evaluate(rules, &v1.VirtualMachine{})
	if !res.Allowed || res.Rules[0].Outcome != Skipped {
		t.Fatalf("allowed=%v outcome=%v, want allowed and skipped", res.Allowed, res.Rules[0].Outcome)
	}
}

func TestEvalJustWarningOnEmptyVM(t *testing.T) {
	rules := mustRules(t, `[{"name": "LimitCores", "rule": "integer", "message": "Core amount not within range",
	  "path": "jsonpath::.spec.domain.cpu.cores", "min": 8, "justWarning": true}]`)
	res := Evaluate(rules, &v1.VirtualMachine{})
	rr := res.Rules[0]
	if !res.Allowed || rr.Outcome != Unsatisfied || rr.Err != nil {
		t.Fatalf("allowed=%v outcome=%v err=%v, want allowed, unsatisfied, no error", res.Allowed, rr.Outcome, rr.Err)
	}
	if rr.Detail != "value 0 is lower than minimum [8]" || !rr.Values.FromReference {
		t.Errorf("detail %q fromReference=%v", rr.Detail, rr.Values.FromReference)
	}
}

const limitCores18 = `{"name": "LimitCores", "rule": "integer", "message": "Core amount not within range",
  "path": "jsonpath::.spec.domain.cpu.cores", "min": 1, "max": 8`

func TestEvalSkipsUninitializedPathsWhenAsked(t *testing.T) {
	rules := mustRules(t, `[`+limitCores18+`, "valid": "jsonpath::.spec.domain.cpu.cores"}]`)
	res := Evaluate(rules, cirrosVM(t))
	if !res.Allowed || res.Rules[0].Outcome != Skipped {
		t.Fatalf("allowed=%v outcome=%v, want skipped", res.Allowed, res.Rules[0].Outcome)
	}
}

func TestEvalHandlesUninitializedPaths(t *testing.T) {
	rules := mustRules(t, `[`+limitCores18+`}]`)
	res := Evaluate(rules, cirrosVM(t))
	if res.Allowed {
		t.Fatal("allowed, want rejected (cores 0 from the reference VM)")
	}
	if got, want := res.Message(), "Core amount not within range: value 0 is lower than minimum [1]"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

func TestEvalUninitializedPathsIntermixedWithValidPaths(t *testing.T) {
	rules := mustRules(t, `[
	  {"name": "EnoughMemory", "rule": "integer", "message": "Memory size not within range",
	   "path": "jsonpath::.spec.domain.resources.requests.memory", "min": 67108864, "max": 536870912},
	  {"name": "LimitCores", "rule": "integer", "message": "Core amount not within range",
	   "path": "jsonpath::.spec.domain.cpu.cores", "min": 1, "max": 4},
	  {"name": "SupportedChipset", "rule": "enum", "message": "Machine type is a supported value",
	   "path": "jsonpath::.spec.domain.machine.type", "values": ["q35"]}
	]`)
	res := Evaluate(rules, cirrosVM(t))
	if res.Allowed {
		t.Fatal("allowed, want rejected")
	}
	var causes []string
	for _, rr := range res.Rules {
		if rr.Outcome == Failed || rr.Outcome == Unsatisfied {
			causes = append(causes, rr.Cause())
		}
	}
	if len(causes) != 1 || causes[0] != "Core amount not within range: value 0 is lower than minimum [1]" {
		t.Errorf("causes %q, want exactly the cores one", causes)
	}
}

const diskBusSataWarning = `{"name": "disk-bus", "rule": "enum", "message": "Disk bus is not sata",
  "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "values": ["sata"], "justWarning": true}`

func TestEvalJustWarningOnCirros(t *testing.T) {
	res := Evaluate(mustRules(t, "["+diskBusSataWarning+"]"), cirrosVM(t))
	rr := res.Rules[0]
	if !res.Allowed || rr.Outcome != Unsatisfied {
		t.Fatalf("allowed=%v outcome=%v, want allowed and unsatisfied", res.Allowed, rr.Outcome)
	}
	if rr.Detail != "Some of [virtio, virtio] are not in [sata]" {
		t.Errorf("detail %q", rr.Detail)
	}
}

func TestEvalFailsWhenOneRuleIsNotJustWarning(t *testing.T) {
	res := Evaluate(mustRules(t, `[`+diskBusSataWarning+`,
	  {"name": "LimitCores", "rule": "integer", "message": "Core amount not within range",
	   "path": "jsonpath::.spec.domain.cpu.cores", "min": 6, "max": 8}]`), cirrosVM(t))
	if res.Allowed {
		t.Fatal("allowed, want rejected")
	}
	for i, rr := range res.Rules {
		if rr.Outcome != Unsatisfied || rr.Err != nil {
			t.Errorf("rule %d: %v %v, want unsatisfied without error", i, rr.Outcome, rr.Err)
		}
	}
	// The denial lists the justWarning rule too.
	want := "Disk bus is not sata: Some of [virtio, virtio] are not in [sata], Core amount not within range: value 0 is lower than minimum [6]"
	if got := res.Message(); got != want {
		t.Errorf("message\n got %q\nwant %q", got, want)
	}
}

func TestEvalRulesetSucceeds(t *testing.T) {
	res := Evaluate(mustRules(t, `[
	  {"name": "EnoughMemory", "rule": "integer", "message": "Memory size not within range",
	   "path": "jsonpath::.spec.domain.resources.requests.memory", "min": 67108864, "max": 536870912},
	  {"name": "SupportedChipset", "rule": "enum", "message": "Machine type is a supported value",
	   "path": "jsonpath::.spec.domain.machine.type", "values": ["q35"]}
	]`), cirrosVM(t))
	if !res.Allowed {
		t.Fatalf("rejected: %s", res.Message())
	}
	for i, rr := range res.Rules {
		if rr.Outcome != Satisfied {
			t.Errorf("rule %d: %v", i, rr.Outcome)
		}
	}
}

func TestEvalRulesetWithMalformedRule(t *testing.T) {
	res := Evaluate(mustRules(t, `[
	  {"name": "EnoughMemory", "rule": "integer", "message": "Memory size not within range",
	   "path": "jsonpath::.spec.domain.resources.requests.memory", "min": 67108864, "max": 536870912},
	  {"name": "SupportedChipset", "rule": "value-set", "message": "Machine type is a supported value",
	   "path": "jsonpath::.spec.domain.machine.type", "values": ["q35"]}
	]`), cirrosVM(t))
	if res.Allowed || !errors.Is(res.Rules[1].Err, ErrUnrecognizedRule) {
		t.Fatalf("allowed=%v err=%v", res.Allowed, res.Rules[1].Err)
	}
}

func TestEvalJustWarningWithIncorrectPathStillFails(t *testing.T) {
	res := Evaluate(mustRules(t, `[
	  {"name": "Bogus", "rule": "integer", "message": "bogus", "justWarning": true,
	   "path": "jsonpath::.spec.domain.this.path.does.not.exist", "min": 1},
	  {"name": "LimitCores", "rule": "integer", "message": "Core amount not within range",
	   "path": "jsonpath::.spec.domain.cpu.cores", "min": 0, "max": 8}
	]`), cirrosVM(t))
	if res.Allowed {
		t.Fatal("allowed, want rejected: an error fails the VM even on a justWarning rule")
	}
	if !errors.Is(res.Rules[0].Err, ErrInvalidJSONPath) {
		t.Errorf("rule 0 error %v, want invalid JSONPath", res.Rules[0].Err)
	}
	if res.Rules[1].Outcome != Satisfied {
		t.Errorf("rule 1 %v, want satisfied (0 from the reference VM)", res.Rules[1].Outcome)
	}
}

// admission_test.go: "should set default sockets / cores / threads".
func TestDefaultCPU(t *testing.T) {
	vm := vmFromJSON(t, `{"spec": {"template": {"spec": {"domain": {"cpu": {}}}}}}`)
	DefaultCPU(vm)
	rules := mustRules(t, `[
	  {"name": "sockets", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.sockets", "min": 1},
	  {"name": "cores", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "min": 1},
	  {"name": "threads", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.threads", "min": 1}
	]`)
	if res := Evaluate(rules, vm); !res.Allowed {
		t.Fatalf("rejected: %s", res.Message())
	}
	// Without cpu nothing is defaulted: 0 from the reference VM.
	bare := vmFromJSON(t, `{"spec": {"template": {"spec": {"domain": {}}}}}`)
	DefaultCPU(bare)
	if res := Evaluate(rules, bare); res.Allowed {
		t.Fatal("allowed without cpu, want cores 0")
	}
	// sockets only: cores defaulted to 1 (functional test 5593).
	one := vmFromJSON(t, `{"spec": {"template": {"spec": {"domain": {"cpu": {"sockets": 1}}}}}}`)
	DefaultCPU(one)
	if one.Spec.Template.Spec.Domain.CPU.Cores != 1 || one.Spec.Template.Spec.Domain.CPU.Threads != 1 {
		t.Errorf("cpu %+v", one.Spec.Template.Spec.Domain.CPU)
	}
}
