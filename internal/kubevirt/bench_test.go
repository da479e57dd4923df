package kubevirt

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/bench"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// benchVMs renders n Windows 11 VMs carrying the common template's five
// rules; distinct gives every VM its own annotation text (a different
// memory minimum), so each is parsed and linted separately.
func benchVMs(b *testing.B, n int, distinct bool) []*render.Target {
	var objs []*manifest.Object
	var sb strings.Builder
	flush := func() {
		objs = append(objs, parseObjects(b, fmt.Sprintf("vms/vms-%d.yaml", len(objs)/500), sb.String(), "vms")...)
		sb.Reset()
	}
	for i := 0; i < n; i++ {
		if i > 0 && i%500 == 0 {
			flush() // files of 500 VMs, under the file size limit
		}
		min := 4294967296
		if distinct {
			min += i
		}
		fmt.Fprintf(&sb, `---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: win11-%d
  namespace: vms
  labels:
    vm.kubevirt.io/template: windows11-desktop-medium
  annotations:
    vm.kubevirt.io/validations: |
      [
        {"name": "minimal-required-memory", "path": "jsonpath::.spec.domain.memory.guest", "rule": "integer", "message": "This VM requires more memory.", "min": %d},
        {"name": "windows-virtio-bus", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "valid": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "rule": "enum", "message": "virtio disk bus type has better performance, install virtio drivers in VM and change bus type", "values": ["virtio"], "justWarning": true},
        {"name": "windows-disk-bus", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "valid": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "rule": "enum", "message": "disk bus has to be either virtio or sata or scsi", "values": ["virtio", "sata", "scsi"]},
        {"name": "windows-cd-bus", "path": "jsonpath::.spec.domain.devices.disks[*].cdrom.bus", "valid": "jsonpath::.spec.domain.devices.disks[*].cdrom.bus", "rule": "enum", "message": "cd bus has to be sata", "values": ["sata"]},
        {"name": "minimal-required-cores", "path": "jsonpath::.spec.domain.cpu.cores", "rule": "integer", "message": "This VM requires more cores.", "min": 2}
      ]
spec:
  runStrategy: Halted
  template:
    metadata:
      labels:
        kubevirt.io/domain: win11-%d
    spec:
      domain:
        clock:
          utc: {}
          timer:
            hpet:
              present: false
            hyperv: {}
        cpu:
          sockets: 1
          cores: %d
          threads: 1
        memory:
          guest: %s
        features:
          acpi: {}
          apic: {}
          smm: {}
        firmware:
          bootloader:
            efi:
              secureBoot: true
        devices:
          disks:
          - disk:
              bus: %s
            name: rootdisk
          - cdrom:
              bus: sata
            name: drivers
          interfaces:
          - masquerade: {}
            model: e1000e
            name: default
          tpm:
            persistent: true
      networks:
      - name: default
        pod: {}
      volumes:
      - dataVolume:
          name: win11-%d
        name: rootdisk
      - containerDisk:
          image: quay.io/kubevirt/virtio-container-disk
        name: drivers
`, i, min, i, 1+i%3, []string{"4Gi", "8Gi", "3Gi"}[i%3], []string{"virtio", "sata", "usb"}[i%3], i)
	}
	flush()
	if len(objs) != n {
		b.Fatalf("%d objects", len(objs))
	}
	return []*render.Target{{Name: "vms", Kind: render.KindPlain, Objects: objs}}
}

// BenchmarkValidate5000VMs: the target is 5,000 VMs with 5 rules
// each in under 0.5 s on 2 cores.
func BenchmarkValidate5000VMs(b *testing.B) {
	for _, distinct := range []bool{false, true} {
		name := "shared-annotation"
		if distinct {
			name = "distinct-annotations"
		}
		b.Run(name, func(b *testing.B) {
			const n = 5000
			in := &analyzer.Input{Targets: benchVMs(b, n, distinct)}
			a := &Analyzer{}
			// Collect the setup's garbage (5,000 parsed VMs) now, so that
			// neither the timer nor the CPU time pays for it.
			runtime.GC()
			cpu0 := bench.CPUTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out, err := a.Analyze(context.Background(), in)
				if err != nil {
					b.Fatal(err)
				}
				if len(out.Findings) == 0 {
					b.Fatal("no findings")
				}
			}
			b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "VMs/s")
			// CPU time is what the 2-core budget is made of, and unlike
			// wall time it does not grow when other processes share the
			// machine.
			b.ReportMetric(float64((bench.CPUTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}
