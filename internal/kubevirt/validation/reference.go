package validation

import (
	"reflect"
	"sync"

	v1 "github.com/plumb-ci/plumb/internal/kubevirt/api/v1"
)

// referenceSliceLen is how many zero elements every list of the reference
// VM has (the validator's kubevirtjobs/refgen uses 64).
const referenceSliceLen = 64

// Reference returns the validator's reference VM: spec.template.spec.domain
// fully populated with zero values (every pointer allocated, recursively;
// every list 64 zero elements; maps empty), with KubeVirt's defaults for
// CD-ROMs (readonly, tray closed) and the i6300esb watchdog (reset).
// Everything outside the domain stays empty. A path that does not resolve
// on a VM is retried here, which is how an absent field reads as its zero
// value (cpu absent: cores 0). It is built once and must not be modified.
//
// The firmware UUID, which KubeVirt's defaulting would set to a random
// value, is left empty so results are deterministic.
var Reference = sync.OnceValue(func() *v1.VirtualMachine {
	vm := &v1.VirtualMachine{Spec: v1.VirtualMachineSpec{Template: &v1.VirtualMachineInstanceTemplateSpec{}}}
	fillZero(reflect.ValueOf(&vm.Spec.Template.Spec.Domain).Elem())
	d := &vm.Spec.Template.Spec.Domain
	for i := range d.Devices.Disks {
		cd := d.Devices.Disks[i].CDRom
		readOnly := true
		cd.ReadOnly = &readOnly
		cd.Tray = v1.TrayStateClosed
	}
	d.Devices.Watchdog.I6300ESB.Action = v1.WatchdogActionReset
	return vm
})

// fillZero allocates every pointer and list below v.
func fillZero(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fillZero(v.Elem())
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				fillZero(f)
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), referenceSliceLen, referenceSliceLen)
		for i := 0; i < referenceSliceLen; i++ {
			fillZero(s.Index(i))
		}
		v.Set(s)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
	}
}
