package manifest

import (
	"fmt"
	"path"
	"strings"

	"go.yaml.in/yaml/v3"
)

// KustomizationFileNames are the file names kustomize reads as a
// kustomization; their documents are build instructions, not objects.
var KustomizationFileNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// IsKustomizationFile reports whether a path names a kustomization file.
func IsKustomizationFile(file string) bool {
	base := path.Base(file)
	for _, n := range KustomizationFileNames {
		if base == n {
			return true
		}
	}
	return false
}

// IsKustomizeConfig reports whether a document is kustomize configuration
// (a Kustomization or Component) rather than a Kubernetes object.
func (d *Document) IsKustomizeConfig() bool {
	if IsKustomizationFile(d.File) {
		return true
	}
	m, _ := d.Value.(map[string]any)
	av, _ := m["apiVersion"].(string)
	return strings.HasPrefix(av, "kustomize.config.k8s.io/")
}

// Objects returns the Kubernetes objects the document holds — itself, or the
// items of a List — tagged with the render target, and the hygiene problems
// found on the way. A document that is not an object (NotObject) yields
// nothing: it is skipped, never the subject of a finding.
func (d *Document) Objects(target string) ([]*Object, []Problem) {
	if d.NotObject() != "" {
		return nil, nil
	}
	m := d.Value.(map[string]any)
	if isList(m) {
		return d.listItems(m, target)
	}
	obj, problems := d.object(m, d.Node, target)
	if obj == nil {
		return nil, problems
	}
	return []*Object{obj}, problems
}

// NotObject says why a document is not a Kubernetes object — it is not a
// mapping, has neither apiVersion nor kind (a values file, a tool's
// settings), or is a component's configuration file — and "" for a
// document that is (or is meant to be) one.
func (d *Document) NotObject() SkipReason {
	m, ok := d.Value.(map[string]any)
	if !ok {
		return SkipNotObject
	}
	api, hasAPI := m["apiVersion"]
	kind, hasKind := m["kind"]
	if !hasAPI && !hasKind {
		return SkipNotObject
	}
	a, _ := api.(string)
	k, _ := kind.(string)
	if IsComponentConfig(a, k) || isToolConfig(d.File, m, a, k, hasKind) {
		return SkipComponentConfig
	}
	return ""
}

// isList recognises kubectl's v1 List (and the typed FooList kinds), whose
// items are objects in their own right.
func isList(m map[string]any) bool {
	kind, _ := m["kind"].(string)
	_, hasItems := m["items"].([]any)
	return hasItems && strings.HasSuffix(kind, "List")
}

func (d *Document) listItems(m map[string]any, target string) ([]*Object, []Problem) {
	var objs []*Object
	var problems []Problem
	_, itemsNode := NodeAt(d.Node, Path{Key("items")})
	for i, it := range m["items"].([]any) {
		prefix := Path{Key("items"), Index(i)}
		im, ok := it.(map[string]any)
		if !ok {
			loc, _ := d.Locate(prefix)
			problems = append(problems, Problem{Rule: RuleNotAnObject, Level: "note", Location: loc,
				Message: fmt.Sprintf("items[%d] is not a mapping: not a Kubernetes object, skipped", i)})
			continue
		}
		var node *yaml.Node
		if itemsNode != nil && i < len(deref(itemsNode).Content) {
			node = deref(itemsNode).Content[i]
		}
		obj, p := d.object(im, node, target)
		problems = append(problems, p...)
		if obj != nil {
			objs = append(objs, obj)
		}
	}
	return objs, problems
}

// object checks the identifying fields of one object mapping whose node is
// root.
func (d *Document) object(m map[string]any, root *yaml.Node, target string) (*Object, []Problem) {
	origin := &subDocument{doc: d, root: root}
	_, hasAPI := m["apiVersion"]
	_, hasKind := m["kind"]
	if !hasAPI && !hasKind {
		loc, _ := origin.Locate(nil)
		return nil, []Problem{{Rule: RuleNotAnObject, Level: "note", Location: loc,
			Message: "the item has neither apiVersion nor kind: not a Kubernetes object, skipped"}}
	}
	problems, ok := IdentityProblems(m, target, origin)
	if !ok {
		return nil, problems
	}
	return &Object{ID: IDOf(m, target), Content: m, Origin: origin, Doc: d, Node: root}, problems
}

// IdentityProblems checks the fields that identify an object — kind,
// apiVersion, metadata.name — of content m (which has apiVersion or kind),
// locating each problem through origin. ok is false when the object
// cannot be analysed (it has no kind).
func IdentityProblems(m map[string]any, target string, origin Provenance) (problems []Problem, ok bool) {
	at := func(p string) Location { l, _ := origin.Locate(MustParsePath(p)); return l }
	_, hasKind := m["kind"]
	api, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	id := IDOf(m, target)
	switch {
	case kind == "" && hasKind:
		return []Problem{{Rule: RuleMissingKind, Level: "error", Location: at("kind"), Object: id,
			Message: fmt.Sprintf("kind is %s, not the name of a kind: write the kind (for example kind: Deployment)", describeValue(m["kind"]))}}, false
	case kind == "":
		return []Problem{{Rule: RuleMissingKind, Level: "error", Location: at("apiVersion"), Object: id,
			Message: "the object has apiVersion but no kind: add kind (for example kind: Deployment)"}}, false
	case api == "":
		problems = append(problems, Problem{Rule: RuleMissingAPI, Level: "error", Location: at("kind"), Object: id,
			Path:    Path{Key("apiVersion")},
			Message: fmt.Sprintf("kind %s has no apiVersion: %s", kind, apiVersionHint(kind))})
	}
	if id.Name == "" {
		problems = append(problems, missingName(id, m, at, kind))
	}
	return problems, true
}

// missingName reports an object without a usable metadata.name: absent,
// or a value YAML does not read as a string (name: 2024 is a number, and
// the API server rejects it).
func missingName(id ObjectID, m map[string]any, at func(string) Location, kind string) Problem {
	p := Problem{Rule: RuleMissingName, Level: "error", Object: id, Path: Path{Key("metadata"), Key("name")}}
	md, hasMetadata := m["metadata"].(map[string]any)
	name, hasName := md["name"]
	switch {
	case hasName && name != nil && name != "":
		p.Location = at("metadata.name")
		if isScalar(name) {
			p.Message = fmt.Sprintf("%s has metadata.name %s, not a string: quote it (name: \"%v\")", kind, describeValue(name), name)
		} else {
			p.Message = fmt.Sprintf("%s has metadata.name %s, not a string: write the name", kind, describeValue(name))
		}
	case hasName && name == "":
		// Written empty, or left empty by a Template parameter.
		p.Location = at("metadata.name")
		p.Message = fmt.Sprintf("%s has an empty metadata.name: every object needs a name", kind)
	case hasMetadata:
		p.Location = at("metadata")
		p.Message = fmt.Sprintf("%s has no metadata.name: every object needs a name", kind)
	default:
		if _, ok := m["metadata"]; ok {
			p.Location = at("metadata")
		} else {
			p.Location = at("kind")
		}
		p.Message = fmt.Sprintf("%s has no metadata.name: every object needs a name", kind)
	}
	return p
}

func isScalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

// describeValue names what a value is, for messages about a value of the
// wrong type.
func describeValue(v any) string {
	switch t := v.(type) {
	case nil:
		return "empty"
	case string:
		if t == "" {
			return "empty"
		}
		return fmt.Sprintf("%q", t)
	case bool:
		return fmt.Sprintf("the boolean %v", t)
	case int64, float64:
		return fmt.Sprintf("the number %v", t)
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("%v", v)
}

// wellKnownAPIVersions are the apiVersions of the kinds people most often
// write, so a missing apiVersion can be fixed by copying the suggestion.
var wellKnownAPIVersions = map[string]string{
	"Pod": "v1", "Service": "v1", "ConfigMap": "v1", "Secret": "v1", "Namespace": "v1",
	"ServiceAccount": "v1", "PersistentVolumeClaim": "v1", "PersistentVolume": "v1",
	"Endpoints": "v1", "LimitRange": "v1", "ResourceQuota": "v1",
	"Deployment": "apps/v1", "StatefulSet": "apps/v1", "DaemonSet": "apps/v1", "ReplicaSet": "apps/v1",
	"Job": "batch/v1", "CronJob": "batch/v1",
	"Ingress": "networking.k8s.io/v1", "IngressClass": "networking.k8s.io/v1", "NetworkPolicy": "networking.k8s.io/v1",
	"Role": "rbac.authorization.k8s.io/v1", "RoleBinding": "rbac.authorization.k8s.io/v1",
	"ClusterRole": "rbac.authorization.k8s.io/v1", "ClusterRoleBinding": "rbac.authorization.k8s.io/v1",
	"HorizontalPodAutoscaler": "autoscaling/v2", "PodDisruptionBudget": "policy/v1",
	"StorageClass": "storage.k8s.io/v1", "PriorityClass": "scheduling.k8s.io/v1",
	"CustomResourceDefinition": "apiextensions.k8s.io/v1",
	"VirtualMachine":           "kubevirt.io/v1", "Template": "template.openshift.io/v1", "Route": "route.openshift.io/v1",
}

// apiVersionHint says what to add for a kind without apiVersion.
func apiVersionHint(kind string) string {
	if v, ok := wellKnownAPIVersions[kind]; ok {
		return "add apiVersion: " + v
	}
	return "add the apiVersion of its API group (for example apps/v1 for a Deployment)"
}

// subDocument locates paths relative to an object inside a document (the
// document itself, or one item of a List).
type subDocument struct {
	doc  *Document
	root *yaml.Node
}

func (s *subDocument) Locate(p Path) (Location, bool) { return s.doc.LocateFrom(s.root, p) }
