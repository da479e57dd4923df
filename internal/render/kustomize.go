package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render/helm"
)

// renderedOrigin is the provenance of a kustomize-built object; it also
// tells the printer to print the object as krusty does.
type renderedOrigin struct {
	*layered
}

// buildKustomize builds one kustomize target and gives each object its
// provenance (nil when the build failed). log, when set, records what
// krusty read.
func (r *renderer) buildKustomize(c *closure, log *accessLog, guard *buildGuard) (*Target, []manifest.Problem) {
	root := c.nodes[0]
	k := root.k
	over, helmProblems := r.helmOverrides(c)
	for _, p := range helmProblems {
		// A chart that needs a dependency charts/ does not hold is not
		// rendered (a warning): neither is the kustomization, whose
		// patches would otherwise look for objects the chart did not make.
		if p.Level == "error" || p.Rule == helm.RuleDependency {
			return nil, helmProblems
		}
	}
	built, err, inputs := r.cachedKrusty(c, false, log, over, guard)
	builds := []cache.Key{inputs}
	tr := &tracer{g: r.graph, docs: r.docs}
	if exceeded := guard.overBudget(); exceeded != "" {
		return nil, []manifest.Problem{readProblem(k, exceeded)}
	}
	if err != nil {
		msg := krustyMessage(err)
		at := locateKrustyError(c, msg)
		// After locating it: a message must not quote a Secret
		// generator's inputs.
		msg = r.graph.scrubGeneratorValues(c, msg)
		if strings.Contains(msg, "matches strategic merge patch") || strings.Contains(msg, "failed to find unique target for patch") {
			if tr.trace(root); len(tr.unmatched) > 0 {
				at = tr.unmatched[0]
			}
		}
		if f, ok := r.locateJSONOpFailure(c, msg); ok {
			return nil, []manifest.Problem{f.problem()}
		}
		p := manifest.Problem{Rule: RuleKustomize, Level: "error", Location: at, Input: true, Key: "build:" + k.Dir,
			Message: fmt.Sprintf("kustomize build %s failed: %s", k.Dir, msg)}
		if inner, dir, ok := unwrapAccumulation(msg); ok && at.File != k.File {
			// The error is in a base: it is the same in every overlay that
			// builds on the base, so it names the base, not the target, and
			// is reported once.
			p.Key = "build:" + dir
			p.Message = fmt.Sprintf("kustomize build of %s failed: %s", dir, inner)
		}
		return nil, []manifest.Problem{p}
	}
	recs := tr.trace(root)
	t := &Target{Name: k.Dir, Kind: KindKustomize}
	problems := newProblemSet()
	objs, untraced, err := r.builtObjects(k, built, indexRecords(recs))
	if err == nil && untraced {
		// Something the trace does not model made or renamed an object:
		// build again with krusty's origin annotations, which name at
		// least the file each object came from.
		again, aerr, inputs := r.cachedKrusty(c, true, log, over, guard)
		builds = append(builds, inputs)
		if aerr == nil {
			objs, _, err = r.builtObjects(k, again, indexRecords(tr.trace(root)))
		}
	}
	if err == nil && !untraced {
		// Only when the trace followed every object: then its resources
		// are krusty's, and a target that selected none of them is sure.
		problems.add(selectsNothingProblems(tr.selectsNothing)...)
	}
	if err != nil {
		problems.add(manifest.Problem{Rule: RuleKustomize, Level: "error", Location: k.Doc.Start(), Input: true, Key: "output:" + k.Dir,
			Message: fmt.Sprintf("kustomize build %s: cannot read its output: %v", k.Dir, err)})
		return nil, problems.sorted()
	}
	if size, limit := outputSize(objs), r.opts.Limits.OrDefault().MaxTargetBytes; size > limit {
		return nil, []manifest.Problem{outputProblem(k, size, limit)}
	}
	r.taintCopiedSecrets(c, objs)
	problems.add(helmProblems...)
	for _, obj := range objs {
		r.addObject(t, obj, problems)
	}
	t.Inputs = r.kustomizeInputs(c, builds, over)
	return t, problems.sorted()
}

// builtObjects turns krusty's output into objects; untraced reports an
// object the trace could not follow.
func (r *renderer) builtObjects(k *kustomization, built []builtResource, idx *recordIndex) (objs []*manifest.Object, untraced bool, err error) {
	for _, b := range built {
		obj, traced, err := r.builtObject(k, b, idx)
		if err != nil {
			return nil, false, err
		}
		untraced = untraced || !traced
		objs = append(objs, obj)
	}
	return objs, untraced, nil
}

// builtObject turns one resource of krusty's output into an object.
func (r *renderer) builtObject(k *kustomization, b builtResource, idx *recordIndex) (*manifest.Object, bool, error) {
	content := b.content
	if content == nil {
		var err error
		if content, err = decodeJSON(b.json); err != nil {
			return nil, false, err
		}
		content = r.interner.content(content)
	}
	id := manifest.IDOf(content, k.Dir)
	l := &layered{content: content}
	rec := idx.take(id)
	var written string
	if rec != nil {
		l.writers = expand(rec.writers, content)
		l.start = rec.start
		// The trace's first name is the one in the resource file or the
		// generator entry: before prefixes, suffixes, renaming patches and
		// the content hash.
		written = rec.names[0]
	} else {
		written = r.originOnly(k, b, id, l)
	}
	obj := &manifest.Object{
		ID:      id,
		Content: content,
		Origin:  &renderedOrigin{layered: l},
	}
	if written != "" && written != id.Name {
		obj.SourceName = written
	}
	return obj, rec != nil, nil
}

// decodeJSON reads krusty's JSON of one object into plumb's value types
// (whole numbers int64).
func decodeJSON(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	m, ok := numbers(v).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not an object")
	}
	return m, nil
}

func numbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case map[string]any:
		for k, x := range t {
			t[k] = numbers(x)
		}
	case []any:
		for i, x := range t {
			t[i] = numbers(x)
		}
	}
	return v
}

// originOnly is the provenance of an object the trace could not follow (a
// patch renamed it, a transformer plugin made it): its origin document when
// krusty's origin annotation names one, else the kustomization. It returns
// the object's name in that document ("" when no document is found).
func (r *renderer) originOnly(k *kustomization, b builtResource, id manifest.ObjectID, l *layered) string {
	l.start = k.Doc.Start()
	if b.origin == nil {
		return ""
	}
	if b.origin.Repo != "" {
		// From a remote base (--allow-remote): the entry that names it.
		l.start = remoteEntry(k, b.origin.Repo)
		return ""
	}
	if b.origin.ConfiguredIn != "" {
		// A generator: its kustomization, or its plugin configuration file.
		if f := originFile(k.Dir, b.origin.ConfiguredIn); f != "" {
			if manifest.IsKustomizationFile(f) {
				if gk := r.kc.get(path.Dir(f)); gk != nil && gk.Doc != nil {
					l.start = gk.Doc.Start()
				}
			} else if docs := r.docs.get(f); len(docs) > 0 {
				l.start = docs[0].doc.Start()
			}
		}
		return ""
	}
	file := originFile(k.Dir, b.origin.Path)
	if file == "" {
		return ""
	}
	// The origin annotation names the file, not the object: the object of
	// the same kind whose name the rendered one contains (prefixes and
	// suffixes), else the only object of that kind in the file (a JSON
	// patch renamed it).
	var sameKind []sourceObject
	for _, sd := range r.docs.get(file) {
		objs, _ := sd.doc.Objects("")
		for _, o := range objs {
			oid := manifest.IDOf(o.Content, "")
			if oid.Kind != id.Kind || oid.Name == "" {
				continue
			}
			if strings.Contains(id.Name, oid.Name) {
				return sourceObject{sd, o, oid.Name}.origin(l)
			}
			sameKind = append(sameKind, sourceObject{sd, o, oid.Name})
		}
	}
	if len(sameKind) == 1 {
		return sameKind[0].origin(l)
	}
	if docs := r.docs.get(file); len(docs) > 0 {
		l.start = docs[0].doc.Start()
	}
	return ""
}

// sourceObject is an object of a resource file, with its name there.
type sourceObject struct {
	sd   *srcDoc
	o    *manifest.Object
	name string
}

// origin makes the object the provenance of l and returns its name.
func (s sourceObject) origin(l *layered) string {
	l.start = s.sd.locate(s.o.Node, nil)
	l.writers = []writer{&treeWriter{src: s.sd, root: s.o.Node, origin: true}}
	return s.name
}

// recordIndex finds the traced resource of an output object by its final
// kind, namespace and name (a generated name may end in a content hash).
type recordIndex struct {
	m map[string][]*tres
}

func recordKey(kind, ns, name string) string { return kind + "|" + ns + "|" + name }

func indexRecords(recs []*tres) *recordIndex {
	idx := &recordIndex{m: map[string][]*tres{}}
	for _, r := range recs {
		key := recordKey(r.gvk.Kind, r.ns(), r.name())
		idx.m[key] = append(idx.m[key], r)
	}
	return idx
}

func (x *recordIndex) take(id manifest.ObjectID) *tres {
	if r := x.pop(recordKey(id.Kind, id.Namespace, id.Name), false); r != nil {
		return r
	}
	// krusty's hash suffix is "-" and ten characters.
	if n := len(id.Name); n > 11 && id.Name[n-11] == '-' {
		return x.pop(recordKey(id.Kind, id.Namespace, id.Name[:n-11]), true)
	}
	return nil
}

func (x *recordIndex) pop(key string, hashed bool) *tres {
	list := x.m[key]
	for i, r := range list {
		if hashed && !(r.generated && r.hash) {
			continue
		}
		x.m[key] = append(list[:i:i], list[i+1:]...)
		return r
	}
	return nil
}

// matchDirs expands a targets: entry into kustomization directories and
// plain directories (directories without a kustomization).
func matchDirs(fsys fs.FS, pattern string) (kustomizations, plain []string) {
	pattern = strings.TrimSuffix(path.Clean(pattern), "/")
	var candidates []string
	if strings.ContainsAny(pattern, "*?[{") {
		matches, _ := doublestar.Glob(fsys, pattern)
		candidates = matches
	} else {
		candidates = []string{pattern}
	}
	for _, c := range candidates {
		if st, err := fs.Stat(fsys, c); err != nil || !st.IsDir() {
			continue
		}
		if f, _ := kustomizationFile(fsys, c); f != "" {
			kustomizations = append(kustomizations, c)
		} else {
			plain = append(plain, c)
		}
	}
	return kustomizations, plain
}

// remoteEntry finds the resources entry of a kustomization that names a
// remote repository; the kustomization itself when none does.
func remoteEntry(k *kustomization, repo string) manifest.Location {
	repo = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(repo, "https://"), "ssh://"), ".git")
	for i, entry := range k.K.Resources {
		if isRemote(entry) && strings.Contains(entry, repo) {
			return k.at(k.resourcePath(i))
		}
	}
	return k.Doc.Start()
}

// selectsNothingProblems are warnings at the patch entries whose target
// selected no resource: kustomize applies such a patch to nothing without
// a word, and it is almost always a typo in the target or a resource
// renamed since.
func selectsNothingProblems(entries []manifest.Location) []manifest.Problem {
	out := make([]manifest.Problem, 0, len(entries))
	for _, at := range entries {
		out = append(out, manifest.Problem{Rule: RuleKustomize, Level: "warning", Location: at, Key: "patch-selects-nothing:" + manifest.FormatLocation(at),
			Message: "the patch's target selects no resource, so kustomize applies it to nothing (silently): check the target's kind, name, namespace and selectors against the resources the kustomization builds"})
	}
	return out
}
