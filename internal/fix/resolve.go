package fix

import (
	"errors"
	"fmt"
	"io/fs"
	"reflect"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// resolver maps changes of rendered objects to the source that supplied
// the fields, through each object's provenance.
type resolver struct {
	fsys   fs.FS
	limits manifest.Limits
	loaded map[string][]*manifest.Document
	files  map[string]*sourceFile
	errs   map[string]error
	// parsed and applied remember the documents read and operations
	// made last.
	parsed  *memo[string, parsedDoc]
	applied *memo[applyKey, applied]
}

// fork is a resolver that shares the files read so far (read-only from
// now on) with its own memory of documents and operations, for another
// goroutine.
func (r *resolver) fork() *resolver {
	return &resolver{fsys: r.fsys, limits: r.limits, loaded: r.loaded, files: r.files, errs: r.errs,
		parsed: newMemo[string, parsedDoc](), applied: newMemo[applyKey, applied]()}
}

func newResolver(opts Options) *resolver {
	return &resolver{fsys: opts.FS, limits: opts.Limits, loaded: opts.Parsed, files: map[string]*sourceFile{}, errs: map[string]error{},
		parsed: newMemo[string, parsedDoc](), applied: newMemo[applyKey, applied]()}
}

// file reads and parses a source file once.
func (r *resolver) file(name string) (*sourceFile, error) {
	if f, ok := r.files[name]; ok {
		return f, nil
	}
	if err, ok := r.errs[name]; ok {
		return nil, err
	}
	f, err := readSource(r.fsys, name, r.limits, r.loaded[name])
	if err != nil {
		r.errs[name] = err
		return nil, err
	}
	r.files[name] = f
	return f, nil
}

// errNothingToDo is a change the object already has.
var errNothingToDo = errors.New("the object already has this value")

// resolve finds where a change of obj is made at the source.
//
// For a set, that is the deepest field of the path the object has: its
// value is replaced when the whole path is there, else the missing keys
// are added below it. The field's provenance names the file and position
// that supplied it — the plain file, the kustomize base, the overlay patch
// that set it, a values file — and that node must hold what was rendered:
// a scalar a transformer rewrote (a name prefix, an image tag set in a
// kustomization) or a key a later patch removed would make the edit not
// exact, and is refused.
func (r *resolver) resolve(obj *manifest.Object, ch finding.Change) (sourceOp, error) {
	switch ch.Op {
	case finding.ChangeSet:
		return r.resolveSet(obj, ch)
	case finding.ChangeRename:
		return r.resolveRename(obj, ch)
	}
	return sourceOp{}, fmt.Errorf("unknown change %q", ch.Op)
}

func (r *resolver) resolveSet(obj *manifest.Object, ch finding.Change) (sourceOp, error) {
	q, cur := manifest.PresentPrefix(obj.Content, ch.Path)
	rest := ch.Path[len(q):]
	var keys []string
	for _, s := range rest {
		if s.IsIndex {
			return sourceOp{}, notEditable("the path goes through a list item that is not there")
		}
		keys = append(keys, s.Key)
	}
	if len(rest) == 0 && reflect.DeepEqual(normalize(cur), normalize(ch.Value)) {
		return sourceOp{}, errNothingToDo
	}
	if _, isMap := cur.(map[string]any); len(rest) > 0 && !isMap && cur != nil {
		return sourceOp{}, notEditable("%s is not a mapping", q)
	}
	src, ref, err := r.source(obj, q)
	if err != nil {
		return sourceOp{}, err
	}
	key, n, err := node(src.docs[ref.doc], ref.path)
	if err != nil {
		return sourceOp{}, err
	}
	switch {
	case len(rest) > 0 && n.Kind == yaml.MappingNode:
		if k, _ := mapEntry(n, keys[0]); k != nil {
			return sourceOp{}, notEditable("the source has %s, but the rendered object does not (a later patch removes it)", keys[0])
		}
	case len(rest) > 0 && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" && key != nil:
	case len(rest) > 0:
		return sourceOp{}, notEditable("the source of %s is not a mapping", q)
	default:
		var v any
		if err := n.Decode(&v); err != nil || !reflect.DeepEqual(normalize(v), normalize(cur)) {
			return sourceOp{}, notEditable("the source of %s does not hold the rendered value (a transformer or parameter sets it)", q)
		}
		if scalarKind(v) != scalarKind(ch.Value) && !endsLike(ref.path, q) {
			return sourceOp{}, notEditable("the source of %s is not the object's own field (a values file): the type it renders is the template's (quote), not the source's", q)
		}
	}
	return sourceOp{file: src.name, rng: r.rangeOf(src, ref), path: ref.path, keys: keys, value: normalize(ch.Value)}, nil
}

func (r *resolver) resolveRename(obj *manifest.Object, ch finding.Change) (sourceOp, error) {
	if len(ch.Path) == 0 || ch.Path[len(ch.Path)-1].IsIndex || ch.To == "" {
		return sourceOp{}, notEditable("a rename needs a key and a new name")
	}
	if _, ok := manifest.Lookup(obj.Content, ch.Path); !ok {
		return sourceOp{}, notEditable("no field %s to rename", ch.Path)
	}
	src, ref, err := r.source(obj, ch.Path)
	if err != nil {
		return sourceOp{}, err
	}
	key, _, err := node(src.docs[ref.doc], ref.path)
	if err != nil {
		return sourceOp{}, err
	}
	if key == nil || key.Value != ch.Path[len(ch.Path)-1].Key {
		return sourceOp{}, notEditable("the source key is not %s", ch.Path)
	}
	return sourceOp{file: src.name, rng: r.rangeOf(src, ref), path: ref.path, rename: true, to: ch.To}, nil
}

// source finds the source node of field q of obj.
func (r *resolver) source(obj *manifest.Object, q manifest.Path) (*sourceFile, nodeRef, error) {
	loc, exact := obj.Locate(q)
	if !exact || loc.File == "" || loc.Line <= 0 {
		return nil, nodeRef{}, notEditable("no exact source position for %s", q)
	}
	src, err := r.file(loc.File)
	if err != nil {
		return nil, nodeRef{}, err
	}
	item := len(q) == 0 || q[len(q)-1].IsIndex
	ref, ok := src.lookup(loc.Line, loc.Column, item)
	if !ok {
		return nil, nodeRef{}, notEditable("%s:%d:%d is not a YAML node plumb can edit (an inline patch, a generator entry)", loc.File, loc.Line, loc.Column)
	}
	return src, ref, nil
}

// rangeOf is the document range of a node's document.
func (r *resolver) rangeOf(src *sourceFile, ref nodeRef) int {
	d := src.docs[ref.doc]
	return rangeOf(src.ranges, d.Node.Line+d.LineOffset)
}

// scalarKind is what kind of scalar v is, for a change of type (a quoted
// number unquoted): "string", "number", "bool", or "" for any other.
func scalarKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int, int32, int64, uint64, float64:
		return "number"
	case bool:
		return "bool"
	}
	return ""
}

// endsLike reports whether the source path src ends as the rendered path
// p does, key for key (list indices may differ: a patch's list is merged
// by name). It holds for the object's own document, a kustomize patch, an
// object of an OpenShift Template or a List; not for a chart's values
// file, whose value a template prints: a template that quotes it
// ({{ .Values.replicas | quote }}) renders a string whatever the values
// file says, so only a change that keeps the value's type is exact there.
func endsLike(src, p manifest.Path) bool {
	if len(src) < len(p) {
		return false
	}
	src = src[len(src)-len(p):]
	for i, s := range p {
		if s.IsIndex != src[i].IsIndex || !s.IsIndex && s.Key != src[i].Key {
			return false
		}
	}
	return true
}
