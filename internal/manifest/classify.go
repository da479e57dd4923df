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
// found on the way. Documents that are not objects yield a note.
func (d *Document) Objects(target string) ([]*Object, []Problem) {
	m, ok := d.Value.(map[string]any)
	if !ok {
		return nil, []Problem{d.notAnObject("the document is not a mapping")}
	}
	if isList(m) {
		return d.listItems(m, target)
	}
	obj, problems := d.object(m, d.Node, target)
	if obj == nil {
		return nil, problems
	}
	return []*Object{obj}, problems
}

func (d *Document) notAnObject(why string) Problem {
	return Problem{Rule: RuleNotAnObject, Level: "note", Location: d.Start(),
		Message: why + ": not a Kubernetes object, skipped"}
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
	at := func(p string) Location { l, _ := origin.Locate(MustParsePath(p)); return l }
	_, hasAPI := m["apiVersion"]
	_, hasKind := m["kind"]
	api, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	var problems []Problem
	switch {
	case !hasAPI && !hasKind:
		return nil, []Problem{d.notAnObject("the document has neither apiVersion nor kind")}
	case kind == "":
		return nil, []Problem{{Rule: RuleMissingKind, Level: "error", Location: at("apiVersion"), Object: IDOf(m, target),
			Message: "the object has apiVersion but no kind: add kind (for example kind: Deployment)"}}
	case api == "":
		problems = append(problems, Problem{Rule: RuleMissingAPI, Level: "error", Location: at("kind"), Object: IDOf(m, target),
			Path:    Path{Key("apiVersion")},
			Message: fmt.Sprintf("kind %s has no apiVersion: add the apiVersion of its API group (for example apps/v1)", kind)})
	}
	obj := &Object{ID: IDOf(m, target), Content: m, Origin: origin, Doc: d, Node: root}
	if obj.ID.Name == "" {
		loc := at("metadata")
		if _, ok := m["metadata"]; !ok {
			loc = at("kind")
		}
		problems = append(problems, Problem{Rule: RuleMissingName, Level: "error", Location: loc, Object: obj.ID,
			Path:    Path{Key("metadata"), Key("name")},
			Message: fmt.Sprintf("%s has no metadata.name: every object needs a name", kind)})
	}
	return obj, problems
}

// subDocument locates paths relative to an object inside a document (the
// document itself, or one item of a List).
type subDocument struct {
	doc  *Document
	root *yaml.Node
}

func (s *subDocument) Locate(p Path) (Location, bool) { return s.doc.LocateFrom(s.root, p) }
