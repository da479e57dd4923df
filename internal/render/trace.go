package render

import (
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// The tracer replays a kustomize build over the kustomization nodes instead
// of the objects' content: it follows each resource from the document it was
// read from (or the generator entry that made it) through every
// kustomization above it, and records, in krusty's order, each patch and
// transformer entry that applied to it and which fields that entry writes.
// krusty itself produces the content; the trace only says who wrote what.
//
// Which entries apply is decided the way krusty decides it (ids before and
// after renames, selectors, kinds); writers that set scalars are checked
// against the rendered value when provenance is asked, so an entry that did
// not in fact set a field never claims it.

// tres is one resource followed through the build.
type tres struct {
	gvk resid.Gvk
	// names and namespaces it had, oldest first (krusty matches patches
	// against any of them).
	names, nss []string
	labels     map[string]string
	annots     map[string]string
	// generated resources may get a content hash appended to their name.
	generated, hash bool
	// file is the repository file the resource was read from ("" when
	// generated).
	file    string
	start   manifest.Location
	writers []writer
	// helmGenerated marks what a kustomization's helmCharts rendered: the
	// namespace transformer skips it, as krusty's does.
	helmGenerated bool
}

func (r *tres) name() string { return r.names[len(r.names)-1] }
func (r *tres) ns() string   { return r.nss[len(r.nss)-1] }

func (r *tres) hasName(n string) bool {
	for _, x := range r.names {
		if x == n {
			return true
		}
	}
	return false
}

// inNamespace compares namespaces as krusty's ids do: "" is "default" for
// namespaced kinds, and cluster-scoped kinds match any namespace.
func (r *tres) inNamespace(ns string) bool {
	if r.clusterScoped() {
		return true
	}
	for _, x := range r.nss {
		if effectiveNS(x) == effectiveNS(ns) {
			return true
		}
	}
	return false
}

func effectiveNS(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}

func (r *tres) clusterScoped() bool { return r.gvk.IsClusterScoped() }

func (r *tres) rename(n string) {
	if n != r.name() {
		r.names = append(r.names, n)
	}
}

func (r *tres) setNamespace(ns string) {
	if ns != r.ns() {
		r.nss = append(r.nss, ns)
	}
}

type tracer struct {
	g    *graph
	docs *docCache
	// unmatched are the entries of strategic merge patches that matched no
	// resource (krusty fails on them).
	unmatched []manifest.Location
	// selectsNothing are the patch entries with a target that selected
	// no resource (kustomize applies them to nothing, silently).
	selectsNothing []manifest.Location
}

// trace replays the build of a target kustomization.
func (t *tracer) trace(n *node) []*tres {
	return t.accumulate(n, nil, map[string]bool{})
}

// accumulate follows krusty's accumulateTarget: resources (files and
// bases), generators, components (which work on the same accumulator),
// then the kustomization's transformers over everything accumulated.
func (t *tracer) accumulate(n *node, ra []*tres, visiting map[string]bool) []*tres {
	k := n.k
	if visiting[k.Dir] {
		return ra // a cycle: reported by the graph, never built
	}
	visiting[k.Dir] = true
	defer delete(visiting, k.Dir)
	for _, entry := range k.K.Resources {
		if isRemote(entry) {
			continue
		}
		full, err := resolve(k.Dir, entry)
		if err != nil {
			continue
		}
		if sub := t.g.node(full); sub != nil {
			ra = append(ra, t.accumulate(sub, nil, visiting)...)
			continue
		}
		ra = append(ra, t.fileResources(full)...)
	}
	ra = append(ra, t.helmResources(k)...)
	ra = t.generators(k, ra)
	for _, entry := range k.K.Components {
		full, err := resolve(k.Dir, entry)
		if err != nil {
			continue
		}
		if sub := t.g.node(full); sub != nil {
			ra = t.accumulate(sub, ra, visiting)
		}
	}
	t.transform(k, ra)
	return ra
}

// fileResources reads the objects of a resource file (List items
// included), each with its document as origin.
func (t *tracer) fileResources(file string) []*tres {
	var out []*tres
	for _, sd := range t.docs.get(file) {
		objs, _ := sd.doc.Objects("")
		for _, o := range objs {
			r := newTres(o.Content)
			r.file = file
			r.start = sd.locate(o.Node, nil)
			r.writers = []writer{&treeWriter{src: sd, root: o.Node, origin: true}}
			out = append(out, r)
		}
	}
	return out
}

func newTres(content map[string]any) *tres {
	id := manifest.IDOf(content, "")
	r := &tres{
		names:  []string{id.Name},
		nss:    []string{id.Namespace},
		labels: map[string]string{},
		annots: map[string]string{},
	}
	r.gvk = gvkOf(id.APIVersion, id.Kind)
	if md, ok := content["metadata"].(map[string]any); ok {
		copyStrings(r.labels, md["labels"])
		copyStrings(r.annots, md["annotations"])
	}
	return r
}

func gvkOf(apiVersion, kind string) resid.Gvk {
	g, v, ok := strings.Cut(apiVersion, "/")
	if !ok {
		g, v = "", apiVersion
	}
	return resid.Gvk{Group: g, Version: v, Kind: kind}
}

func copyStrings(dst map[string]string, v any) {
	if m, ok := v.(map[string]any); ok {
		for k, x := range m {
			if s, ok := x.(string); ok {
				dst[k] = s
			}
		}
	}
}

// matchesID reports whether a patch document's id names the resource, as
// krusty's GetById does (any of its names, the same group, version and
// kind, the same namespace).
func (r *tres) matchesID(content map[string]any) bool {
	id := manifest.IDOf(content, "")
	gvk := gvkOf(id.APIVersion, id.Kind)
	return gvk.Equals(r.gvk) && r.hasName(id.Name) && r.inNamespace(id.Namespace)
}

// selects applies a patch target selector, as krusty's Select does: the
// original or current name and namespace, the group/version/kind, and the
// label and annotation selectors.
func selects(sel *types.Selector, r *tres) bool {
	sr, err := compiledSelector(sel)
	if err != nil {
		return false
	}
	if !sr.MatchNamespace(effectiveNSFor(r, r.nss[0])) && !sr.MatchNamespace(effectiveNSFor(r, r.ns())) {
		return false
	}
	if !sr.MatchName(r.names[0]) && !sr.MatchName(r.name()) {
		return false
	}
	if !sr.MatchGvk(r.gvk) {
		return false
	}
	if sel.LabelSelector != "" && !matchesSelector(r.labels, sel.LabelSelector) {
		return false
	}
	if sel.AnnotationSelector != "" && !matchesSelector(r.annots, sel.AnnotationSelector) {
		return false
	}
	return true
}

// selectorCache keeps compiled selectors: one patch entry is matched
// against every resource of every overlay that includes it.
var selectorCache sync.Map // types.Selector -> *selectorEntry

type selectorEntry struct {
	sr  *types.SelectorRegex
	err error
}

func compiledSelector(sel *types.Selector) (*types.SelectorRegex, error) {
	if e, ok := selectorCache.Load(*sel); ok {
		return e.(*selectorEntry).sr, e.(*selectorEntry).err
	}
	sr, err := types.NewSelectorRegex(sel)
	selectorCache.Store(*sel, &selectorEntry{sr, err})
	return sr, err
}

func effectiveNSFor(r *tres, ns string) string {
	if r.clusterScoped() {
		return ns
	}
	return effectiveNS(ns)
}

// matchesSelector evaluates a label selector expression with kyaml.
func matchesSelector(labels map[string]string, sel string) bool {
	rn := kyaml.NewMapRNode(nil)
	if err := rn.SetLabels(labels); err != nil {
		return false
	}
	ok, err := rn.MatchesLabelSelector(sel)
	return err == nil && ok
}

// resolvedPath joins an entry to the kustomization's directory, "" when it
// leaves the repository.
func resolvedPath(k *kustomization, entry string) string {
	p, err := resolve(k.Dir, entry)
	if err != nil {
		return ""
	}
	return p
}

// patchDocs returns the documents of a patch entry: a file, or the inline
// string at p in the kustomization.
func (t *tracer) patchDocs(k *kustomization, file string, inline manifest.Path) []*srcDoc {
	if file != "" {
		if p := resolvedPath(k, file); p != "" {
			return t.docs.get(p)
		}
		return nil
	}
	return t.docs.inline(k, inline)
}

// isJSONPatch tells a JSON 6902 patch (a list of operations) from a
// strategic merge patch.
func isJSONPatch(docs []*srcDoc) bool {
	return len(docs) == 1 && docs[0].doc.Node != nil && docs[0].doc.Node.Kind == yaml.SequenceNode
}

// smpWriter lays a strategic merge patch document over a resource.
func smpWriter(sd *srcDoc) writer {
	return &identityGuard{&treeWriter{src: sd, root: sd.doc.Node}}
}

// identityGuard keeps a patch from claiming the fields that only say which
// object it patches (apiVersion, kind, metadata.name and namespace).
type identityGuard struct{ *treeWriter }

func (w *identityGuard) claim(l *layered, q manifest.Path, v any) (manifest.Location, bool) {
	if isIdentity(q) || isMergeKey(q) {
		return manifest.Location{}, false
	}
	return w.treeWriter.claim(l, q, v)
}

// isMergeKey recognises the key field of a list element (containers[0].name):
// in a patch it says which element to patch; the value is the base's.
func isMergeKey(q manifest.Path) bool {
	n := len(q)
	if n < 2 || q[n-1].IsIndex || !q[n-2].IsIndex {
		return false
	}
	for _, k := range mergeKeys {
		if q[n-1].Key == k {
			return true
		}
	}
	return false
}

func isIdentity(q manifest.Path) bool {
	s := q.String()
	return s == "apiVersion" || s == "kind" || s == "metadata.name" || s == "metadata.namespace"
}

// jsonPatchWriters turns the operations of a JSON 6902 patch into writers
// for one resource. Operation paths are JSON pointers into the object as it
// was when the patch ran; they are read against the rendered content.
func jsonPatchWriters(sd *srcDoc, content map[string]any) []writer {
	root := sd.doc.Node
	var out []writer
	for i, op := range root.Content {
		if op.Kind != yaml.MappingNode {
			continue
		}
		var opName, ptr string
		for j := 0; j+1 < len(op.Content); j += 2 {
			switch op.Content[j].Value {
			case "op":
				opName = op.Content[j+1].Value
			case "path":
				ptr = op.Content[j+1].Value
			}
		}
		mount, ok := pointerPath(ptr, content)
		if !ok {
			continue
		}
		switch opName {
		case "add", "replace":
			out = append(out, &treeWriter{src: sd, root: root, base: manifest.Path{manifest.Index(i), manifest.Key("value")}, mount: mount, wholesale: true})
		case "copy", "move":
			out = append(out, &treeWriter{src: sd, root: root, base: manifest.Path{manifest.Index(i)}, mount: mount, wholesale: true, origin: true})
		case "remove":
			out = append(out, &jsonRemove{at: sd.locate(root, manifest.Path{manifest.Index(i)}), path: mount})
		}
	}
	return out
}

// jsonRemove is a JSON patch remove operation: it sets nothing, and it is
// the line that removed its path.
type jsonRemove struct {
	at   manifest.Location
	path manifest.Path
}

func (*jsonRemove) claim(*layered, manifest.Path, any) (manifest.Location, bool) {
	return manifest.Location{}, false
}
func (*jsonRemove) replaces(manifest.Path) bool { return false }

func (w *jsonRemove) removed(_ *layered, q manifest.Path) (manifest.Location, bool) {
	return w.at, q.Equal(w.path)
}

// pointerPath converts a JSON pointer to a field path, reading list indices
// against the content ("-", the end of a list, is its last element).
func pointerPath(ptr string, content map[string]any) (manifest.Path, bool) {
	if ptr == "" || ptr[0] != '/' {
		return nil, false
	}
	var p manifest.Path
	var cur any = content
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case []any:
			i := len(c) - 1
			if tok != "-" {
				n, ok := atoi(tok)
				if !ok {
					return nil, false
				}
				i = n
			}
			p = append(p, manifest.Index(i))
			if i >= 0 && i < len(c) {
				cur = c[i]
			} else {
				cur = nil
			}
		default:
			p = append(p, manifest.Key(tok))
			if m, ok := cur.(map[string]any); ok {
				cur = m[tok]
			} else {
				cur = nil
			}
		}
	}
	return p, true
}

func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// pendingJSON is a JSON patch waiting for the rendered content (its
// pointers are read against it) before it becomes writers.
type pendingJSON struct{ sd *srcDoc }

func (p *pendingJSON) claim(*layered, manifest.Path, any) (manifest.Location, bool) {
	return manifest.Location{}, false
}
func (p *pendingJSON) replaces(manifest.Path) bool { return false }

// expand replaces pending JSON patches with their operations' writers.
func expand(ws []writer, content map[string]any) []writer {
	var out []writer
	for _, w := range ws {
		if p, ok := w.(*pendingJSON); ok {
			out = append(out, jsonPatchWriters(p.sd, content)...)
			continue
		}
		out = append(out, w)
	}
	return out
}
