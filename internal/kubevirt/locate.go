package kubevirt

import (
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/client-go/util/jsonpath"

	v1 "github.com/plumb-ci/plumb/internal/kubevirt/api/v1"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// fieldIndex maps the values of a decoded VM back to their field paths.
// client-go's JSONPath returns reflect.Values, not paths; every value it
// returns from a struct field or a list element is addressable, and its
// address and type identify the field (a struct and its first field share
// an address but not a type).
type fieldIndex map[fieldKey]manifest.Path

type fieldKey struct {
	addr uintptr
	typ  reflect.Type
}

// skipInto are types whose fields are not part of the JSON tree.
var skipInto = map[reflect.Type]bool{
	quantityType:              true,
	reflect.TypeOf(v1.Time{}): true,
	reflect.TypeOf(v1.ObjectMeta{}.ManagedFields): true,
}

func buildFieldIndex(vm *v1.VirtualMachine) fieldIndex {
	ix := fieldIndex{}
	ix.walk(reflect.ValueOf(vm).Elem(), nil)
	return ix
}

func (ix fieldIndex) walk(v reflect.Value, p manifest.Path) {
	if v.CanAddr() {
		ix[fieldKey{v.UnsafeAddr(), v.Type()}] = p
	}
	if skipInto[v.Type()] {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			ix.walk(v.Elem(), p)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			name, inline := jsonName(t.Field(i))
			switch {
			case inline:
				ix.walk(v.Field(i), p)
			case name != "":
				ix.walk(v.Field(i), p.Child(manifest.Key(name)))
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			ix.walk(v.Index(i), p.Child(manifest.Index(i)))
		}
	}
}

// pathOf returns the field path of a value returned by a JSONPath on the
// indexed VM.
func (ix fieldIndex) pathOf(v reflect.Value) (manifest.Path, bool) {
	if !v.IsValid() || !v.CanAddr() {
		return nil, false
	}
	p, ok := ix[fieldKey{v.UnsafeAddr(), v.Type()}]
	return p, ok
}

// staticPath is the field path a rule expression names up to its first
// step that is not a plain field (an index, a wildcard, a filter), under
// spec.template: where a value the VM lacks would be written.
func staticPath(expr string) manifest.Path {
	p := manifest.Path{manifest.Key("spec"), manifest.Key("template")}
	parser, err := jsonpath.Parse("static", "{"+expr+"}")
	if err != nil || len(parser.Root.Nodes) == 0 {
		return p
	}
	list, ok := parser.Root.Nodes[0].(*jsonpath.ListNode)
	if !ok {
		return p
	}
	for _, n := range list.Nodes {
		f, ok := n.(*jsonpath.FieldNode)
		if !ok || f.Value == "" {
			break
		}
		p = append(p, manifest.Key(f.Value))
	}
	return p
}

// textLocation maps a byte offset of an annotation's text to its line in
// the source file: exact for a literal block scalar (`|`), whose lines are
// the file's lines; otherwise the annotation's own location.
func textLocation(o *manifest.Object, p manifest.Path, text string, offset int) manifest.Location {
	loc, exact := o.Locate(p)
	if !exact || offset < 0 {
		return loc
	}
	key, value := annotationNodes(o, p, loc)
	if key == nil || value == nil || value.Kind != yaml.ScalarNode || value.Style&yaml.LiteralStyle == 0 || value.Value != text {
		return loc
	}
	if offset > len(text) {
		offset = len(text)
	}
	line := loc.Line - key.Line + value.Line + 1 + strings.Count(text[:offset], "\n")
	return manifest.Location{File: loc.File, Line: line, EndLine: line}
}

// annotationNodes finds the key and value nodes of the field at p: through
// the object's own node, or by position in its document.
func annotationNodes(o *manifest.Object, p manifest.Path, loc manifest.Location) (key, value *yaml.Node) {
	if o.Node != nil {
		if k, v := manifest.NodeAt(o.Node, p); k != nil {
			return k, v
		}
	}
	if o.Doc == nil || o.Doc.Node == nil || len(p) == 0 {
		return nil, nil
	}
	want := p[len(p)-1].Key
	line := loc.Line - o.Doc.LineOffset
	var found *yaml.Node
	var search func(n *yaml.Node)
	search = func(n *yaml.Node) {
		if n == nil || found != nil {
			return
		}
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Line == line && k.Column == loc.Column && k.Value == want {
					key, found = k, n.Content[i+1]
					return
				}
			}
		}
		for _, c := range n.Content {
			search(c)
		}
	}
	search(o.Doc.Node)
	return key, found
}
