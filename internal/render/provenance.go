package render

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// layered is the provenance of a kustomize-rendered object: the writers that
// supplied its fields, in the order kustomize applied them (the origin
// document first). A scalar comes from the last writer that set it; a
// mapping or list from the first writer that has it since the last one that
// replaced it wholesale (a patch that adds one key to a mapping does not
// make the patch the mapping's source).
type layered struct {
	content map[string]any
	writers []writer
	// start is where the object as a whole is (the origin document, the
	// generator entry); the answer when nothing better is known.
	start manifest.Location
}

// writer is one thing that set fields of an object.
type writer interface {
	// claim returns the source position of the value v at path q when this
	// writer supplied it.
	claim(l *layered, q manifest.Path, v any) (manifest.Location, bool)
	// replaces reports whether the writer replaced, wholesale, the subtree
	// that contains q (everything earlier below it is gone).
	replaces(q manifest.Path) bool
}

// Locate implements manifest.Provenance.
func (l *layered) Locate(p manifest.Path) (manifest.Location, bool) {
	q, v := manifest.PresentPrefix(l.content, p)
	exact := len(q) == len(p)
	if !exact {
		if loc, ok := l.removal(p[:len(q)+1]); ok {
			return loc, false
		}
	}
	for {
		if loc, ok := l.source(q, v); ok {
			return loc, exact
		}
		if len(q) == 0 {
			return l.start, false
		}
		q = q[:len(q)-1]
		v, _ = manifest.Lookup(l.content, q)
		exact = false
	}
}

// PatchedAt implements manifest.PatchProvenance: for a present field, its
// source when that is a patch document (not the base, not a transformer);
// for an absent one, the patch entry that deleted its first absent field.
func (l *layered) PatchedAt(p manifest.Path) (manifest.Location, bool) {
	q, v := manifest.PresentPrefix(l.content, p)
	if len(q) < len(p) {
		return l.removal(p[:len(q)+1])
	}
	loc, w, ok := l.sourceWriter(q, v)
	if !ok || !isPatch(w) {
		return manifest.Location{}, false
	}
	return loc, true
}

// isPatch tells a patch document's writer (a strategic merge patch, a JSON
// patch add or replace) from the origin document and the transformers.
func isPatch(w writer) bool {
	switch t := w.(type) {
	case *identityGuard:
		return !t.origin
	case *treeWriter:
		return !t.origin
	}
	return false
}

// remover is a writer that can also delete a field (a strategic merge
// patch's null or $patch: delete, a JSON patch remove).
type remover interface {
	// removed returns the position of the entry that deleted the field
	// at q.
	removed(l *layered, q manifest.Path) (manifest.Location, bool)
}

// removal finds the last writer that deleted the absent field q (whose
// parent is present): the line that removed it is the line to edit. Only
// keyed fields: a removed list element leaves no index to name it by.
func (l *layered) removal(q manifest.Path) (manifest.Location, bool) {
	if q[len(q)-1].IsIndex {
		return manifest.Location{}, false
	}
	for i := len(l.writers) - 1; i > 0; i-- {
		if r, ok := l.writers[i].(remover); ok {
			if loc, ok := r.removed(l, q); ok {
				return loc, true
			}
		}
	}
	return manifest.Location{}, false
}

// source finds the writer of the value v at q.
func (l *layered) source(q manifest.Path, v any) (manifest.Location, bool) {
	loc, _, ok := l.sourceWriter(q, v)
	return loc, ok
}

// sourceWriter is source, with the writer that answered.
func (l *layered) sourceWriter(q manifest.Path, v any) (manifest.Location, writer, bool) {
	floor := 0
	for i := len(l.writers) - 1; i > 0; i-- {
		if l.writers[i].replaces(q) {
			floor = i
			break
		}
	}
	if isComposite(v) {
		for i := floor; i < len(l.writers); i++ {
			if loc, ok := l.writers[i].claim(l, q, v); ok {
				return loc, l.writers[i], true
			}
		}
		return manifest.Location{}, nil, false
	}
	for i := len(l.writers) - 1; i >= floor; i-- {
		if loc, ok := l.writers[i].claim(l, q, v); ok {
			return loc, l.writers[i], true
		}
	}
	return manifest.Location{}, nil, false
}

func isComposite(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// srcDoc is a parsed source file a writer reads its nodes from. Inline
// patches live inside a string of a kustomization: their nodes are
// positioned relative to that string, and colOffset (the block's
// indentation) moves them to the file's columns. When the string cannot be
// mapped line by line (folded or quoted multi-line scalars), every position
// is the fallback: the string itself.
type srcDoc struct {
	doc       *manifest.Document
	colOffset int
	fallback  *manifest.Location
	// origin, for a document a chart rendered (kustomize_helm.go), is the
	// chart's provenance: it answers instead of the document's positions.
	origin manifest.Provenance
}

// locate returns the position of path p below root.
func (s *srcDoc) locate(root *yaml.Node, p manifest.Path) manifest.Location {
	if s.fallback != nil {
		return *s.fallback
	}
	if s.origin != nil {
		loc, _ := s.origin.Locate(p)
		return loc
	}
	loc, _ := s.doc.LocateFrom(root, p)
	if s.colOffset != 0 {
		loc.Column += s.colOffset
		if loc.EndColumn > 0 {
			loc.EndColumn += s.colOffset
		}
	}
	return loc
}

// treeWriter is a document (the origin resource, a strategic merge patch,
// the value of a JSON patch operation) whose nodes are laid over the object
// at mount: every field present in the document was set by it.
type treeWriter struct {
	src *srcDoc
	// root is the node the positions are computed from, base the path from
	// root to the node mounted at mount (so a location includes the key
	// that holds it, e.g. "value:" of a JSON patch operation).
	root  *yaml.Node
	base  manifest.Path
	mount manifest.Path
	// wholesale marks a writer that replaced everything at mount (JSON patch
	// add/replace, $patch: replace).
	wholesale bool
	// origin marks the origin document: its values are the baseline and are
	// not checked against the rendered value (vars, name references and
	// hashes rewrite them, and the origin is still the line to edit).
	origin bool
}

func (w *treeWriter) replaces(q manifest.Path) bool { return w.wholesale && q.HasPrefix(w.mount) }

func (w *treeWriter) claim(l *layered, q manifest.Path, v any) (manifest.Location, bool) {
	n, rel, ok := w.walk(l, q)
	if !ok {
		return manifest.Location{}, false
	}
	if !w.origin && n.Kind == yaml.ScalarNode && !isComposite(v) && !scalarEqual(n, v) {
		return manifest.Location{}, false
	}
	if !w.origin && isDirective(n) {
		return manifest.Location{}, false
	}
	return w.src.locate(w.root, rel), true
}

// removed claims a field the rendered object lacks when the patch sets it
// to null or to a $patch: delete mapping (the origin document removes
// nothing: a null there is a value). q's parent is present in the content,
// so the walk to it matches list elements against the rendered lists.
func (w *treeWriter) removed(l *layered, q manifest.Path) (manifest.Location, bool) {
	if w.origin || w.wholesale {
		return manifest.Location{}, false
	}
	parent, rel, ok := w.walk(l, q[:len(q)-1])
	if !ok || parent.Kind != yaml.MappingNode {
		return manifest.Location{}, false
	}
	_, n := manifest.NodeAt(parent, q[len(q)-1:])
	if n = derefNode(n); n == nil || !(isNull(n) || isDirective(n)) {
		return manifest.Location{}, false
	}
	return w.src.locate(w.root, append(rel, q[len(q)-1])), true
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// walk follows q from the writer's mount down its document, matching list
// elements of the document to those of the rendered content; it returns
// the node at q and its path from root.
func (w *treeWriter) walk(l *layered, q manifest.Path) (*yaml.Node, manifest.Path, bool) {
	if !q.HasPrefix(w.mount) {
		return nil, nil, false
	}
	_, n := manifest.NodeAt(w.root, w.base)
	if n == nil {
		return nil, nil, false
	}
	rel := append(manifest.Path(nil), w.base...)
	cur, _ := manifest.Lookup(l.content, w.mount)
	for _, seg := range q[len(w.mount):] {
		n = derefNode(n)
		var next *yaml.Node
		var srcSeg manifest.Segment
		switch {
		case n.Kind == yaml.MappingNode && !seg.IsIndex:
			_, next = manifest.NodeAt(n, manifest.Path{seg})
			srcSeg = seg
		case n.Kind == yaml.SequenceNode && seg.IsIndex:
			list, _ := cur.([]any)
			if seg.Index >= len(list) {
				return nil, nil, false
			}
			i := matchElement(n, list, seg.Index)
			if i < 0 {
				return nil, nil, false
			}
			next = n.Content[i]
			srcSeg = manifest.Index(i)
		}
		if next == nil {
			return nil, nil, false
		}
		rel = append(rel, srcSeg)
		n = next
		cur = step(cur, seg)
	}
	return derefNode(n), rel, true
}

// isDirective recognises strategic-merge directives ($patch: delete), which
// are instructions rather than values.
func isDirective(n *yaml.Node) bool {
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "$patch" && n.Content[i+1].Value == "delete" {
			return true
		}
	}
	return false
}

func step(v any, s manifest.Segment) any {
	switch t := v.(type) {
	case map[string]any:
		if !s.IsIndex {
			return t[s.Key]
		}
	case []any:
		if s.IsIndex && s.Index < len(t) {
			return t[s.Index]
		}
	}
	return nil
}

func derefNode(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	return n
}

// mergeKeys are the keys that identify list elements in strategic merge
// (kyaml infers "name"; the Kubernetes schema adds the others for ports,
// volume mounts, host aliases, devices and topology constraints).
var mergeKeys = []string{"name", "mountPath", "containerPort", "port", "devicePath", "ip", "topologyKey"}

// matchElement finds the element of a source list that supplied element i
// of the rendered list: by merge key for lists of mappings, by value for
// lists of scalars, by position otherwise.
func matchElement(seq *yaml.Node, list []any, i int) int {
	switch r := list[i].(type) {
	case map[string]any:
		for _, key := range mergeKeys {
			rv, ok := r[key]
			if !ok {
				continue
			}
			found, keyed := -1, false
			for j, c := range seq.Content {
				c = derefNode(c)
				if c.Kind != yaml.MappingNode {
					continue
				}
				_, kv := manifest.NodeAt(c, manifest.Path{manifest.Key(key)})
				if kv == nil {
					continue
				}
				keyed = true
				if kv.Kind == yaml.ScalarNode && scalarEqual(kv, rv) && found < 0 {
					found = j
				}
			}
			if keyed {
				return found
			}
		}
	case nil, map[string]string:
	default:
		if i < len(seq.Content) && scalarEqual(derefNode(seq.Content[i]), r) {
			return i
		}
		for j, c := range seq.Content {
			if c = derefNode(c); c.Kind == yaml.ScalarNode && scalarEqual(c, r) {
				return j
			}
		}
		return -1
	}
	if i < len(seq.Content) {
		return i
	}
	return -1
}

// scalarEqual compares a YAML scalar with a rendered value loosely, as text:
// kustomize keeps scalars as written, and the rendered value went through
// JSON, so 5, "5" and 5.0 only differ in type.
func scalarEqual(n *yaml.Node, v any) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	switch t := v.(type) {
	case nil:
		return n.ShortTag() == "!!null"
	case string:
		return n.Value == t
	case bool:
		return strings.EqualFold(n.Value, fmt.Sprint(t))
	case float64:
		return n.Value == fmt.Sprint(t) || strings.TrimSuffix(n.Value, ".0") == fmt.Sprint(t)
	}
	return n.Value == fmt.Sprint(v)
}

// leafWriter is a transformer that set individual fields (namespace,
// namePrefix, a label, an image, a replica count, a generator's literal):
// it claims the fields match accepts, when verify agrees the rendered value
// is what it wrote, and points at its entry in the kustomization.
type leafWriter struct {
	at     manifest.Location
	match  func(q manifest.Path) bool
	verify func(v any) bool
	// covers, when set, is a subtree the writer replaced wholesale (a
	// generator with behavior: replace replaces data).
	covers manifest.Path
}

func (w *leafWriter) replaces(q manifest.Path) bool { return w.covers != nil && q.HasPrefix(w.covers) }

func (w *leafWriter) claim(_ *layered, q manifest.Path, v any) (manifest.Location, bool) {
	if !w.match(q) || (w.verify != nil && !isComposite(v) && !w.verify(v)) {
		return manifest.Location{}, false
	}
	return w.at, true
}

// exactly matches one path.
func exactly(p manifest.Path) func(manifest.Path) bool {
	return func(q manifest.Path) bool { return q.Equal(p) }
}

// fieldSpecMatch matches the way kustomize's field specs address fields:
// keys separated by "/", lists crossed implicitly ("[]" marks them too).
// last, when not empty, is one more key (a label name) at the end.
func fieldSpecMatch(spec string, last string) func(manifest.Path) bool {
	var keys []string
	for _, k := range strings.Split(spec, "/") {
		keys = append(keys, strings.TrimSuffix(k, "[]"))
	}
	if last != "" {
		keys = append(keys, last)
	}
	return keysMatch(keys)
}

// keysMatch matches paths whose keys are keys, whatever list indices lie
// between them.
func keysMatch(keys []string) func(manifest.Path) bool {
	return func(q manifest.Path) bool {
		i := 0
		for _, s := range q {
			if s.IsIndex {
				continue
			}
			if i >= len(keys) || keys[i] != s.Key {
				return false
			}
			i++
		}
		return i == len(keys) && len(q) > 0 && !q[len(q)-1].IsIndex
	}
}

// stringIs verifies a rendered string.
func stringIs(want string) func(any) bool {
	return func(v any) bool { s, ok := v.(string); return ok && s == want }
}
