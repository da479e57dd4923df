package policy

import (
	"context"
	"testing"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/finding"
)

const noScaleDownPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: no-scale-down
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas >= oldObject.spec.replicas"
    messageExpression: "'replicas may not drop from ' + string(oldObject.spec.replicas) + ' to ' + string(object.spec.replicas)"
  - expression: "object.spec.selector == oldObject.spec.selector"
    message: "spec.selector is immutable"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-scale-down
spec:
  policyName: no-scale-down
  validationActions: [Deny]
`

// In pull-request mode the base revision's object is oldObject: a policy
// on UPDATE judges the change; outside it every object is a create.
func TestUpdatesReadTheBaseAsOldObject(t *testing.T) {
	head := map[string]string{"policy.yaml": noScaleDownPolicy, "web.yaml": deployment("web", "apps", 2, "nginx"), "new.yaml": deployment("new", "apps", 1, "nginx")}
	base := map[string]string{"policy.yaml": noScaleDownPolicy, "web.yaml": deployment("web", "apps", 5, "nginx")}
	headTargets, baseTargets := renderFiles(t, head), renderFiles(t, base)
	out, err := (&Analyzer{}).Analyze(context.Background(), &analyzer.Input{Targets: headTargets, Base: baseTargets})
	if err != nil {
		t.Fatal(err)
	}
	expect(t, head, out.Findings, want{rule: "policy/no-scale-down", level: finding.Error, file: "web.yaml", at: "replicas:",
		path: "spec.replicas", msg: "replicas may not drop from 5 to 2"})

	// Outside pull-request mode nothing is an update.
	out, err = (&Analyzer{}).Analyze(context.Background(), &analyzer.Input{Targets: headTargets})
	if err != nil || len(out.Findings) != 0 {
		t.Fatalf("on create: %v%s", err, list(out.Findings))
	}
}
