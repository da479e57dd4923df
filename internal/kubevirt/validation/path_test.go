package validation

import (
	"errors"
	"testing"
)

// The validator's validation/path/path_test.go and variants_test.go.

func TestPathRejectsNonJSONPaths(t *testing.T) {
	for _, s := range []string{"string-literal", "$.spec.domain.resources.requests.memory", ".spec.domain.cpu.cores", ""} {
		if _, err := NewPath(s); !errors.Is(err, ErrInvalidJSONPath) {
			t.Errorf("%q: %v, want invalid JSONPath", s, err)
		}
	}
}

func TestPathMangling(t *testing.T) {
	for _, s := range []string{"jsonpath::$.spec.domain.resources.requests.memory", "jsonpath::.spec.domain.resources.requests.memory"} {
		p, err := NewPath(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if p.Expr() != ".spec.domain.resources.requests.memory" {
			t.Errorf("%q: expr %q", s, p.Expr())
		}
	}
}

func TestPathBogusFieldParsesButDoesNotResolve(t *testing.T) {
	p, err := NewPath("jsonpath::.spec.this.path.does.not.exist")
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if _, err := p.Resolve(cirrosVM(t), Reference()); !errors.Is(err, ErrInvalidJSONPath) {
		t.Errorf("resolve: %v, want invalid JSONPath", err)
	}
}

func TestPathMalformed(t *testing.T) {
	if _, err := NewPath("jsonpath::random56junk%(*$%&*()"); err == nil {
		t.Error("parsed junk")
	}
	if _, err := NewPath("jsonpath::.spec.domain["); err == nil || err.Error() != "unterminated array" {
		t.Errorf("unterminated: %v", err)
	}
}

func TestPathResults(t *testing.T) {
	vm, ref := cirrosVM(t), Reference()
	vals, err := MustPath("jsonpath::.spec.domain.resources.requests.memory").Resolve(vm, ref)
	if err != nil {
		t.Fatal(err)
	}
	ints, err := AsInt64(vals.List)
	if err != nil || len(ints) != 1 || ints[0] <= 1024 {
		t.Errorf("requests.memory: %v %v", ints, err)
	}
	vals, _ = MustPath("jsonpath::.spec.domain.memory.guest").Resolve(vm, ref)
	ints, err = AsInt64(vals.List)
	if err != nil || len(ints) != 1 || ints[0] <= 2147483647 {
		t.Errorf("memory.guest (a *Quantity): %v %v", ints, err)
	}
	vals, _ = MustPath("jsonpath::.spec.domain.machine.type").Resolve(vm, ref)
	if s := AsStrings(vals.List); len(s) != 1 || s[0] != "q35" {
		t.Errorf("machine.type: %q", s)
	}
}

// Paths written without a leading dot parse but never resolve: the text
// becomes .spec.templatespec.domain...
func TestPathWithoutLeadingDot(t *testing.T) {
	p := MustPath("jsonpath::spec.domain.cpu.cores")
	if _, err := p.Resolve(cirrosVM(t), Reference()); !errors.Is(err, ErrInvalidJSONPath) {
		t.Errorf("resolve: %v, want invalid JSONPath", err)
	}
}

// client-go matches a field by JSON tag, else by Go field name, and searches
// inline structs.
func TestPathFieldNamesAndInline(t *testing.T) {
	vm := vmFromJSON(t, `{"spec": {"template": {"spec": {"domain": {"cpu": {"cores": 4}, "devices": {"disks": [{"name": "a", "cdrom": {"bus": "sata"}}]}}}}}}`)
	vals, err := MustPath("jsonpath::.spec.domain.CPU.Cores").Find(vm)
	if err != nil || len(vals) != 1 || vals[0].Uint() != 4 {
		t.Errorf("Go field names: %v %v", vals, err)
	}
	vals, err = MustPath("jsonpath::.spec.domain.devices.disks[*].cdrom.bus").Find(vm)
	if err != nil || AsStrings(vals)[0] != "sata" {
		t.Errorf("inline DiskDevice: %v %v", vals, err)
	}
	vals, err = MustPath(`jsonpath::.spec.domain.devices.disks[?(@.name=="a")].cdrom.bus`).Find(vm)
	if err != nil || len(vals) != 1 {
		t.Errorf("filter: %v %v", vals, err)
	}
}

func TestIntOrPath(t *testing.T) {
	var ip IntOrPath
	if err := ip.UnmarshalJSON([]byte("1234")); err != nil || ip.Int != 1234 || ip.Path != nil {
		t.Errorf("int: %+v %v", ip, err)
	}
	if err := ip.UnmarshalJSON([]byte(`"jsonpath::.test.path"`)); err != nil || ip.Path == nil || ip.Path.Expr() != ".test.path" {
		t.Errorf("path: %+v %v", ip, err)
	}
	if err := ip.UnmarshalJSON([]byte("1.5")); err != nil || ip.Int != 2 {
		t.Errorf("1.5 rounds half away from zero: %+v %v", ip, err)
	}
	for _, s := range []string{`"1"`, `"1Gi"`} {
		if err := ip.UnmarshalJSON([]byte(s)); err == nil || err.Error() != "cannot unmarshall IntOrPath from JSON: invalid JSONPath" {
			t.Errorf("%s: %v", s, err)
		}
	}
}

func TestStringOrPath(t *testing.T) {
	var sp StringOrPath
	if err := sp.UnmarshalJSON([]byte(`"virtio"`)); err != nil || sp.Str != "virtio" || sp.Path != nil {
		t.Errorf("string: %+v %v", sp, err)
	}
	if err := sp.UnmarshalJSON([]byte(`"jsonpath::.test.path"`)); err != nil || sp.Path == nil || sp.Path.Expr() != ".test.path" {
		t.Errorf("path: %+v %v", sp, err)
	}
}
