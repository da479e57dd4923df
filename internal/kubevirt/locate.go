package kubevirt

import (
	"reflect"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
	"k8s.io/client-go/util/jsonpath"

	v1 "github.com/plumb-ci/plumb/internal/kubevirt/api/v1"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// fieldPaths finds the field paths of values that client-go's JSONPath
// returned from vm. JSONPath returns reflect.Values, not paths; every value
// it takes from a struct field or a list element is addressable, and its
// address and type identify the field (a struct and its first field share
// an address but not a type). One walk of the typed VM serves all the
// values; the path is copied only for a match, so the walk allocates
// almost nothing. Values that are not found (map values, which are not
// addressable) are left nil.
func fieldPaths(vm *v1.VirtualMachine, vals []reflect.Value, prefix manifest.Path) []manifest.Path {
	out := make([]manifest.Path, len(vals))
	want := make(map[fieldKey]int, len(vals))
	for i, v := range vals {
		if v.IsValid() && v.CanAddr() {
			want[fieldKey{v.UnsafeAddr(), v.Type()}] = i
		}
	}
	if len(want) == 0 {
		return out
	}
	// The values lie below the path's static prefix: start there.
	start, at := reflect.ValueOf(vm).Elem(), manifest.Path(nil)
	if v, ok := descend(start, prefix); ok {
		start, at = v, prefix
	}
	w := pathWalker{want: want, out: out, stack: append(make(manifest.Path, 0, len(at)+8), at...)}
	w.walk(start)
	if w.found < len(want) && len(at) > 0 {
		w.stack = w.stack[:0]
		w.walk(reflect.ValueOf(vm).Elem())
	}
	return out
}

// descend follows field names (JSON names, through pointers) from v.
func descend(v reflect.Value, p manifest.Path) (reflect.Value, bool) {
	for _, seg := range p {
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return v, false
			}
			v = v.Elem()
		}
		if seg.IsIndex || v.Kind() != reflect.Struct {
			return v, false
		}
		info := structInfoOf(v.Type())
		i, ok := info.exact[seg.Key]
		if !ok {
			return v, false
		}
		v = v.FieldByIndex(info.fields[i].index)
	}
	return v, true
}

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

type pathWalker struct {
	want  map[fieldKey]int
	out   []manifest.Path
	found int
	stack manifest.Path
}

func (w *pathWalker) walk(v reflect.Value) {
	if w.found == len(w.want) {
		return
	}
	if v.CanAddr() {
		if i, ok := w.want[fieldKey{v.UnsafeAddr(), v.Type()}]; ok && w.out[i] == nil {
			w.out[i] = append(manifest.Path(nil), w.stack...)
			w.found++
		}
	}
	if skipInto[v.Type()] {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			w.walk(v.Elem())
		}
	case reflect.Struct:
		for _, f := range structInfoOf(v.Type()).fields {
			w.stack = append(w.stack, manifest.Key(f.name))
			w.walk(v.FieldByIndex(f.index))
			w.stack = w.stack[:len(w.stack)-1]
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			w.stack = append(w.stack, manifest.Index(i))
			w.walk(v.Index(i))
			w.stack = w.stack[:len(w.stack)-1]
		}
	}
}

// staticPath is the field path a rule expression names up to its first
// step that is not a plain field (an index, a wildcard, a filter), under
// spec.template: where a value the VM lacks would be written.
func staticPath(expr string) manifest.Path {
	p, ok := staticPaths.Load(expr)
	if !ok {
		p, _ = staticPaths.LoadOrStore(expr, parseStaticPath(expr))
	}
	return slices.Clone(p.(manifest.Path))
}

// staticPaths caches parsed static paths by expression.
var staticPaths sync.Map // string → manifest.Path

func parseStaticPath(expr string) manifest.Path {
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
// the file's lines; otherwise the annotation's own location. The text may
// differ from what is written when a Template's parameters were
// substituted into it (a "${MAX}" argument): as long as no parameter value
// added or removed a line, its lines are still the written ones. doc, when
// not nil, is the document o was produced from (a processed Template's),
// searched when o has no document of its own.
func textLocation(o *manifest.Object, doc *manifest.Document, p manifest.Path, text string, offset int) manifest.Location {
	loc, exact := o.Locate(p)
	if !exact || offset < 0 {
		return loc
	}
	key, value := annotationNodes(o, doc, p, loc)
	if key == nil || value == nil || value.Kind != yaml.ScalarNode || value.Style&yaml.LiteralStyle == 0 ||
		value.Value != text && strings.Count(value.Value, "\n") != strings.Count(text, "\n") {
		return loc
	}
	if offset > len(text) {
		offset = len(text)
	}
	line := loc.Line - key.Line + value.Line + 1 + strings.Count(text[:offset], "\n")
	return manifest.Location{File: loc.File, Line: line, EndLine: line}
}

// annotationNodes finds the key and value nodes of the field at p: through
// the object's own node, or by position in its document (or in doc, the
// document it was produced from, when it has none).
func annotationNodes(o *manifest.Object, doc *manifest.Document, p manifest.Path, loc manifest.Location) (key, value *yaml.Node) {
	if o.Node != nil {
		if k, v := manifest.NodeAt(o.Node, p); k != nil {
			return k, v
		}
	}
	if o.Doc != nil {
		doc = o.Doc
	}
	if doc == nil || doc.Node == nil || len(p) == 0 {
		return nil, nil
	}
	want := p[len(p)-1].Key
	line := loc.Line - doc.LineOffset
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
	search(doc.Node)
	return key, found
}
