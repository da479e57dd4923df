package v1

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// Every field the common templates set under a VM's spec.template is in
// the model: decoding their templates with unknown fields refused succeeds.
func TestModelCoversTheCommonTemplates(t *testing.T) {
	data := readCorpus(t, "kubevirt-common-templates/common-templates-v0.35.0.yaml")
	dec := yaml.NewDecoder(bytes.NewReader(data))
	n := 0
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatal(err)
		}
		objs, _ := doc["objects"].([]any)
		for _, o := range objs {
			vm, _ := o.(map[string]any)
			spec, _ := vm["spec"].(map[string]any)
			raw, err := json.Marshal(spec["template"])
			if err != nil {
				t.Fatal(err)
			}
			d := json.NewDecoder(bytes.NewReader(raw))
			d.DisallowUnknownFields()
			var tmpl VirtualMachineInstanceTemplateSpec
			if err := d.Decode(&tmpl); err != nil {
				t.Errorf("%v: %v", doc["metadata"], err)
			}
			n++
		}
	}
	if n != 172 {
		t.Errorf("%d VMs, want 172", n)
	}
}

// A representative VM using most of the API decodes strictly too.
func TestModelDecodesAFullVM(t *testing.T) {
	const vm = `{
	  "metadata": {"labels": {"a": "b"}, "annotations": {"c": "d"}, "creationTimestamp": null},
	  "spec": {
	    "priorityClassName": "high", "nodeSelector": {"k": "v"}, "schedulerName": "s",
	    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "In", "values": ["v"]}]}]}},
	                 "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": {"topologyKey": "t", "labelSelector": {"matchLabels": {"a": "b"}}}}]}},
	    "tolerations": [{"key": "k", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5}],
	    "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "z", "whenUnsatisfiable": "DoNotSchedule"}],
	    "evictionStrategy": "LiveMigrate", "startStrategy": "Paused", "terminationGracePeriodSeconds": 30,
	    "hostname": "h", "subdomain": "s", "architecture": "amd64", "dnsPolicy": "None",
	    "dnsConfig": {"nameservers": ["1.1.1.1"], "options": [{"name": "ndots", "value": "2"}]},
	    "readinessProbe": {"httpGet": {"port": 1500, "path": "/"}, "initialDelaySeconds": 1},
	    "livenessProbe": {"tcpSocket": {"port": "http"}, "guestAgentPing": {}},
	    "accessCredentials": [{"sshPublicKey": {"source": {"secret": {"secretName": "k"}}, "propagationMethod": {"qemuGuestAgent": {"users": ["u"]}}}}],
	    "domain": {
	      "resources": {"requests": {"memory": "1Gi", "cpu": "2"}, "limits": {"memory": "2Gi"}, "overcommitGuestOverhead": true},
	      "cpu": {"cores": 2, "sockets": 1, "threads": 1, "maxSockets": 4, "model": "host-passthrough", "features": [{"name": "vmx", "policy": "require"}],
	              "dedicatedCpuPlacement": true, "numa": {"guestMappingPassthrough": {}}, "isolateEmulatorThread": true, "realtime": {"mask": "0"}},
	      "memory": {"guest": "1Gi", "maxGuest": "4Gi", "hugepages": {"pageSize": "2Mi"}},
	      "machine": {"type": "q35"},
	      "firmware": {"uuid": "u", "serial": "s", "bootloader": {"efi": {"secureBoot": true, "persistent": true}}, "kernelBoot": {"kernelArgs": "a", "container": {"image": "i"}}, "acpi": {"slicNameRef": "x"}},
	      "clock": {"utc": {"offsetSeconds": 3}, "timer": {"hpet": {"present": false}, "pit": {"tickPolicy": "delay"}, "rtc": {"tickPolicy": "catchup", "track": "guest"}, "hyperv": {}, "kvm": {}}},
	      "features": {"acpi": {}, "apic": {"enabled": true}, "smm": {}, "kvm": {"hidden": true}, "pvspinlock": {}, "hypervPassthrough": {"enabled": false},
	                   "hyperv": {"relaxed": {}, "vapic": {}, "spinlocks": {"spinlocks": 8191}, "vpindex": {}, "runtime": {}, "synic": {}, "synictimer": {"direct": {}}, "reset": {}, "vendorid": {"vendorid": "x"}, "frequencies": {}, "reenlightenment": {}, "tlbflush": {"direct": {}, "extended": {}}, "ipi": {}, "evmcs": {}}},
	      "ioThreadsPolicy": "auto", "ioThreads": {"supplementalPoolThreadCount": 2},
	      "chassis": {"manufacturer": "m"}, "launchSecurity": {"sev": {"policy": {"encryptedState": true}}}, "rebootPolicy": "Terminate",
	      "devices": {
	        "disks": [{"name": "a", "disk": {"bus": "virtio", "pciAddress": "0000:00:01.0"}, "bootOrder": 1, "serial": "s", "cache": "none", "io": "native", "dedicatedIOThread": true, "tag": "t", "blockSize": {"custom": {"logical": 512, "physical": 4096}}, "shareable": false, "errorPolicy": "stop"},
	                  {"name": "b", "cdrom": {"bus": "sata", "readonly": true, "tray": "closed"}}, {"name": "c", "lun": {"bus": "scsi", "reservation": true}}],
	        "interfaces": [{"name": "default", "model": "virtio", "masquerade": {}, "ports": [{"name": "http", "port": 80, "protocol": "TCP"}], "macAddress": "02:00:00:00:00:01", "bootOrder": 2, "pciAddress": "p", "dhcpOptions": {"bootFileName": "f", "ntpServers": ["n"], "privateOptions": [{"option": 240, "value": "v"}]}, "tag": "t", "acpiIndex": 1, "state": "up"},
	                       {"name": "b", "bridge": {}}, {"name": "s", "sriov": {}}, {"name": "p", "binding": {"name": "passt"}}],
	        "inputs": [{"type": "tablet", "bus": "usb", "name": "t"}], "watchdog": {"name": "w", "i6300esb": {"action": "poweroff"}},
	        "rng": {}, "gpus": [{"name": "g", "deviceName": "nvidia.com/GP", "virtualGPUOptions": {"display": {"enabled": true, "ramFB": {}}}}], "hostDevices": [{"name": "h", "deviceName": "d"}],
	        "filesystems": [{"name": "f", "virtiofs": {}}], "sound": {"name": "s", "model": "ich9"}, "tpm": {"persistent": true}, "video": {"type": "vga"}, "panicDevices": [{"model": "hyperv"}],
	        "autoattachPodInterface": false, "autoattachGraphicsDevice": true, "autoattachSerialConsole": true, "logSerialConsole": true, "autoattachMemBalloon": true, "autoattachInputDevice": true, "autoattachVSOCK": true,
	        "blockMultiQueue": true, "networkInterfaceMultiqueue": true, "useVirtioTransitional": false, "disableHotplug": false, "downwardMetrics": {}, "clientPassthrough": {}
	      }
	    },
	    "volumes": [{"name": "a", "dataVolume": {"name": "d"}}, {"name": "b", "containerDisk": {"image": "i"}}, {"name": "c", "cloudInitNoCloud": {"userData": "u", "secretRef": {"name": "s"}}},
	                {"name": "d", "persistentVolumeClaim": {"claimName": "c", "readOnly": true, "hotpluggable": true}}, {"name": "e", "emptyDisk": {"capacity": "1Gi"}},
	                {"name": "f", "configMap": {"name": "cm"}}, {"name": "g", "secret": {"secretName": "s"}}, {"name": "h", "serviceAccount": {"serviceAccountName": "sa"}},
	                {"name": "i", "sysprep": {"configMap": {"name": "x"}}}, {"name": "j", "hostDisk": {"path": "/p", "type": "DiskOrCreate", "capacity": "1Gi"}},
	                {"name": "k", "downwardMetrics": {}}, {"name": "l", "cloudInitConfigDrive": {"networkData": "n"}}, {"name": "m", "ephemeral": {"persistentVolumeClaim": {"claimName": "c"}}},
	                {"name": "n", "downwardAPI": {"fields": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]}}],
	    "networks": [{"name": "default", "pod": {}}, {"name": "b", "multus": {"networkName": "n", "default": false}}]
	  }
	}`
	d := json.NewDecoder(strings.NewReader(vm))
	d.DisallowUnknownFields()
	var tmpl VirtualMachineInstanceTemplateSpec
	if err := d.Decode(&tmpl); err != nil {
		t.Fatal(err)
	}
	if tmpl.Spec.Domain.Devices.Disks[1].CDRom.Bus != "sata" || tmpl.Spec.Domain.Memory.Guest.String() != "1Gi" {
		t.Errorf("decoded %+v", tmpl.Spec.Domain)
	}
}

func readCorpus(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(testcorpus.Dir(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}
