package validation

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	v1 "github.com/plumb-ci/plumb/internal/kubevirt/api/v1"
)

// FuzzParseAnnotation feeds arbitrary vm.kubevirt.io/validations texts to
// the parser, the linter and the evaluator. The properties: every problem
// sits at an offset inside the text; the text is rejected (Err) exactly
// when there is a problem to show; every decoded rule starts at its own
// offset, in order; and evaluating the rules on a VM gives the same result
// twice, quickly.
func FuzzParseAnnotation(f *testing.F) {
	for _, seed := range []string{
		"", "null", "[]", "   ", "{}", "[1]", "[null]", `[{}]`,
		`[{"name": "core-limits", "valid": "jsonpath::.spec.domain.cpu.cores", "path": "jsonpath::.spec.domain.cpu.cores",
		  "rule": "integer", "message": "cpu cores must be limited", "min": 1, "max": 8}]`,
		`[{"name": "bus", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "rule": "enum",
		  "message": "m", "values": ["virtio", "sata", "jsonpath::.spec.domain.devices.disks[0].disk.bus"], "justWarning": true}]`,
		`[{"name": "mem", "path": "jsonpath::.spec.domain.memory.guest", "rule": "integer", "message": "m",
		  "min": "jsonpath::.spec.domain.resources.requests.memory", "max": 9223372036854775808}]`,
		`[{"name": "s", "path": "jsonpath::.spec.domain.machine.type", "rule": "string", "message": "m", "minLength": 1, "maxLength": 2}]`,
		`[{"name": "r", "path": "jsonpath::.spec.domain.machine.type", "rule": "regex", "message": "m", "regex": "q35|pc-(?=x)"}]`,
		`[{"name": "a", "path": "jsonpath::$.spec.domain.devices.disks[?(@.name==\"root\")].disk.bus", "rule": "enum", "message": "m", "values": ["virtio"]}]`,
		`[{"name": "deep", "path": "jsonpath::..name", "rule": "string", "message": "m", "minLength": 1}]`,
		`[{"name": "a", "path": "spec.domain.cpu.cores", "rule": "integer", "message": "m"}, {"name": "a", "rule": "nope"}]`,
		`[{"name": "a", "justWarning": "yes"}, {"name": 1}, {"NAME": "b", "Rule": "integer"}]`,
		`[{"name": "a",}]`, "[{\u201cname\u201d: 1}]", `[{"name": "\ud800"}]`, "[\"\xff\"]",
		`[{"name":"x","min":1e400}]`, `[{"name":"x","path":"jsonpath::{"}]`, `[{"name":"x","path":"jsonpath::.a[1:2:0]"}]`,
	} {
		f.Add(seed)
	}
	vms := []*v1.VirtualMachine{cirrosVM(f), {Spec: v1.VirtualMachineSpec{Template: &v1.VirtualMachineInstanceTemplateSpec{}}}}
	for _, vm := range vms {
		DefaultCPU(vm)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a := ParseAnnotation(text)
		if (a.Err != nil) != (len(a.Problems) > 0) {
			t.Fatalf("%q: error %v but %d problems %+v", text, a.Err, len(a.Problems), a.Problems)
		}
		for _, p := range append(a.Problems, Lint(a.Rules)...) {
			if p.Offset < 0 || p.Offset > len(text) || p.Message == "" || p.Rule < -1 {
				t.Fatalf("%q: problem %+v is outside the text or says nothing", text, p)
			}
		}
		last := -1
		for _, r := range a.Rules {
			if r.Index <= last || r.Offset < 0 || r.Offset >= len(text) {
				t.Fatalf("%q: rule %d at offset %d (previous index %d)", text, r.Index, r.Offset, last)
			}
			if c := text[r.Offset]; c != '{' && c != 'n' {
				t.Fatalf("%q: rule %d's offset %d points at %q, not at the rule", text, r.Index, r.Offset, c)
			}
			last = r.Index
		}
		for _, vm := range vms {
			start := time.Now()
			first := summary(Evaluate(a.Rules, vm))
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("%q: evaluation took %v", text, d)
			}
			if second := summary(Evaluate(a.Rules, vm)); !reflect.DeepEqual(first, second) {
				t.Fatalf("%q: evaluated twice:\n%v\n%v", text, first, second)
			}
		}
	})
}

// summary is what a result says, comparable across runs.
func summary(r *Result) []string {
	out := []string{fmt.Sprint(r.Allowed), r.Message()}
	for _, rr := range r.Rules {
		out = append(out, fmt.Sprintf("%s %s %v %s %v %v", rr.Outcome, rr.Stage, rr.Err, rr.Detail, rr.Failing, rr.Values.FromReference))
	}
	return out
}
