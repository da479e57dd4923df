package kubevirt

import (
	"fmt"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// Where a VM's rules come from, in the validator's order.
const (
	SourceNone             = "none"               // no rules: no annotation, no parent Template
	SourceSkip             = "skip-annotation"    // vm.kubevirt.io/skip-validations is set
	SourceDeleting         = "deleting"           // metadata.deletionTimestamp is set
	SourceVM               = "vm-annotation"      // the VM's own vm.kubevirt.io/validations
	SourceTemplate         = "template"           // the parent Template's validations annotation
	SourceTemplateNotFound = "template-not-found" // the parent Template is not among the inputs
)

// ruleSource is where a VM's rules come from.
type ruleSource struct {
	Kind string
	// Holder is the object carrying the annotation (the VM or its parent
	// Template) and Key the annotation's key.
	Holder *manifest.Object
	Key    string
	// Text is the annotation text; Invalid is set (and Text empty) when
	// the annotation is not a string.
	Text    string
	Invalid bool
	// Template names the parent Template (namespace/name).
	Template string
	// Doc is the document the annotation is written in when Holder has
	// none of its own: a VM produced by processing a Template is written
	// in the Template's document.
	Doc *manifest.Document
}

// resolveSource applies the validator's order: the skip annotation; the
// VM's own non-empty annotation, used alone (the Template's rules are not
// merged in; "[]" means no rules); then the parent Template named by labels
// (when they hold both name and namespace) or else annotations, whose
// legacy "validations" annotation holds the rules. A VM whose parent
// Template cannot be found is allowed, as by the validator since 2025-11.
func resolveSource(vm *manifest.Object, templates *templateIndex) ruleSource {
	if _, skip := rawAnnotation(vm, AnnotationSkip); skip {
		return ruleSource{Kind: SourceSkip}
	}
	if ts, ok := vm.Metadata()["deletionTimestamp"]; ok && ts != nil {
		return ruleSource{Kind: SourceDeleting}
	}
	if raw, ok := rawAnnotation(vm, AnnotationValidations); ok {
		if raw == nil {
			raw = "" // a null annotation value decodes as ""
		}
		s, isString := raw.(string)
		if !isString {
			return ruleSource{Kind: SourceVM, Holder: vm, Key: AnnotationValidations, Invalid: true}
		}
		if s != "" {
			return ruleSource{Kind: SourceVM, Holder: vm, Key: AnnotationValidations, Text: s}
		}
	}
	ns, name, ok := templateRef(vm)
	if !ok {
		return ruleSource{Kind: SourceNone}
	}
	ref := ns + "/" + name
	tmpl := templates.lookup(ns, name)
	if tmpl == nil {
		return ruleSource{Kind: SourceTemplateNotFound, Template: ref}
	}
	src := ruleSource{Kind: SourceTemplate, Holder: tmpl, Key: TemplateAnnotationValidations, Template: ref}
	if raw, ok := rawAnnotation(tmpl, TemplateAnnotationValidations); ok && raw != nil {
		if s, isString := raw.(string); isString {
			src.Text = s
		} else {
			src.Invalid = true
		}
	}
	return src
}

// templateRef reads the parent Template's namespace and name.
func templateRef(vm *manifest.Object) (namespace, name string, ok bool) {
	for _, m := range []map[string]string{vm.Labels(), vm.Annotations()} {
		name := m[KeyTemplate]
		ns := m[KeyTemplateNamespace]
		if ns == "" {
			ns = m[KeyTemplateNamespaceOld]
		}
		if name != "" && ns != "" {
			return ns, name, true
		}
	}
	return "", "", false
}

// describe says where the rules are defined, for messages.
func (s ruleSource) describe() string {
	switch s.Kind {
	case SourceTemplate:
		return fmt.Sprintf("the %q annotation of Template %s", s.Key, s.Template)
	case SourceVM:
		return fmt.Sprintf("the VM's %s annotation", s.Key)
	}
	return s.Kind
}
