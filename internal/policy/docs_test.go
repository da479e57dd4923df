package policy

import (
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
)

// The examples of the Kubernetes documentation, "Validating Admission
// Policy" (kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/).

const docsDemoPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "demo-policy.example.com"
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments"]
  validations:
    - expression: "object.spec.replicas <= 5"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: "demo-binding-test.example.com"
spec:
  policyName: "demo-policy.example.com"
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: test
`

const docsNamespaces = `apiVersion: v1
kind: Namespace
metadata:
  name: test
  labels:
    environment: test
---
apiVersion: v1
kind: Namespace
metadata:
  name: prod
  labels:
    environment: prod
`

func deployment(name, ns string, replicas int, image string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ` + name + `
  namespace: ` + ns + `
spec:
  replicas: ` + itoa(replicas) + `
  selector:
    matchLabels: {app: ` + name + `}
  template:
    metadata:
      labels: {app: ` + name + `}
    spec:
      containers:
      - name: app
        image: ` + image + `
`
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

func TestDocsReplicasDeniedInTestNamespace(t *testing.T) {
	files := map[string]string{
		"policy.yaml":     docsDemoPolicy,
		"namespaces.yaml": docsNamespaces,
		"test-big.yaml":   deployment("big", "test", 7, "nginx"),
		"test-small.yaml": deployment("small", "test", 3, "nginx"),
		"prod-big.yaml":   deployment("big", "prod", 7, "nginx"),
	}
	fs := analyze(t, nil, files)
	expect(t, files, fs, want{rule: "policy/demo-policy.example.com", level: finding.Error, file: "test-big.yaml", at: "replicas:",
		msg: "failed expression: object.spec.replicas <= 5", path: "spec.replicas"})
	rel := fs[0].Related
	if len(rel) != 2 || rel[0].File != "policy.yaml" || rel[0].Line != lineOf(t, docsDemoPolicy, "object.spec.replicas <= 5") ||
		rel[1].Line != lineOf(t, docsDemoPolicy, "kind: ValidatingAdmissionPolicyBinding")-1 {
		t.Errorf("related locations: %+v", rel)
	}
}

const docsParamsPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "replicalimit-policy.example.com"
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: rules.example.com/v1
    kind: ReplicaLimit
  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments"]
  validations:
    - expression: "object.spec.replicas <= params.maxReplicas"
      messageExpression: "'object.spec.replicas must be no greater than ' + string(params.maxReplicas)"
      reason: Invalid
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: "replicalimit-binding-test.example.com"
spec:
  policyName: "replicalimit-policy.example.com"
  validationActions: [Deny]
  paramRef:
    name: "replica-limit-test.example.com"
    namespace: "default"
    parameterNotFoundAction: Deny
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: test
`

const docsReplicaLimit = `apiVersion: rules.example.com/v1
kind: ReplicaLimit
metadata:
  name: "replica-limit-test.example.com"
  namespace: "default"
maxReplicas: 3
`

// Params from a custom resource of the render, the message from
// messageExpression.
func TestDocsParamsAndMessageExpression(t *testing.T) {
	files := map[string]string{
		"policy.yaml":     docsParamsPolicy,
		"limit.yaml":      docsReplicaLimit,
		"namespaces.yaml": docsNamespaces,
		"test-4.yaml":     deployment("four", "test", 4, "nginx"),
		"test-3.yaml":     deployment("three", "test", 3, "nginx"),
		"prod-9.yaml":     deployment("nine", "prod", 9, "nginx"),
	}
	expect(t, files, analyze(t, nil, files), want{rule: "policy/replicalimit-policy.example.com", level: finding.Error,
		file: "test-4.yaml", at: "replicas:", path: "spec.replicas", msg: "object.spec.replicas must be no greater than 3"})
}

// parameterNotFoundAction: Deny denies when the render has params of the
// kind but not the one named; when it has none of the kind, the params
// live in the cluster and the binding is not evaluated (a note).
func TestDocsParamNotFound(t *testing.T) {
	other := strings.ReplaceAll(docsReplicaLimit, "replica-limit-test.example.com", "another")
	files := map[string]string{
		"policy.yaml":     docsParamsPolicy,
		"limit.yaml":      other,
		"namespaces.yaml": docsNamespaces,
		"test-3.yaml":     deployment("three", "test", 3, "nginx"),
	}
	expect(t, files, analyze(t, nil, files), want{rule: "policy/replicalimit-policy.example.com", level: finding.Error,
		file: "test-3.yaml", at: "apiVersion: apps/v1", msg: "no params found for policy binding with `Deny` parameterNotFoundAction"})

	delete(files, "limit.yaml")
	expect(t, files, analyze(t, nil, files), want{rule: "policy/replicalimit-policy.example.com", level: finding.Note,
		file: "policy.yaml", at: "paramRef:", msg: "takes its params from rules.example.com/v1 ReplicaLimit, and the render has none"})
}

// Params from a ConfigMap, selected by label; Warn and Audit bindings.
func TestConfigMapParamsAndActions(t *testing.T) {
	policy := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: allowed-registries
spec:
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.template.spec.containers.all(c, c.image.startsWith(params.data.registry))"
    messageExpression: "'images must come from ' + params.data.registry"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: allowed-registries-warn
spec:
  policyName: allowed-registries
  validationActions: [Warn, Audit]
  paramRef:
    selector:
      matchLabels: {policy: registries}
    namespace: policy-params
    parameterNotFoundAction: Allow
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: allowed-registries-audit
spec:
  policyName: allowed-registries
  validationActions: [Audit]
  paramRef:
    name: registry-internal
    namespace: policy-params
    parameterNotFoundAction: Allow
`
	params := `apiVersion: v1
kind: ConfigMap
metadata:
  name: registry-public
  namespace: policy-params
  labels: {policy: registries}
data:
  registry: registry.example.com/
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: registry-internal
  namespace: policy-params
data:
  registry: internal.example.com/
`
	files := map[string]string{
		"policy.yaml": policy,
		"params.yaml": params,
		"good.yaml":   deployment("good", "apps", 1, "registry.example.com/app:1"),
		"bad.yaml":    deployment("bad", "apps", 1, "docker.io/app:1"),
	}
	fs := analyze(t, nil, files)
	// bad breaks both bindings; good breaks only the internal registry one.
	expect(t, files, fs,
		want{rule: "policy/allowed-registries", level: finding.Warning, file: "bad.yaml", at: "image:", path: "spec.template.spec.containers[0].image", msg: "images must come from registry.example.com/"},
		want{rule: "policy/allowed-registries", level: finding.Note, file: "bad.yaml", at: "image:", path: "spec.template.spec.containers[0].image", msg: "images must come from internal.example.com/"},
		want{rule: "policy/allowed-registries", level: finding.Note, file: "good.yaml", at: "image:", path: "spec.template.spec.containers[0].image", msg: "images must come from internal.example.com/"},
	)
}

// An expression that does not compile is a finding at its line, and the
// policy is not evaluated.
func TestCompileErrorAtExpression(t *testing.T) {
	policy := strings.Replace(docsDemoPolicy, `"object.spec.replicas <= 5"`, `"object.spec.replicas <= "`, 1)
	files := map[string]string{"policy.yaml": policy, "namespaces.yaml": docsNamespaces, "d.yaml": deployment("big", "test", 7, "nginx")}
	expect(t, files, analyze(t, nil, files), want{rule: "policy/demo-policy.example.com", level: finding.Error, file: "policy.yaml",
		at: `- expression: "object.spec.replicas <= "`, msg: "spec.validations[0].expression does not compile: compilation failed: ERROR: <input>:1:25: Syntax error", path: "spec.validations[0].expression"})
}

// A policy that reads the authorizer needs the cluster's authorization.
func TestAuthorizerIsNotEvaluated(t *testing.T) {
	policy := strings.Replace(docsDemoPolicy, `"object.spec.replicas <= 5"`, `"authorizer.group('apps').resource('deployments').namespace('test').name('x').check('scale').allowed()"`, 1)
	files := map[string]string{"policy.yaml": policy, "namespaces.yaml": docsNamespaces, "d.yaml": deployment("big", "test", 7, "nginx")}
	expect(t, files, analyze(t, nil, files), want{rule: "policy/demo-policy.example.com", level: finding.Note, file: "policy.yaml",
		at: "apiVersion: admissionregistration.k8s.io/v1", msg: "reads authorizer, which only a live API server has"})
}
