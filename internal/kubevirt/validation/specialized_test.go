package validation

import (
	"errors"
	"testing"
)

// The validator's validation/specialized_test.go ("Specialized") scenarios,
// on the cirros fixture and the reference VM.

func applyRule(t *testing.T, obj string, vmJSON string) RuleResult {
	t.Helper()
	vm := cirrosVM(t)
	if vmJSON != "" {
		vm = vmFromJSON(t, vmJSON)
	}
	res := Evaluate([]*Rule{rule(t, obj)}, vm)
	return res.Rules[0]
}

func TestSpecializedSatisfied(t *testing.T) {
	for name, obj := range map[string]string{
		"integer":              `{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.resources.requests.memory", "min": 67108864, "max": 536870912}`,
		"string":               `{"name": "r", "rule": "string", "message": "m", "path": "jsonpath::.spec.domain.machine.type", "minLength": 1, "maxLength": 32}`,
		"enum":                 `{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.machine.type", "values": ["q35", "440fx"]}`,
		"enum multiple values": `{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "values": ["virtio", "sata"]}`,
		"regex":                `{"name": "r", "rule": "regex", "message": "m", "path": "jsonpath::.spec.domain.machine.type", "regex": "q35|440fx"}`,
		"regex multiple":       `{"name": "r", "rule": "regex", "message": "m", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "regex": "virtio|sata"}`,
	} {
		t.Run(name, func(t *testing.T) {
			if rr := applyRule(t, obj, ""); rr.Outcome != Satisfied {
				t.Errorf("%v %v %q, want satisfied", rr.Outcome, rr.Err, rr.Detail)
			}
		})
	}
}

func TestSpecializedUnsatisfied(t *testing.T) {
	for name, c := range map[string]struct{ obj, detail string }{
		"integer min": {`{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.resources.requests.memory", "min": 536870912}`,
			"value 128000000 is lower than minimum [536870912]"},
		"integer max": {`{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.resources.requests.memory", "max": 67108864}`,
			"value 128000000 is higher than maximum [67108864]"},
		"string minLength": {`{"name": "r", "rule": "string", "message": "m", "path": "jsonpath::.spec.domain.machine.type", "minLength": 64}`,
			"Lengths of some strings are not in interval [64, N/A]"},
		"string maxLength": {`{"name": "r", "rule": "string", "message": "m", "path": "jsonpath::.spec.domain.machine.type", "maxLength": 1}`,
			"Lengths of some strings are not in interval [N/A, 1]"},
		"enum": {`{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.machine.type", "values": ["foo", "bar"]}`,
			"Some of [q35] are not in [foo, bar]"},
		"enum multiple values": {`{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "values": ["foo", "bar"]}`,
			"Some of [virtio, virtio] are not in [foo, bar]"},
		"regex": {`{"name": "r", "rule": "regex", "message": "m", "path": "jsonpath::.spec.domain.machine.type", "regex": "\\d[a-z]+\\d\\d"}`,
			`Some of [q35] do not match \d[a-z]+\d\d`},
		"regex multiple": {`{"name": "r", "rule": "regex", "message": "m", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "regex": "foo|bar"}`,
			"Some of [virtio, virtio] do not match foo|bar"},
	} {
		t.Run(name, func(t *testing.T) {
			rr := applyRule(t, c.obj, "")
			if rr.Outcome != Unsatisfied || rr.Detail != c.detail {
				t.Errorf("%v %v %q, want unsatisfied %q", rr.Outcome, rr.Err, rr.Detail, c.detail)
			}
		})
	}
}

func TestSpecializedBogusRuleType(t *testing.T) {
	r := rule(t, `{"name": "r", "rule": "integer-value", "message": "m", "path": "jsonpath::.spec.domain.machine.type"}`)
	if _, err := specialize(r, newResolver(cirrosVM(t), Reference())); !errors.Is(err, ErrUnrecognizedRule) {
		t.Fatalf("specialize: %v, want unrecognized Rule type", err)
	}
}

// With disks = nil, [*] yields nothing and there is no fallback.
func TestSpecializedNoValues(t *testing.T) {
	noDisks := `{"spec": {"template": {"spec": {"domain": {"machine": {"type": "q35"}}}}}}`
	for _, obj := range []string{
		`{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "values": ["virtio"]}`,
		`{"name": "r", "rule": "regex", "message": "m", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "regex": "virtio"}`,
	} {
		rr := applyRule(t, obj, noDisks)
		if rr.Outcome != Failed || !errors.Is(rr.Err, ErrNoValues) || rr.Stage != StageApply {
			t.Errorf("%v %v at %v, want no values were found when applying", rr.Outcome, rr.Err, rr.Stage)
		}
	}
}

func TestSpecializedMessages(t *testing.T) {
	enough := `{"name": "EnoughMemory", "rule": "integer", "message": "Memory size not within range",
	  "path": "jsonpath::.spec.domain.resources.requests.memory", "min": 67108864, "max": 536870912}`
	withMemory := func(q string) string {
		return `{"spec": {"template": {"spec": {"domain": {"resources": {"requests": {"memory": "` + q + `"}}}}}}}`
	}
	for q, want := range map[string]string{
		"1M":  "value 1000000 is lower than minimum [67108864]",
		"10G": "value 10000000000 is higher than maximum [536870912]",
		"68M": "All values [68000000] are in interval [67108864, 536870912]",
	} {
		if rr := applyRule(t, enough, withMemory(q)); rr.Detail != want {
			t.Errorf("%s: %q, want %q", q, rr.Detail, want)
		}
	}
}

// Research §2.12: the integer text appends ", " after every value but the
// last, even a fine one; min > max joins both texts with no separator.
func TestIntegerDetailFormatting(t *testing.T) {
	vm := `{"spec": {"template": {"spec": {"domain": {"devices": {"interfaces": [
	  {"name": "a", "ports": [{"port": 80}, {"port": 8080}, {"port": 9090}]}]}}}}}}`
	rr := applyRule(t, `{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.devices.interfaces[*].ports[*].port", "max": 1000}`, vm)
	if want := ", value 8080 is higher than maximum [1000], value 9090 is higher than maximum [1000]"; rr.Detail != want {
		t.Errorf("ports: %q, want %q", rr.Detail, want)
	}
	if len(rr.Failing) != 2 || rr.Failing[0] != 1 || rr.Failing[1] != 2 {
		t.Errorf("failing %v, want [1 2]", rr.Failing)
	}
	cores := `{"spec": {"template": {"spec": {"domain": {"cpu": {"cores": 3}}}}}}`
	rr = applyRule(t, `{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "min": 5, "max": 1}`, cores)
	if want := "value 3 is lower than minimum [5]value 3 is higher than maximum [1]"; rr.Detail != want {
		t.Errorf("min>max: %q, want %q", rr.Detail, want)
	}
	rr = applyRule(t, `{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "min": 1}`, cores)
	if want := "All values [3] are in interval [1, N/A]"; rr.Detail != want {
		t.Errorf("satisfied: %q, want %q", rr.Detail, want)
	}
}

// Research §2.9: no-argument behaviour and RE2.
func TestRuleSemanticsWithoutArguments(t *testing.T) {
	for name, c := range map[string]struct {
		obj     string
		outcome Outcome
		detail  string
	}{
		"integer checks the type only": {`{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.resources.requests.memory"}`, Satisfied, "All values [128000000] are in interval [N/A, N/A]"},
		"string always satisfied":      {`{"name": "r", "rule": "string", "message": "m", "path": "jsonpath::.spec.domain.machine.type"}`, Satisfied, "Lengts of all strings are in interval [N/A, N/A]"},
		"enum never satisfied":         {`{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.machine.type"}`, Unsatisfied, "Some of [q35] are not in []"},
		"empty regex matches all":      {`{"name": "r", "rule": "regex", "message": "m", "path": "jsonpath::.spec.domain.machine.type"}`, Satisfied, "All [q35] match "},
		"regex is unanchored":          {`{"name": "r", "rule": "regex", "message": "m", "path": "jsonpath::.spec.domain.machine.type", "regex": "q3"}`, Satisfied, "All [q35] match q3"},
	} {
		t.Run(name, func(t *testing.T) {
			rr := applyRule(t, c.obj, "")
			if rr.Outcome != c.outcome || rr.Detail != c.detail {
				t.Errorf("%v %q (%v), want %v %q", rr.Outcome, rr.Detail, rr.Err, c.outcome, c.detail)
			}
		})
	}
	rr := applyRule(t, `{"name": "r", "rule": "regex", "message": "m", "path": "jsonpath::.spec.domain.machine.type", "regex": "q(?!35)"}`, "")
	if rr.Outcome != Failed || rr.Stage != StageSpecialize || rr.Err.Error() != "error parsing regexp: invalid or unsupported Perl syntax: `(?!`" {
		t.Errorf("lookahead: %v at %v: %v", rr.Outcome, rr.Stage, rr.Err)
	}
}

// Research §2.10: arguments given as JSONPath.
func TestArgumentsAsPaths(t *testing.T) {
	vm := `{"spec": {"template": {"spec": {"domain": {"cpu": {"sockets": 2, "cores": 3}, "machine": {"type": "q35"}}}}}}`
	rr := applyRule(t, `{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "max": "jsonpath::.spec.domain.cpu.sockets"}`, vm)
	if rr.Detail != "value 3 is higher than maximum [2]" {
		t.Errorf("max from sockets: %v %q", rr.Err, rr.Detail)
	}
	// An absent target falls back to the reference VM's zero value.
	rr = applyRule(t, `{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "max": "jsonpath::.spec.domain.cpu.maxSockets"}`, vm)
	if rr.Detail != "value 3 is higher than maximum [0]" {
		t.Errorf("absent target: %v %q", rr.Err, rr.Detail)
	}
	// A path argument must yield exactly one value.
	rr = applyRule(t, `{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "max": "jsonpath::.spec.domain.devices.disks[*].bootOrder"}`, vm)
	if rr.Outcome != Failed || rr.Err.Error() != "expected one value, found 0" {
		t.Errorf("zero values: %v %v", rr.Outcome, rr.Err)
	}
	rr = applyRule(t, `{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.machine.type", "values": ["pc", "jsonpath::.spec.domain.machine.type"]}`, vm)
	if rr.Outcome != Satisfied || rr.Detail != "All [q35] are in [pc, q35]" {
		t.Errorf("enum value from path: %v %q %v", rr.Outcome, rr.Detail, rr.Err)
	}
}
