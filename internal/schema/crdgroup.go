package schema

import (
	"fmt"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// groupFinding refuses a CustomResourceDefinition for its spec.group as
// the API server's validation does on create (validation.go of
// apiextensions-apiserver: a group is required, is a DNS subdomain with at
// least one dot, and a group under k8s.io or kubernetes.io needs the
// api-approved.kubernetes.io annotation), and, beyond it, a CRD in one of
// the API groups Kubernetes serves itself (the embedded schema's, and
// removed ones such as extensions): the API server keeps serving those
// groups' kinds from its own code whatever a CRD says, so such a CRD never
// defines what it claims, and taking it would let a file switch the
// built-in schema's validation off. refused is false when the group is
// accepted; f is nil when the CRD is refused but another finding says why
// (a missing spec.group is the built-in schema's schema/required).
func groupFinding(o *manifest.Object, crd *apiextensions.CustomResourceDefinition, b *builtinSchema) (f *finding.Finding, refused bool) {
	group := crd.Spec.Group
	at := manifest.Path{manifest.Key("spec"), manifest.Key("group")}
	if _, written := o.Get(at); !written {
		return nil, true
	}
	refuse := func(p manifest.Path, format string, args ...any) (*finding.Finding, bool) {
		f := newFinding(o, RuleInvalidCRD, p, fmt.Sprintf(format, args...), false)
		return &f, true
	}
	own := ownGroupExample(group)
	switch {
	case group == "":
		return refuse(at, "spec.group is empty: the API server refuses a CustomResourceDefinition without an API group (a domain with at least one dot); "+
			"set spec.group to a group of your own, such as %s", own)
	case b.isBuiltinGroup(group) || isRemovedGroup(group):
		return refuse(at, "spec.group %q is an API group of Kubernetes itself, which the API server serves from its own code: a CustomResourceDefinition cannot define kinds in it "+
			"(plumb validates %s kinds against the Kubernetes %s schema, not against this CRD); set spec.group to a group of your own, such as %s",
			group, group, EmbeddedKubernetesVersion, own)
	}
	if errs := utilvalidation.IsDNS1123Subdomain(group); len(errs) > 0 {
		return refuse(at, "spec.group %q is not a valid API group, which the API server refuses: %s", group, strings.Join(errs, "; "))
	}
	if !strings.Contains(group, ".") {
		return refuse(at, "spec.group %q should be a domain with at least one dot, as the API server requires: set spec.group to a group of your own, such as %s", group, own)
	}
	if !apihelpers.IsProtectedCommunityGroup(group) {
		return nil, false
	}
	switch state, reason := apihelpers.GetAPIApprovalState(crd.Annotations); state {
	case apihelpers.APIApprovalMissing:
		return refuse(at, "spec.group %q is under k8s.io or kubernetes.io, which Kubernetes reserves for its own APIs: %s (the API server refuses the CRD without it); "+
			"set spec.group to a group of your own, such as %s, or add the annotation with the URL of the API's approval", group, reason, own)
	case apihelpers.APIApprovalInvalid:
		annotation := manifest.Path{manifest.Key("metadata"), manifest.Key("annotations"), manifest.Key(apiextensionsv1.KubeAPIApprovedAnnotation)}
		return refuse(annotation, "the annotation %s is %q: %s (the API server refuses the CRD)",
			apiextensionsv1.KubeAPIApprovedAnnotation, crd.Annotations[apiextensionsv1.KubeAPIApprovedAnnotation], reason)
	}
	return nil, false
}

// ownGroupExample suggests a group for a CRD in place of group: its first
// label under example.com.
func ownGroupExample(group string) string {
	label, _, _ := strings.Cut(group, ".")
	label = strings.ToLower(label)
	if len(utilvalidation.IsDNS1123Label(label)) > 0 {
		label = "stable"
	}
	return label + ".example.com"
}
