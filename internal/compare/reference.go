// Package compare compares rendered Kubernetes objects against a reference
// configuration with the semantics of openshift/kube-compare
// (`kubectl cluster-compare`): reference metadata v1 and v2, Go templates
// with sprig, correlation of input objects to templates, field omission,
// inline diff functions, user overrides, and kube-compare's text, JSON,
// YAML and JUnit reports. It also turns a comparison into plumb findings at
// the source line of every drifted field.
package compare

import (
	"sync"
	"text/template"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// Group types of a v2 component.
const (
	AllOf       = "allOf"
	AllOrNoneOf = "allOrNoneOf"
	AnyOf       = "anyOf"
	NoneOf      = "noneOf"
	OneOf       = "oneOf"
	AnyOneOf    = "anyOneOf"
)

var groupTypes = []string{AllOf, AllOrNoneOf, AnyOf, NoneOf, OneOf, AnyOneOf}

// v1 component types.
const (
	TypeRequired = "Required"
	TypeOptional = "Optional"
)

// Reference is a loaded, validated reference configuration.
type Reference struct {
	// Version is 1 or 2.
	Version int
	// Entry is the display path of the metadata file; Dir the display path
	// of the reference directory (file names in problems are Dir/<path>).
	Entry, Dir string
	Parts      []*Part
	// Templates in reference order: parts, components, then (v1) required
	// before optional templates or (v2) the group list.
	Templates []*Template
	byPath    map[string]*Template
	// FunctionFiles are the templateFunctionFiles, in order.
	FunctionFiles []string
	// Hash identifies the metadata and templates (kube-compare's
	// MetadataHash; plumb's own digest, see docs/compare.md).
	Hash string
	// Warnings found while loading (unknown keys that kube-compare ignores,
	// overlapping templates, v1 components that can never report).
	Warnings Problems
	// Overlaps lists, per correlation bucket holding several templates, a
	// description of the overlap (printed with --verbose).
	Overlaps []string

	omit  *omitConfig
	index *groupIndex
	base  *template.Template
}

// Part is a named group of components.
type Part struct {
	Name        string
	Description string
	Components  []*Component
	Line        int
}

// Component is a set of templates with a rule about which must be present.
type Component struct {
	Name        string
	Description string
	// Type is the v1 type (Required, Optional, or anything else, which never
	// reports missing templates).
	Type string
	// Group is the v2 group type (allOf, oneOf, ...).
	Group string
	// Templates are v1's requiredTemplates or v2's group list.
	Templates []*Template
	// Optional are v1's optionalTemplates.
	Optional []*Template
	Line     int
	Part     *Part
}

// Template is one reference template.
type Template struct {
	// Path is the template's identifier: its path relative to the
	// reference directory.
	Path string
	// Description is the effective description (v2: the template's, else
	// its component's, else its part's).
	Description string
	Config      TemplateConfig
	// Line is the line of the template's entry in the metadata file.
	Line      int
	Component *Component
	// File is the display path of the template file.
	File string

	// order is the position in Reference.Templates.
	order int
	// tmpl is the parsed template for the empty-data pre-render (doNotMatch
	// declines nothing); run is the same set with doNotMatch in force, which
	// runs share unless the template calls lookupCR or lookupCRs (then
	// each run binds a clone of it to its own inputs).
	tmpl *template.Template
	run  *template.Template
	// preExec and runExec execute tmpl and run under the deadline.
	preExec, runExec *boundedTemplate
	lookups          bool
	omit             []omitPath
	// meta is the empty-data rendering; fixed holds its correlation fields
	// that rendered to non-empty strings.
	meta     map[string]any
	fixed    identity
	perField []perFieldFunc
	// mutatesData is set when the template may change its data (sprig's
	// set, unset, merge...): it then renders from a copy of the input.
	mutatesData bool
	// source holds the template's lines, to place an error in its output
	// (errorLine), and their patterns (lineGlobs).
	source    []string
	globsOnce sync.Once
	globs     []lineGlob
}

// TemplateConfig is a template's per-template configuration.
type TemplateConfig struct {
	IgnoreUnspecifiedFields bool
	FieldsToOmitRefs        []string
	PerField                []PerField
}

// PerField configures an inline diff function on one field (v2).
type PerField struct {
	PathToKey      string
	InlineDiffFunc string
	Line           int
}

// Template returns the template with the given path, or nil.
func (ref *Reference) Template(path string) *Template { return ref.byPath[path] }

// identity is an object's correlation fields.
type identity struct {
	APIVersion, Kind, Namespace, Name string
}

func identityOf(obj map[string]any) identity {
	return identity{
		APIVersion: stringField(obj, "apiVersion"),
		Kind:       stringField(obj, "kind"),
		Namespace:  stringField(obj, "metadata", "namespace"),
		Name:       stringField(obj, "metadata", "name"),
	}
}

// String is kube-compare's identity string: apiVersion_kind_namespace_name,
// or apiVersion_kind_name for cluster-scoped objects.
func (id identity) String() string {
	if id.Namespace == "" {
		return id.APIVersion + "_" + id.Kind + "_" + id.Name
	}
	return id.APIVersion + "_" + id.Kind + "_" + id.Namespace + "_" + id.Name
}

// objectID converts to plumb's ObjectID.
func (id identity) objectID(target string) manifest.ObjectID {
	return manifest.ObjectID{APIVersion: id.APIVersion, Kind: id.Kind, Namespace: id.Namespace, Name: id.Name, Target: target}
}
