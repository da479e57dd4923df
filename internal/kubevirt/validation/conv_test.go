package validation

import (
	"errors"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Research §2.8: quantities become bytes, exactly; a fractional byte count
// is a type mismatch.
func TestQuantityToBytes(t *testing.T) {
	for q, want := range map[string]int64{
		"2Gi":    2147483648,
		"2G":     2000000000,
		"128M":   128000000,
		"1500Mi": 1572864000,
		"1.5G":   1500000000,
		// The validator's fast path rejects these; in a cluster virt-api
		// re-serialises them first (1536Mi, 512Mi), so plumb accepts them.
		"1.5Gi": 1610612736,
		"0.5Gi": 536870912,
		"1024":  1024,
	} {
		v := resource.MustParse(q)
		for _, val := range []reflect.Value{reflect.ValueOf(v), reflect.ValueOf(&v)} {
			got, err := ToInt64(val)
			if err != nil || got != want {
				t.Errorf("%s (%s): %d %v, want %d", q, val.Type(), got, err, want)
			}
		}
		if orig := resource.MustParse(q); v.String() != orig.String() {
			t.Errorf("%s: converting modified the quantity (%s)", q, v.String())
		}
	}
	for _, q := range []string{"1500m", "1.5", "0.5"} {
		v := resource.MustParse(q)
		_, err := ToInt64(reflect.ValueOf(&v))
		var mm *MismatchError
		if !errors.As(err, &mm) || err.Error() != "mismatching type: *resource.Quantity, not int or resource.Quantity" {
			t.Errorf("%s: %v, want a mismatch", q, err)
		}
	}
	var nilQ *resource.Quantity
	if _, err := ToInt64(reflect.ValueOf(nilQ)); !errors.As(err, new(*NilQuantityError)) {
		t.Errorf("nil quantity: %v", err)
	}
}

func TestToInt64Types(t *testing.T) {
	for _, v := range []any{int(3), int32(3), int64(3), uint(3), uint32(3), uint64(3), float32(2.6), float64(3.4)} {
		if n, err := ToInt64(reflect.ValueOf(v)); err != nil || n != 3 {
			t.Errorf("%T: %d %v", v, n, err)
		}
	}
	u := uint(1)
	for v, want := range map[any]string{
		"5":  "mismatching type: string, not int or resource.Quantity",
		true: "mismatching type: bool, not int or resource.Quantity",
		&u:   "mismatching type: *uint, not int or resource.Quantity",
	} {
		if _, err := ToInt64(reflect.ValueOf(v)); err == nil || err.Error() != want {
			t.Errorf("%T: %v, want %q", v, err, want)
		}
	}
}

// Research §2.8: anything but a string renders as Go's "<T Value>".
func TestStringRendering(t *testing.T) {
	vm := vmFromJSON(t, `{"spec": {"template": {"spec": {"domain": {"cpu": {"cores": 5}, "memory": {"guest": "2Gi"},
	  "devices": {"disks": [{"name": "a", "disk": {"bus": "sata"}}]}}}}}}`)
	for path, want := range map[string]string{
		"jsonpath::.spec.domain.cpu.cores":                  "<uint32 Value>",
		"jsonpath::.spec.domain.memory.guest":               "<*resource.Quantity Value>",
		"jsonpath::.spec.domain.devices.disks[0].disk.bus":  "sata",
		"jsonpath::.spec.domain.devices.disks[0].bootOrder": "<*uint Value>",
	} {
		vals, err := MustPath(path).Find(vm)
		if err != nil || ToString(vals[0]) != want {
			t.Errorf("%s: %v %v, want %q", path, AsStrings(vals), err, want)
		}
	}
	// So an enum on cores never matches "5".
	rr := Evaluate(mustRules(t, `[{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "values": ["5"]}]`), vm).Rules[0]
	if rr.Outcome != Unsatisfied || rr.Detail != "Some of [<uint32 Value>] are not in [5]" {
		t.Errorf("%v %q", rr.Outcome, rr.Detail)
	}
	// Length is in bytes: <uint32 Value> is 14.
	rr = Evaluate(mustRules(t, `[{"name": "r", "rule": "string", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "minLength": 14, "maxLength": 14}]`), vm).Rules[0]
	if rr.Outcome != Satisfied {
		t.Errorf("length: %v %q", rr.Outcome, rr.Detail)
	}
}

// Research §2.7: existence semantics on the typed VM and the reference VM.
func TestExistenceSemantics(t *testing.T) {
	cases := []struct {
		name, vm, rule string
		outcome        Outcome
		detail, err    string
	}{
		{"cpu absent: 0 from the reference VM",
			`{"spec": {"template": {"spec": {"domain": {}}}}}`,
			`{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "min": 1}`,
			Unsatisfied, "value 0 is lower than minimum [1]", ""},
		{"memory absent: guest 0 from the reference VM",
			`{"spec": {"template": {"spec": {"domain": {"resources": {"requests": {"memory": "4Gi"}}}}}}}`,
			`{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.memory.guest", "min": 1610612736}`,
			Unsatisfied, "value 0 is lower than minimum [1610612736]", ""},
		{"missing map key: invalid JSONPath (the reference map is empty too)",
			`{"spec": {"template": {"spec": {"domain": {"memory": {"guest": "1Gi"}}}}}}`,
			`{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.resources.requests.memory", "min": 1}`,
			Failed, "", "invalid JSONPath"},
		{"all disks CD-ROMs: 64 empty buses from the reference VM",
			`{"spec": {"template": {"spec": {"domain": {"devices": {"disks": [{"name": "cd", "cdrom": {"bus": "sata"}}]}}}}}}`,
			`{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "values": ["virtio"]}`,
			Unsatisfied, "Some of [" + repeatJoin("", 64) + "] are not in [virtio]", ""},
		{"disks absent: no values",
			`{"spec": {"template": {"spec": {"domain": {}}}}}`,
			`{"name": "r", "rule": "enum", "message": "m", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "values": ["virtio"]}`,
			Failed, "", "no values were found"},
		{"nil leaf counts for valid: cd-bus rule on a plain disk without valid on cdrom.bus",
			`{"spec": {"template": {"spec": {"domain": {"devices": {"disks": [{"name": "d", "disk": {"bus": "virtio"}}]}}}}}}`,
			`{"name": "r", "rule": "enum", "message": "cd bus has to be sata", "valid": "jsonpath::.spec.domain.devices.disks[*].cdrom", "path": "jsonpath::.spec.domain.devices.disks[*].cdrom.bus", "values": ["sata"]}`,
			Unsatisfied, "Some of [" + repeatJoin("sata", 0) + repeatJoin("", 64) + "] are not in [sata]", ""},
		{"valid on cdrom.bus skips a VM without CD-ROMs",
			`{"spec": {"template": {"spec": {"domain": {"devices": {"disks": [{"name": "d", "disk": {"bus": "virtio"}}]}}}}}}`,
			`{"name": "r", "rule": "enum", "message": "cd bus has to be sata", "valid": "jsonpath::.spec.domain.devices.disks[*].cdrom.bus", "path": "jsonpath::.spec.domain.devices.disks[*].cdrom.bus", "values": ["sata"]}`,
			Skipped, "", ""},
		{"nil quantity leaf: the validator crashes, plumb reports it",
			`{"spec": {"template": {"spec": {"domain": {"memory": {"hugepages": {"pageSize": "2Mi"}}}}}}}`,
			`{"name": "r", "rule": "integer", "message": "m", "valid": "jsonpath::.spec.domain.memory.guest", "path": "jsonpath::.spec.domain.memory.guest", "min": 1}`,
			Failed, "", (&NilQuantityError{}).Error()},
		{"interfaces[*].model is found as an empty string",
			`{"spec": {"template": {"spec": {"domain": {"devices": {"interfaces": [{"name": "default", "masquerade": {}}]}}}}}}`,
			`{"name": "r", "rule": "enum", "message": "m", "valid": "jsonpath::.spec.domain.devices.interfaces[*].model", "path": "jsonpath::.spec.domain.devices.interfaces[*].model", "values": ["virtio"]}`,
			Unsatisfied, "Some of [] are not in [virtio]", ""},
		{"an unknown YAML key is dropped when decoding",
			`{"spec": {"template": {"spec": {"domain": {"cpu": {"cores": 2, "turbo": true}}}}}}`,
			`{"name": "r", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.turbo", "min": 1}`,
			Failed, "", "invalid JSONPath"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vm := vmFromJSON(t, c.vm)
			DefaultCPU(vm)
			rr := Evaluate([]*Rule{rule(t, c.rule)}, vm).Rules[0]
			gotErr := ""
			if rr.Err != nil {
				gotErr = rr.Err.Error()
			}
			if rr.Outcome != c.outcome || rr.Detail != c.detail || gotErr != c.err {
				t.Errorf("got %v %q %q\nwant %v %q %q", rr.Outcome, rr.Detail, gotErr, c.outcome, c.detail, c.err)
			}
		})
	}
}

func repeatJoin(s string, n int) string {
	out := ""
	for i := 0; i < n; i++ {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

func TestReferenceVM(t *testing.T) {
	ref := Reference()
	d := ref.Spec.Template.Spec.Domain
	if len(d.Devices.Disks) != 64 || len(d.Devices.Interfaces) != 64 || len(d.Devices.Interfaces[3].Ports) != 64 || len(d.Devices.Interfaces[0].DHCPOptions.NTPServers) != 64 {
		t.Fatalf("lists not filled")
	}
	if d.CPU == nil || d.Memory.Guest == nil || d.Firmware.Bootloader.EFI.SecureBoot == nil {
		t.Fatal("pointers not allocated")
	}
	if !*d.Devices.Disks[5].CDRom.ReadOnly || d.Devices.Disks[5].CDRom.Tray != "closed" || d.Devices.Watchdog.I6300ESB.Action != "reset" {
		t.Error("defaults not applied")
	}
	if d.Resources.Requests == nil || len(d.Resources.Requests) != 0 {
		t.Error("maps must be empty")
	}
	if ref.Spec.Template.Spec.Volumes != nil {
		t.Error("only the domain is populated")
	}
}
