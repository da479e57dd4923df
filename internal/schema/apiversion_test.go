package schema

import (
	"testing"
)

func TestAPIVersions(t *testing.T) {
	ingressV1beta1 := "apiVersion: networking.k8s.io/v1beta1\nkind: Ingress\nmetadata:\n  name: web\nspec:\n  backend:\n    serviceName: web\n    servicePort: 80\n"
	cases := []struct {
		name  string
		minor int
		text  string
		rule  string
		msgs  []string
	}{
		{"removed deployment", 0, "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n", RuleRemovedAPI,
			[]string{"extensions/v1beta1 Deployment was removed in Kubernetes 1.16 (checking for 1.37): use apps/v1", "spec.selector is required"}},
		{"removed ingress with migration", 0, ingressV1beta1, RuleRemovedAPI,
			[]string{"was removed in Kubernetes 1.22", "use networking.k8s.io/v1", "serviceName becomes service.name", "pathType"}},
		{"deprecated before removal", 21, ingressV1beta1, RuleDeprecatedAPI,
			[]string{"networking.k8s.io/v1beta1 Ingress is deprecated since Kubernetes 1.19 and is removed in 1.22: use networking.k8s.io/v1"}},
		{"served and not yet deprecated", 18, ingressV1beta1, "", nil},
		{"pdb deprecated at 1.24", 24, "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: p\nspec:\n  minAvailable: 1\n", RuleDeprecatedAPI, []string{"removed in 1.25"}},
		{"pdb removed at 1.25", 25, "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: p\nspec:\n  minAvailable: 1\n", RuleRemovedAPI, []string{"empty spec.selector"}},
		{"psp without replacement", 0, "apiVersion: policy/v1beta1\nkind: PodSecurityPolicy\nmetadata:\n  name: p\n", RuleRemovedAPI, []string{"Pod Security Admission"}},
		{"hpa v2beta2", 0, "apiVersion: autoscaling/v2beta2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: h\n", RuleRemovedAPI, []string{"removed in Kubernetes 1.26", "autoscaling/v2"}},
		{"crd v1beta1", 0, "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  name: things.example.com\nspec:\n  group: example.com\n  version: v1\n  names:\n    kind: Thing\n    plural: things\n  scope: Namespaced\n", RuleRemovedAPI, []string{"structural schema"}},
		{"deprecated beta still served", 0, "apiVersion: resource.k8s.io/v1beta2\nkind: DeviceClass\nmetadata:\n  name: gpu\n", RuleDeprecatedAPI, []string{"deprecated since Kubernetes 1.36 and is removed in 1.39: use resource.k8s.io/v1"}},
		{"misspelt kind", 0, "apiVersion: apps/v1\nkind: Deploymnet\nmetadata:\n  name: web\n", RuleUnknownKind, []string{"Kubernetes 1.37 has no kind Deploymnet in apps/v1: did you mean Deployment?"}},
		{"kind in another group", 0, "apiVersion: apps/v1\nkind: Ingress\nmetadata:\n  name: web\n", RuleUnknownKind, []string{"serves Ingress as networking.k8s.io/v1, not apps/v1"}},
		{"unknown version", 0, "apiVersion: apps/v2\nkind: Thing\nmetadata:\n  name: web\n", RuleUnknownKind, []string{"serves no API version v2 of apps (versions: v1)"}},
		{"openshift legacy", 0, "apiVersion: v1\nkind: DeploymentConfig\nmetadata:\n  name: web\n", RuleUnknownKind, []string{"use apiVersion apps.openshift.io/v1"}},
		{"removed group, unknown kind", 0, "apiVersion: extensions/v1beta1\nkind: Gadget\nmetadata:\n  name: g\n", RuleUnknownKind, []string{"no longer serves the extensions API group"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := analyze(t, &Analyzer{KubernetesMinor: c.minor}, map[string]string{"o.yaml": c.text})
			if c.rule == "" {
				if len(fs) > 0 {
					t.Fatalf("want none:%s", list(fs))
				}
				return
			}
			at := "apiVersion:"
			if c.rule == RuleUnknownKind {
				at = "kind:"
			}
			expectOne(t, fs, c.text, c.rule, at, c.msgs...)
		})
	}
}

// A deprecated version that is still served is validated as well.
func TestDeprecatedVersionIsStillValidated(t *testing.T) {
	text := "apiVersion: resource.k8s.io/v1beta2\nkind: DeviceClass\nmetadata:\n  name: gpu\nspec:\n  selectorz: []\n"
	fs := analyze(t, nil, map[string]string{"o.yaml": text})
	if len(fs) != 2 || fs[0].RuleID != RuleDeprecatedAPI || fs[1].RuleID != RuleUnknownField {
		t.Fatalf("want a deprecation and an unknown field:%s", list(fs))
	}
}
