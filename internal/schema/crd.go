package schema

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// isCRD reports whether o is a CustomResourceDefinition.
func isCRD(o *manifest.Object) bool {
	return o.ID.Kind == "CustomResourceDefinition" &&
		(o.ID.APIVersion == "apiextensions.k8s.io/v1" || o.ID.APIVersion == "apiextensions.k8s.io/v1beta1")
}

// crdIndex holds the CustomResourceDefinitions known to a run by group
// and kind, each kind's definitions in precedence order: the workflow's
// (--crds) first, then the repository's. A version of a kind is the first
// definition's that defines it.
type crdIndex struct {
	builtin *builtinSchema
	byKind  map[string][]*crdEntry // group/Kind
	// refused are the group/Kinds of CRDs refused for their group: the
	// CRD's finding says what to change, so their objects get no note
	// about a missing schema.
	refused  map[string]bool
	problems []finding.Finding
}

// crdEntry is one CustomResourceDefinition.
type crdEntry struct {
	obj  *manifest.Object
	name string
	// file is where the CRD is written; workflow says it was given by the
	// workflow, not found in the repository.
	file     string
	workflow bool
	spec     *apiextensions.CustomResourceDefinitionSpec
	versions map[string]*crdVersion
	served   []string
	// preserveUnknown: spec.preserveUnknownFields (v1beta1's default),
	// under which the API server keeps unknown fields instead of pruning
	// them, so they are no error.
	preserveUnknown bool
}

// crdVersion is one version of a CustomResourceDefinition, its schema
// compiled on first use.
type crdVersion struct {
	entry              *crdEntry
	name               string
	index              int
	served, deprecated bool
	deprecationWarning string
	schema             *apiextensions.JSONSchemaProps
	structural         *structuralschema.Structural

	once       sync.Once
	validator  apiservervalidation.SchemaValidator
	cel        *cel.Validator
	compileErr error
}

func newCRDIndex(b *builtinSchema) *crdIndex {
	return &crdIndex{builtin: b, byKind: map[string][]*crdEntry{}, refused: map[string]bool{}}
}

// add reads a CustomResourceDefinition given by the workflow or found in
// the repository; one that cannot be read, or that the API server would
// refuse, is a finding at the CRD.
func (x *crdIndex) add(o *manifest.Object, workflow bool) {
	crd, err := decodeCRD(o)
	if err != nil {
		x.problems = append(x.problems, newFinding(o, RuleInvalidCRD, nil,
			fmt.Sprintf("CustomResourceDefinition %s cannot be read: %v", o.ID.Name, err), false))
		return
	}
	key := crd.Spec.Group + "/" + crd.Spec.Names.Kind
	if f, refused := groupFinding(o, crd, x.builtin); refused {
		if f != nil {
			x.problems = append(x.problems, *f)
		}
		x.refused[key] = true
		return
	}
	if crd.Spec.Names.Kind == "" {
		return
	}
	for _, e := range x.byKind[key] {
		if reflect.DeepEqual(e.spec, &crd.Spec) {
			return // the same definition again (a CRD in several targets)
		}
	}
	if !workflow {
		x.noteOverridden(o, crd, key)
	}
	loc, _ := o.Locate(nil)
	e := &crdEntry{obj: o, name: crd.Name, file: loc.File, workflow: workflow, spec: &crd.Spec, versions: map[string]*crdVersion{},
		preserveUnknown: crd.Spec.PreserveUnknownFields != nil && *crd.Spec.PreserveUnknownFields}
	for i, v := range crd.Spec.Versions {
		cv := &crdVersion{entry: e, name: v.Name, index: i, served: v.Served, deprecated: v.Deprecated}
		if v.DeprecationWarning != nil {
			cv.deprecationWarning = *v.DeprecationWarning
		}
		if v.Served {
			e.served = append(e.served, v.Name)
		}
		e.versions[v.Name] = cv
		val, err := apiextensions.GetSchemaForVersion(crd, v.Name)
		if err != nil || val == nil || val.OpenAPIV3Schema == nil {
			continue // no schema: anything goes, as for the API server
		}
		cv.schema = val.OpenAPIV3Schema
		ss, why := structural(cv.schema)
		if why != "" {
			// apiextensions.k8s.io/v1 refuses the CRD; v1beta1 took it (and
			// is itself a removed API since 1.22), but its resources are
			// not validated here.
			if o.ID.APIVersion == "apiextensions.k8s.io/v1" {
				x.problems = append(x.problems, newFinding(o, RuleInvalidCRD, schemaPath(o, i),
					fmt.Sprintf("the schema of version %s is not structural: %s", v.Name, why), false))
			}
			continue
		}
		cv.structural = ss
	}
	x.byKind[key] = append(x.byKind[key], e)
}

// noteOverridden notes, at a repository's CRD, that a CRD the workflow
// gave defines some of its versions, and is used for them.
func (x *crdIndex) noteOverridden(o *manifest.Object, crd *apiextensions.CustomResourceDefinition, key string) {
	for _, e := range x.byKind[key] {
		if !e.workflow {
			continue
		}
		var shared []string
		first := -1
		for i, v := range crd.Spec.Versions {
			if e.versions[v.Name] != nil {
				shared = append(shared, v.Name)
				if first < 0 {
					first = i
				}
			}
		}
		if len(shared) == 0 {
			continue
		}
		var at manifest.Path
		if _, ok := o.Get(manifest.Path{manifest.Key("spec"), manifest.Key("versions"), manifest.Index(first)}); ok {
			at = manifest.Path{manifest.Key("spec"), manifest.Key("versions"), manifest.Index(first), manifest.Key("name")}
		}
		x.problems = append(x.problems, newFinding(o, RuleCRDOverridden, at,
			fmt.Sprintf("the workflow's CustomResourceDefinition %s (%s) also defines %s %s of %s, and it is the one used: "+
				"a CRD given with --crds (the action's crds input) wins over the repository's for the versions it defines",
				e.name, e.file, plural(len(shared), "version", "versions"), strings.Join(shared, ", "), crd.Spec.Group+" "+crd.Spec.Names.Kind), false))
		return
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// structural makes the structural schema of s, or says why s is not one.
func structural(s *apiextensions.JSONSchemaProps) (*structuralschema.Structural, string) {
	ss, err := structuralschema.NewStructural(s)
	if err != nil {
		return nil, err.Error()
	}
	if errs := structuralschema.ValidateStructural(nil, ss); len(errs) > 0 {
		return nil, joinErrors(errs.ToAggregate().Errors(), 3)
	}
	return ss, ""
}

// schemaPath is where version i's schema is written in the CRD.
func schemaPath(o *manifest.Object, i int) manifest.Path {
	if o.ID.APIVersion == "apiextensions.k8s.io/v1" {
		return manifest.Path{manifest.Key("spec"), manifest.Key("versions"), manifest.Index(i), manifest.Key("schema"), manifest.Key("openAPIV3Schema")}
	}
	return manifest.Path{manifest.Key("spec"), manifest.Key("validation"), manifest.Key("openAPIV3Schema")}
}

func joinErrors(errs []error, n int) string {
	var parts []string
	for i, e := range errs {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(errs)-n))
			break
		}
		parts = append(parts, e.Error())
	}
	return strings.Join(parts, "; ")
}

func (x *crdIndex) findings() []finding.Finding { return x.problems }

// lookup finds the CRD version of apiVersion/kind. known says whether a
// CRD defines the kind at all (a CRD that does not serve the version is
// then the problem).
func (x *crdIndex) lookup(apiVersion, kind string) (cv *crdVersion, known bool) {
	group, version := splitGroupVersion(apiVersion)
	entries := x.byKind[group+"/"+kind]
	if len(entries) == 0 {
		return nil, false
	}
	for _, e := range entries {
		if v := e.versions[version]; v != nil {
			if v.served {
				return v, true
			}
			return nil, true
		}
	}
	return nil, true
}

// notServedMessage explains a custom resource whose CRD does not serve its
// version: the CRD that defines the version, else the first of the kind.
func (x *crdIndex) notServedMessage(apiVersion, kind string) string {
	group, version := splitGroupVersion(apiVersion)
	entries := x.byKind[group+"/"+kind]
	e := entries[0]
	for _, c := range entries {
		if c.versions[version] != nil {
			e = c
			break
		}
	}
	served := "none"
	if len(e.served) > 0 {
		served = strings.Join(e.served, ", ")
	}
	return fmt.Sprintf("CustomResourceDefinition %s does not serve version %s of %s (served: %s)", e.name, version, kind, served)
}

// decodeCRD reads a CRD's content into the API server's internal type,
// defaulted and converted from v1 or v1beta1 as the API server does.
func decodeCRD(o *manifest.Object) (*apiextensions.CustomResourceDefinition, error) {
	internal := &apiextensions.CustomResourceDefinition{}
	switch o.ID.APIVersion {
	case "apiextensions.k8s.io/v1":
		var v apiextensionsv1.CustomResourceDefinition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Content, &v); err != nil {
			return nil, err
		}
		apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v)
		if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v, internal, nil); err != nil {
			return nil, err
		}
	default:
		var v apiextensionsv1beta1.CustomResourceDefinition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Content, &v); err != nil {
			return nil, err
		}
		// v1beta1's defaults: a lone spec.version becomes the served
		// storage version, and unknown fields are kept unless
		// spec.preserveUnknownFields is false.
		apiextensionsv1beta1.SetObjectDefaults_CustomResourceDefinition(&v)
		if err := apiextensionsv1beta1.Convert_v1beta1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v, internal, nil); err != nil {
			return nil, err
		}
	}
	return internal, nil
}

// compile builds the version's validators once.
func (cv *crdVersion) compile() error {
	cv.once.Do(func() {
		if cv.structural == nil {
			return
		}
		v, _, err := apiservervalidation.NewSchemaValidator(cv.schema)
		if err != nil {
			cv.compileErr = err
			return
		}
		cv.validator = v
		cv.cel = cel.NewValidator(cv.structural, true, celconfig.PerCallLimit)
	})
	return cv.compileErr
}
