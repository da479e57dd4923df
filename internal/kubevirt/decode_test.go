package kubevirt

import (
	"os"
	"reflect"
	"testing"

	v1 "github.com/plumb-ci/plumb/internal/kubevirt/api/v1"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// The direct decoder gives what encoding/json gives, or defers to it.
func TestDecodeContentMatchesEncodingJSON(t *testing.T) {
	var objs []*manifest.Object
	if data, err := os.ReadFile(testcorpus.Dir(t, corpusTemplates)); err == nil {
		for _, o := range parseObjects(t, "c.yaml", string(data), ".") {
			tm := processTemplate(t, o)
			objs = append(objs, tm.Objects...)
		}
	}
	edge := `apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: edge
  creationTimestamp: "2024-01-02T03:04:05Z"
  labels: {a: b}
spec:
  template:
    metadata:
      annotations: {x: "y"}
    spec:
      terminationGracePeriodSeconds: 30.0
      readinessProbe:
        httpGet: {port: 8080}
        tcpSocket: {port: http}
      domain:
        CPU: {Cores: 3, sockets: null}
        memory: {guest: 1024, maxGuest: null}
        resources:
          requests: {memory: 1.5Gi, cpu: 500m}
        devices:
          disks:
          - name: a
            cdrom: {bus: sata, readonly: true}
            bootOrder: 1
          interfaces: null
        unknownField: [1, 2]
`
	objs = append(objs, parseObjects(t, "edge.yaml", edge, ".")...)
	if len(objs) < 2 {
		t.Fatal("no objects")
	}
	for _, o := range objs {
		fast := &v1.VirtualMachine{}
		if err := decodeContent(o.Content, reflect.ValueOf(fast).Elem()); err != nil {
			t.Errorf("%s: the direct decoder gave up on a well-formed VM", o.ID)
			continue
		}
		slow, derr := decodeVMWithJSON(o)
		if derr != nil {
			t.Fatalf("%s: %s", o.ID, derr.Message)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s: decoders differ:\n%+v\n%+v", o.ID, fast.Spec.Template, slow.Spec.Template)
		}
	}
}

func TestDecodeContentDefersOnOddInput(t *testing.T) {
	for name, content := range map[string]map[string]any{
		"wrong type":          {"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"domain": map[string]any{"cpu": map[string]any{"cores": "2"}}}}}},
		"fractional integer":  {"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"domain": map[string]any{"cpu": map[string]any{"cores": 1.5}}}}}},
		"negative unsigned":   {"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"domain": map[string]any{"cpu": map[string]any{"cores": int64(-1)}}}}}},
		"two keys, one field": {"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"domain": map[string]any{"cpu": map[string]any{"cores": int64(1), "Cores": int64(2)}}}}}},
		"non-ASCII key":       {"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"domain": map[string]any{"cpu": map[string]any{"\u212aind": int64(1)}}}}}},
		"bad quantity":        {"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"domain": map[string]any{"memory": map[string]any{"guest": "2 GB"}}}}}},
	} {
		if err := decodeContent(content, reflect.ValueOf(&v1.VirtualMachine{}).Elem()); err != errFallback {
			t.Errorf("%s: %v, want a fallback", name, err)
		}
	}
}
