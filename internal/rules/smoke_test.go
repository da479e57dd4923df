package rules

import (
	"os"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/reference"
)

func TestSmoke(t *testing.T) {
	srcs, err := BuiltInSources(reference.Rules)
	if err != nil {
		t.Fatal(err)
	}
	srcs = append(srcs, Source{Name: "user.yaml", Data: []byte(`
- description: label it
  phase: preprocess
  conditions:
    - op: eq
      args: {values: ["{node.kind}", Deployment]}
  actions:
    - op: set-attribute
      args: {path: /metadata/labels/team, value: "{plugin_data[environment]}"}
    - op: log
      args: {msg: "replicas {node.spec.replicas} images {plugin_data[images]}", level: warning}
- description: fail big
  conditions:
    - op: gt
      args: {values: ["{node.spec.replicas}", 3]}
  actions:
    - op: fail
      args: {msg: "too many replicas: {node.spec.replicas}", path: spec.replicas}
`)})
	set := Load(srcs, manifest.Limits{})
	for _, p := range set.Problems {
		t.Log(p)
	}
	tg := target(t, "apps/web/overlays/prod", `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 5
  template:
    spec:
      containers:
        - name: a
          image: nginx:1
---
apiVersion: v1
kind: Secret
metadata:
  name: s
stringData:
  key: |
    -----BEGIN RSA PRIVATE KEY-----
    abc
    -----END RSA PRIVATE KEY-----
---
apiVersion: v1
kind: Service
metadata: {name: svc}
spec: {type: LoadBalancer}
`)
	run := runAll(t, set, Options{Explain: true}, tg)
	t.Log(messages(run.Findings()))
	run.WriteExplanation(os.Stdout)
	t.Logf("%#v", run.TargetEnv())
	t.Logf("%s", compactJSON(run.Section()))
}
