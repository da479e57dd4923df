package policy

import (
	"os"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
)

func typicalPolicies(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/typical-policies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A workload that meets all twenty policies.
const compliantDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app.kubernetes.io/name: web, team: shop}
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web, team: shop}
    spec:
      securityContext:
        runAsNonRoot: true
        seccompProfile: {type: RuntimeDefault}
      containers:
      - name: web
        image: registry.example.com/web:1.2.3
        resources:
          limits: {memory: 128Mi}
        securityContext:
          allowPrivilegeEscalation: false
          capabilities: {drop: [ALL]}
`

// The same Deployment, broken at several fields: each finding is at the
// field the failing expression reads.
const brokenDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app.kubernetes.io/name: web, team: shop}
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web, team: shop}
    spec:
      hostNetwork: true
      securityContext:
        runAsNonRoot: true
        seccompProfile: {type: RuntimeDefault}
      containers:
      - name: web
        image: registry.example.com/web:1.2.3
        resources:
          limits: {memory: 128Mi}
        securityContext:
          allowPrivilegeEscalation: false
          capabilities: {drop: [ALL]}
      - name: sidecar
        image: docker.io/library/busybox:1.36
        resources:
          limits: {memory: 64Mi}
        securityContext:
          privileged: true
          allowPrivilegeEscalation: false
          capabilities: {drop: [ALL]}
`

func TestPodSecurityStandardsAsPolicies(t *testing.T) {
	policies := typicalPolicies(t)
	files := map[string]string{"policies.yaml": policies, "web.yaml": compliantDeployment}
	expect(t, files, analyze(t, nil, files))

	files = map[string]string{"policies.yaml": policies, "web.yaml": brokenDeployment}
	expect(t, files, analyze(t, nil, files),
		want{rule: "policy/pss-baseline-host-namespaces", level: finding.Error, file: "web.yaml", at: "hostNetwork: true",
			path: "spec.template.spec.hostNetwork", msg: "sharing the host network namespace is forbidden"},
		want{rule: "policy/allowed-registries", level: finding.Error, file: "web.yaml", at: "image: docker.io/library/busybox",
			path: "spec.template.spec.containers[1].image", msg: "images must come from registry.example.com or ghcr.io/example: docker.io/library/busybox:1.36"},
		want{rule: "policy/pss-baseline-privileged", level: finding.Error, file: "web.yaml", at: "privileged: true",
			path: "spec.template.spec.containers[1].securityContext.privileged", msg: "privileged containers are forbidden"},
	)
}

// kube-system is exempt by the bindings' namespace selector, on the label
// the API server sets on every namespace.
func TestNamespaceSelectorExemptsKubeSystem(t *testing.T) {
	system := `apiVersion: v1
kind: Pod
metadata:
  name: proxy
  namespace: kube-system
spec:
  hostNetwork: true
  containers:
  - name: proxy
    image: registry.example.com/proxy:1
    resources: {limits: {memory: 1Gi}}
    securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}, runAsNonRoot: true, seccompProfile: {type: RuntimeDefault}}
`
	files := map[string]string{"policies.yaml": typicalPolicies(t), "pod.yaml": system}
	expect(t, files, analyze(t, nil, files))
	files["pod.yaml"] = strings.Replace(system, "kube-system", "apps", 1)
	expect(t, files, analyze(t, nil, files), want{rule: "policy/pss-baseline-host-namespaces", level: finding.Error, file: "pod.yaml",
		at: "hostNetwork: true", path: "spec.hostNetwork", msg: "host network"})
}
