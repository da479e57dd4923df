package pipeline

import (
	"context"
	"testing"

	"github.com/plumb-ci/plumb/internal/config"
)

// One problem, one finding: a sata disk that the VM's own validation rule
// (windows-virtio-bus) and check K10003 both judge is reported once, by the
// rule the cluster enforces, at the bus value's line.
func TestKubeVirtRuleAndCheckReportABusOnce(t *testing.T) {
	root := repo(t, map[string]string{"vms/vm.yaml": `apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: win
  annotations:
    vm.kubevirt.io/validations: |
      [{"name": "windows-virtio-bus", "path": "jsonpath::.spec.domain.devices.disks[*].disk.bus",
        "valid": "jsonpath::.spec.domain.devices.disks[*].disk.bus", "rule": "enum",
        "message": "virtio disk bus type has better performance", "values": ["virtio"], "justWarning": true}]
spec:
  runStrategy: Always
  template:
    spec:
      domain:
        memory: {guest: 4Gi}
        devices:
          disks:
            - name: root
              disk: {bus: sata}
`})
	cfg := configFor(t, root, nil, &config.Flags{})
	res, err := Check(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var atBus []string
	for _, f := range res.Report.Findings {
		if f.Location.File == "vms/vm.yaml" && f.Location.Line == 19 {
			atBus = append(atBus, f.RuleID)
		}
	}
	if len(atBus) != 1 || atBus[0] != "kubevirt/windows-virtio-bus" {
		t.Errorf("findings at the bus: %v", atBus)
	}
}
