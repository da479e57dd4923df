package schema

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	admissionregistrationv1alpha1 "k8s.io/api/admissionregistration/v1alpha1"
	admissionregistrationv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	appsv1beta1 "k8s.io/api/apps/v1beta1"
	appsv1beta2 "k8s.io/api/apps/v1beta2"
	authenticationv1alpha1 "k8s.io/api/authentication/v1alpha1"
	authenticationv1beta1 "k8s.io/api/authentication/v1beta1"
	authorizationv1beta1 "k8s.io/api/authorization/v1beta1"
	batchv1beta1 "k8s.io/api/batch/v1beta1"
	certificatesv1alpha1 "k8s.io/api/certificates/v1alpha1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	coordinationv1alpha2 "k8s.io/api/coordination/v1alpha2"
	coordinationv1beta1 "k8s.io/api/coordination/v1beta1"
	discoveryv1beta1 "k8s.io/api/discovery/v1beta1"
	eventsv1beta1 "k8s.io/api/events/v1beta1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	flowcontrolv1beta1 "k8s.io/api/flowcontrol/v1beta1"
	flowcontrolv1beta2 "k8s.io/api/flowcontrol/v1beta2"
	flowcontrolv1beta3 "k8s.io/api/flowcontrol/v1beta3"
	networkingv1beta1 "k8s.io/api/networking/v1beta1"
	nodev1beta1 "k8s.io/api/node/v1beta1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	resourcev1alpha3 "k8s.io/api/resource/v1alpha3"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1alpha1 "k8s.io/api/storage/v1alpha1"
	storagev1beta1 "k8s.io/api/storage/v1beta1"
	storagemigrationv1beta1 "k8s.io/api/storagemigration/v1beta1"
)

type lifecycleTagged interface {
	APILifecycleDeprecated() (int, int)
	APILifecycleRemoved() (int, int)
}

// The removal table agrees with the prerelease-lifecycle tags of every
// type k8s.io/api still carries.
func TestRemovedAPIsMatchLifecycle(t *testing.T) {
	types := map[string]lifecycleTagged{
		"extensions/v1beta1/DaemonSet": &extensionsv1beta1.DaemonSet{}, "extensions/v1beta1/Deployment": &extensionsv1beta1.Deployment{},
		"extensions/v1beta1/Ingress": &extensionsv1beta1.Ingress{}, "extensions/v1beta1/NetworkPolicy": &extensionsv1beta1.NetworkPolicy{},
		"extensions/v1beta1/ReplicaSet": &extensionsv1beta1.ReplicaSet{},
		"apps/v1beta1/Deployment":       &appsv1beta1.Deployment{}, "apps/v1beta1/StatefulSet": &appsv1beta1.StatefulSet{}, "apps/v1beta1/ControllerRevision": &appsv1beta1.ControllerRevision{},
		"apps/v1beta2/Deployment": &appsv1beta2.Deployment{}, "apps/v1beta2/StatefulSet": &appsv1beta2.StatefulSet{}, "apps/v1beta2/DaemonSet": &appsv1beta2.DaemonSet{},
		"apps/v1beta2/ReplicaSet": &appsv1beta2.ReplicaSet{}, "apps/v1beta2/ControllerRevision": &appsv1beta2.ControllerRevision{},
		"admissionregistration.k8s.io/v1beta1/MutatingWebhookConfiguration":      &admissionregistrationv1beta1.MutatingWebhookConfiguration{},
		"admissionregistration.k8s.io/v1beta1/ValidatingWebhookConfiguration":    &admissionregistrationv1beta1.ValidatingWebhookConfiguration{},
		"admissionregistration.k8s.io/v1beta1/ValidatingAdmissionPolicy":         &admissionregistrationv1beta1.ValidatingAdmissionPolicy{},
		"admissionregistration.k8s.io/v1beta1/ValidatingAdmissionPolicyBinding":  &admissionregistrationv1beta1.ValidatingAdmissionPolicyBinding{},
		"admissionregistration.k8s.io/v1beta1/MutatingAdmissionPolicy":           &admissionregistrationv1beta1.MutatingAdmissionPolicy{},
		"admissionregistration.k8s.io/v1beta1/MutatingAdmissionPolicyBinding":    &admissionregistrationv1beta1.MutatingAdmissionPolicyBinding{},
		"admissionregistration.k8s.io/v1alpha1/ValidatingAdmissionPolicy":        &admissionregistrationv1alpha1.ValidatingAdmissionPolicy{},
		"admissionregistration.k8s.io/v1alpha1/ValidatingAdmissionPolicyBinding": &admissionregistrationv1alpha1.ValidatingAdmissionPolicyBinding{},
		"admissionregistration.k8s.io/v1alpha1/MutatingAdmissionPolicy":          &admissionregistrationv1alpha1.MutatingAdmissionPolicy{},
		"admissionregistration.k8s.io/v1alpha1/MutatingAdmissionPolicyBinding":   &admissionregistrationv1alpha1.MutatingAdmissionPolicyBinding{},
		"authentication.k8s.io/v1beta1/TokenReview":                              &authenticationv1beta1.TokenReview{}, "authentication.k8s.io/v1beta1/SelfSubjectReview": &authenticationv1beta1.SelfSubjectReview{},
		"authentication.k8s.io/v1alpha1/SelfSubjectReview":      &authenticationv1alpha1.SelfSubjectReview{},
		"authorization.k8s.io/v1beta1/SubjectAccessReview":      &authorizationv1beta1.SubjectAccessReview{},
		"authorization.k8s.io/v1beta1/LocalSubjectAccessReview": &authorizationv1beta1.LocalSubjectAccessReview{},
		"authorization.k8s.io/v1beta1/SelfSubjectAccessReview":  &authorizationv1beta1.SelfSubjectAccessReview{},
		"authorization.k8s.io/v1beta1/SelfSubjectRulesReview":   &authorizationv1beta1.SelfSubjectRulesReview{},
		"batch/v1beta1/CronJob":                                 &batchv1beta1.CronJob{},
		"certificates.k8s.io/v1beta1/CertificateSigningRequest": &certificatesv1beta1.CertificateSigningRequest{},
		"certificates.k8s.io/v1beta1/ClusterTrustBundle":        &certificatesv1beta1.ClusterTrustBundle{},
		"certificates.k8s.io/v1beta1/PodCertificateRequest":     &certificatesv1beta1.PodCertificateRequest{},
		"certificates.k8s.io/v1alpha1/ClusterTrustBundle":       &certificatesv1alpha1.ClusterTrustBundle{},
		"coordination.k8s.io/v1beta1/Lease":                     &coordinationv1beta1.Lease{}, "coordination.k8s.io/v1beta1/LeaseCandidate": &coordinationv1beta1.LeaseCandidate{},
		"coordination.k8s.io/v1alpha2/LeaseCandidate":     &coordinationv1alpha2.LeaseCandidate{},
		"discovery.k8s.io/v1beta1/EndpointSlice":          &discoveryv1beta1.EndpointSlice{},
		"events.k8s.io/v1beta1/Event":                     &eventsv1beta1.Event{},
		"flowcontrol.apiserver.k8s.io/v1beta1/FlowSchema": &flowcontrolv1beta1.FlowSchema{}, "flowcontrol.apiserver.k8s.io/v1beta1/PriorityLevelConfiguration": &flowcontrolv1beta1.PriorityLevelConfiguration{},
		"flowcontrol.apiserver.k8s.io/v1beta2/FlowSchema": &flowcontrolv1beta2.FlowSchema{}, "flowcontrol.apiserver.k8s.io/v1beta2/PriorityLevelConfiguration": &flowcontrolv1beta2.PriorityLevelConfiguration{},
		"flowcontrol.apiserver.k8s.io/v1beta3/FlowSchema": &flowcontrolv1beta3.FlowSchema{}, "flowcontrol.apiserver.k8s.io/v1beta3/PriorityLevelConfiguration": &flowcontrolv1beta3.PriorityLevelConfiguration{},
		"networking.k8s.io/v1beta1/Ingress": &networkingv1beta1.Ingress{}, "networking.k8s.io/v1beta1/IngressClass": &networkingv1beta1.IngressClass{},
		"networking.k8s.io/v1beta1/IPAddress": &networkingv1beta1.IPAddress{}, "networking.k8s.io/v1beta1/ServiceCIDR": &networkingv1beta1.ServiceCIDR{},
		"node.k8s.io/v1beta1/RuntimeClass":   &nodev1beta1.RuntimeClass{},
		"policy/v1beta1/PodDisruptionBudget": &policyv1beta1.PodDisruptionBudget{}, "policy/v1beta1/Eviction": &policyv1beta1.Eviction{},
		"rbac.authorization.k8s.io/v1beta1/ClusterRole": &rbacv1beta1.ClusterRole{}, "rbac.authorization.k8s.io/v1beta1/ClusterRoleBinding": &rbacv1beta1.ClusterRoleBinding{},
		"rbac.authorization.k8s.io/v1beta1/Role": &rbacv1beta1.Role{}, "rbac.authorization.k8s.io/v1beta1/RoleBinding": &rbacv1beta1.RoleBinding{},
		"resource.k8s.io/v1alpha3/DeviceTaintRule": &resourcev1alpha3.DeviceTaintRule{},
		"resource.k8s.io/v1beta1/DeviceClass":      &resourcev1beta1.DeviceClass{}, "resource.k8s.io/v1beta1/ResourceClaim": &resourcev1beta1.ResourceClaim{},
		"resource.k8s.io/v1beta1/ResourceClaimTemplate": &resourcev1beta1.ResourceClaimTemplate{}, "resource.k8s.io/v1beta1/ResourceSlice": &resourcev1beta1.ResourceSlice{},
		"resource.k8s.io/v1beta2/DeviceClass": &resourcev1beta2.DeviceClass{}, "resource.k8s.io/v1beta2/ResourceClaim": &resourcev1beta2.ResourceClaim{},
		"resource.k8s.io/v1beta2/ResourceClaimTemplate": &resourcev1beta2.ResourceClaimTemplate{}, "resource.k8s.io/v1beta2/ResourceSlice": &resourcev1beta2.ResourceSlice{},
		"scheduling.k8s.io/v1beta1/PriorityClass": &schedulingv1beta1.PriorityClass{},
		"storage.k8s.io/v1beta1/CSIDriver":        &storagev1beta1.CSIDriver{}, "storage.k8s.io/v1beta1/CSINode": &storagev1beta1.CSINode{},
		"storage.k8s.io/v1beta1/StorageClass": &storagev1beta1.StorageClass{}, "storage.k8s.io/v1beta1/VolumeAttachment": &storagev1beta1.VolumeAttachment{},
		"storage.k8s.io/v1beta1/CSIStorageCapacity": &storagev1beta1.CSIStorageCapacity{}, "storage.k8s.io/v1beta1/VolumeAttributesClass": &storagev1beta1.VolumeAttributesClass{},
		"storage.k8s.io/v1alpha1/CSIStorageCapacity": &storagev1alpha1.CSIStorageCapacity{}, "storage.k8s.io/v1alpha1/VolumeAttachment": &storagev1alpha1.VolumeAttachment{},
		"storage.k8s.io/v1alpha1/VolumeAttributesClass":           &storagev1alpha1.VolumeAttributesClass{},
		"storagemigration.k8s.io/v1beta1/StorageVersionMigration": &storagemigrationv1beta1.StorageVersionMigration{},
	}
	b, err := loadBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range removedAPIs {
		key := r.group + "/" + r.version + "/" + r.kind
		if r.source == "" {
			t.Errorf("%s: no source", key)
		}
		if r.replacement != "" {
			if rg, rv := splitGroupVersion(r.replacement); b.lookup(r.replacement, r.kind) == nil {
				t.Errorf("%s: the replacement %s/%s %s is not in the embedded schema", key, rg, rv, r.kind)
			}
		}
		served := b.lookup(strings.TrimPrefix(r.group+"/"+r.version, "/"), r.kind) != nil
		if wantServed := r.removed > 37; served != wantServed {
			t.Errorf("%s: in the 1.37 schema %v, but removed in 1.%d", key, served, r.removed)
		}
		tagged, ok := types[key]
		if !ok {
			if r.source == lifecycle {
				t.Errorf("%s cites the lifecycle tags but the test has no type for it", key)
			}
			continue
		}
		if _, minor := tagged.APILifecycleDeprecated(); minor != r.deprecated {
			t.Errorf("%s: deprecated in 1.%d, the tags say 1.%d", key, r.deprecated, minor)
		}
		if _, minor := tagged.APILifecycleRemoved(); minor != r.removed {
			t.Errorf("%s: removed in 1.%d, the tags say 1.%d", key, r.removed, minor)
		}
	}
}

// Every enum table row names a string field of the embedded schema (the
// schema links only then).
func TestEnumTableMatchesTheSchema(t *testing.T) {
	if _, err := linkSchema(builtinJSON, enumTable, requiredNotEnforced); err != nil {
		t.Fatal(err)
	}
	bad := map[string]map[string]*enumRule{coreV1 + "Container": {"image": enum("x", "a")}, coreV1 + "PodSpec": {"containers": enum("x", "a")}}
	if _, err := linkSchema(builtinJSON, map[string]map[string]*enumRule{coreV1 + "Nope": {"x": enum("x")}}, nil); err == nil {
		t.Error("an unknown definition links")
	}
	if _, err := linkSchema(builtinJSON, map[string]map[string]*enumRule{coreV1 + "PodSpec": bad[coreV1+"PodSpec"]}, nil); err == nil {
		t.Error("an enum on a list of objects links")
	}
	for def, props := range enumTable {
		for prop, r := range props {
			if r.source == "" || len(r.values) == 0 {
				t.Errorf("%s.%s: no source or values", def, prop)
			}
		}
	}
}

// Every exception to the schema's required fields names a required field
// and the validation that accepts it missing; booleans are never required.
func TestRequiredExceptionsMatchTheSchema(t *testing.T) {
	for _, bad := range []map[string]map[string]string{
		{coreV1 + "Nope": {"x": "x"}},
		{coreV1 + "Container": {"image": "not required"}},
	} {
		if _, err := linkSchema(builtinJSON, nil, bad); err == nil {
			t.Errorf("%v links", bad)
		}
	}
	s, err := linkSchema(builtinJSON, nil, requiredNotEnforced)
	if err != nil {
		t.Fatal(err)
	}
	for def, props := range requiredNotEnforced {
		for prop, source := range props {
			if source == "" {
				t.Errorf("%s.%s: no source", def, prop)
			}
		}
	}
	crdVersion := s.lookup("apiextensions.k8s.io/v1", "CustomResourceDefinition").props["spec"].typ.props["versions"].typ.elem
	if !slices.Equal(crdVersion.required, []string{"name"}) {
		t.Errorf("CustomResourceDefinitionVersion requires %v, want [name] (served and storage are booleans)", crdVersion.required)
	}
}

// The embedded schema is what the generator makes of the Kubernetes
// release's OpenAPI documents.
func TestGeneratedSchemaIsReproducible(t *testing.T) {
	spec := kubernetesSpecDir(t)
	got, err := Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, builtinJSON) {
		t.Fatal("data/kubernetes.json differs from what the generator makes: run go generate ./internal/schema")
	}
}

// kubernetesSpecDir finds api/openapi-spec/v3 of k8s.io/kubernetes v1.37.2
// in the module cache, downloading the module when it is not there.
func kubernetesSpecDir(t *testing.T) string {
	const module = "k8s.io/kubernetes@v1.37.2"
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err == nil {
		dir := filepath.Join(strings.TrimSpace(string(out)), module, "api", "openapi-spec", "v3")
		if _, err := os.Stat(dir); err == nil {
			return dir
		}
	}
	if testing.Short() {
		t.Skip("-short: not downloading " + module)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err = exec.CommandContext(ctx, "go", "mod", "download", "-json", module).Output()
	if err != nil {
		t.Skipf("%s is not in the module cache and cannot be downloaded (%v): the generator's output is not checked", module, err)
	}
	var info struct{ Dir string }
	if err := json.Unmarshal(out, &info); err != nil || info.Dir == "" {
		t.Skipf("go mod download %s: %s", module, out)
	}
	return filepath.Join(info.Dir, "api", "openapi-spec", "v3")
}

func TestSuggest(t *testing.T) {
	names := []string{"imagePullPolicy", "image", "ports", "replicas", "name"}
	for in, want := range map[string]string{
		"imagePulPolicy": "imagePullPolicy", "ImagePullPolicy": "imagePullPolicy", "replcias": "replicas",
		"prots": "ports", "nmae": "name", "nam": "name", "completelyDifferent": "", "xy": "",
	} {
		if got := suggest(in, names); got != want {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestResolveFieldPath(t *testing.T) {
	content := map[string]any{"spec": map[string]any{
		"items":  []any{map[string]any{"name": "a"}},
		"labels": map[string]any{"app.kubernetes.io/name": "x"},
	}}
	for in, want := range map[string]string{
		"spec.items[0].name":                  "spec.items[0].name",
		"spec.items.0.name":                   "spec.items[0].name",
		"spec.labels[app.kubernetes.io/name]": `spec.labels["app.kubernetes.io/name"]`,
		"spec.labels.app.kubernetes.io/name":  `spec.labels["app.kubernetes.io/name"]`,
		"spec.missing":                        "spec.missing",
		"spec.items[3].name":                  "spec.items[3].name",
	} {
		if got := resolveFieldPath(content, in).String(); got != want {
			t.Errorf("resolveFieldPath(%q) = %s, want %s", in, got, want)
		}
	}
}

// BenchmarkLinkSchema: what linking the embedded schema costs, once per
// process.
func BenchmarkLinkSchema(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := linkSchema(builtinJSON, enumTable, requiredNotEnforced); err != nil {
			b.Fatal(err)
		}
	}
}
