package kubevirt

import (
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// Annotation and label keys the validator reads (ssp-operator
// internal/template-validator/labels).
const (
	// AnnotationValidations holds a VM's own rules.
	AnnotationValidations = "vm.kubevirt.io/validations"
	// AnnotationSkip, with any value, turns validation off for a VM.
	AnnotationSkip = "vm.kubevirt.io/skip-validations"
	// KeyTemplate names the VM's parent Template (label or annotation).
	KeyTemplate = "vm.kubevirt.io/template"
	// KeyTemplateNamespace is the parent Template's namespace; it wins over
	// the older KeyTemplateNamespaceOld when both are present.
	KeyTemplateNamespace    = "vm.kubevirt.io/template.namespace"
	KeyTemplateNamespaceOld = "vm.kubevirt.io/template-namespace"
	// TemplateAnnotationValidations is the legacy Template-level rules
	// annotation, the only one the validator reads on a parent Template.
	TemplateAnnotationValidations = "validations"
)

// isVirtualMachine reports whether o is a KubeVirt VirtualMachine.
func isVirtualMachine(o *manifest.Object) bool {
	return o.ID.Kind == "VirtualMachine" && strings.HasPrefix(o.ID.APIVersion, "kubevirt.io/")
}

// isTemplate reports whether o is an OpenShift Template.
func isTemplate(o *manifest.Object) bool {
	if o.ID.Kind != "Template" {
		return false
	}
	return o.ID.APIVersion == "v1" || strings.HasPrefix(o.ID.APIVersion, "template.openshift.io/")
}

// annotationPath is the field path of an annotation.
func annotationPath(key string) manifest.Path {
	return manifest.Path{manifest.Key("metadata"), manifest.Key("annotations"), manifest.Key(key)}
}

// rawAnnotation returns an annotation's value as written, whatever its type,
// and whether it is present.
func rawAnnotation(o *manifest.Object, key string) (any, bool) {
	anns, ok := o.Metadata()["annotations"].(map[string]any)
	if !ok {
		return nil, false
	}
	v, ok := anns[key]
	return v, ok
}
