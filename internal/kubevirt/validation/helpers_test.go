package validation

import (
	"encoding/json"
	"strings"
	"testing"

	v1 "github.com/plumb-ci/plumb/internal/kubevirt/api/v1"
)

// cirros is the validator's test fixture (validation/test-utils): two virtio
// disks, machine type q35, memory.guest 2Gi, requests.memory 128M, no cpu.
const cirros = `{
  "apiVersion": "kubevirt.io/v1",
  "kind": "VirtualMachine",
  "metadata": {"name": "testvm", "namespace": "default"},
  "spec": {
    "template": {
      "spec": {
        "domain": {
          "machine": {"type": "q35"},
          "memory": {"guest": "2Gi"},
          "resources": {"requests": {"memory": "128M"}},
          "devices": {
            "disks": [
              {"name": "containerdisk", "disk": {"bus": "virtio"}},
              {"name": "cloudinitdisk", "disk": {"bus": "virtio"}}
            ]
          }
        },
        "volumes": [
          {"name": "containerdisk", "containerDisk": {"image": "kubevirt/cirros-container-disk-demo:latest"}},
          {"name": "cloudinitdisk", "cloudInitNoCloud": {"userData": "#!/bin/sh\n\necho 'printed from cloud-init userdata'\n"}}
        ]
      }
    }
  }
}`

func vmFromJSON(t testing.TB, s string) *v1.VirtualMachine {
	t.Helper()
	vm := &v1.VirtualMachine{}
	if err := json.Unmarshal([]byte(s), vm); err != nil {
		t.Fatalf("decoding VM: %v", err)
	}
	return vm
}

func cirrosVM(t testing.TB) *v1.VirtualMachine { return vmFromJSON(t, cirros) }

// mustRules parses an annotation that must be valid.
func mustRules(t testing.TB, text string) []*Rule {
	t.Helper()
	a := ParseAnnotation(text)
	if a.Err != nil {
		t.Fatalf("parsing rules: %v", a.Err)
	}
	return a.Rules
}

// rule parses one rule object.
func rule(t testing.TB, obj string) *Rule {
	t.Helper()
	rs := mustRules(t, "["+obj+"]")
	return rs[0]
}

func joinLines(lines ...string) string { return strings.Join(lines, "\n") }
