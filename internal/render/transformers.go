package render

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// transform records the writers of one kustomization's builtin
// transformers, in the order krusty runs them (configureBuiltinTransformers):
// strategic merge patches, patches, namespace, name prefix, name suffix,
// labels, annotations, JSON 6902 patches, replicas, images, replacements.
func (t *tracer) transform(k *kustomization, ra []*tres) {
	key := func(s ...any) manifest.Path {
		var p manifest.Path
		for _, x := range s {
			switch v := x.(type) {
			case string:
				p = append(p, manifest.Key(v))
			case int:
				p = append(p, manifest.Index(v))
			}
		}
		return p
	}

	for i, entry := range k.K.PatchesStrategicMerge {
		var docs []*srcDoc
		if isInlinePatch(string(entry)) {
			docs = t.docs.inline(k, key("patchesStrategicMerge", i))
		} else {
			docs = t.patchDocs(k, string(entry), nil)
		}
		t.applySMP(docs, ra, nil, k.at(key("patchesStrategicMerge", i)))
	}
	for i, pt := range k.K.Patches {
		docs := t.patchDocs(k, pt.Path, key("patches", i, "patch"))
		t.applyPatch(docs, pt, ra, k.at(key("patches", i)))
	}
	// Writers that do not depend on the resource are made once and shared.
	if ns := k.K.Namespace; ns != "" {
		at := k.at(key("namespace"))
		nsName := &leafWriter{at: at, match: exactly(key("metadata", "name")), verify: stringIs(ns)}
		subjects := &leafWriter{at: at, match: fieldSpecMatch("subjects/namespace", ""), verify: stringIs(ns)}
		namespace := &leafWriter{at: at, match: exactly(key("metadata", "namespace")), verify: stringIs(ns)}
		for _, r := range ra {
			if r.helmGenerated {
				continue // kustomize leaves the namespace of helm's output to helm
			}
			if r.gvk.Kind == "Namespace" {
				r.writers = append(r.writers, nsName)
			}
			if r.gvk.Kind == "RoleBinding" || r.gvk.Kind == "ClusterRoleBinding" {
				r.writers = append(r.writers, subjects)
			}
			if r.clusterScoped() {
				continue
			}
			r.writers = append(r.writers, namespace)
			r.setNamespace(ns)
		}
	}
	if p := k.K.NamePrefix; p != "" {
		w := &leafWriter{at: k.at(key("namePrefix")), match: exactly(key("metadata", "name")),
			verify: func(v any) bool { s, _ := v.(string); return strings.HasPrefix(s, p) }}
		for _, r := range ra {
			if !skipsPrefixSuffix(r.gvk) {
				r.writers = append(r.writers, w)
				r.rename(p + r.name())
			}
		}
	}
	if s := k.K.NameSuffix; s != "" {
		w := &leafWriter{at: k.at(key("nameSuffix")), match: exactly(key("metadata", "name")),
			verify: func(v any) bool { x, _ := v.(string); return strings.Contains(x, s) }}
		for _, r := range ra {
			if !skipsPrefixSuffix(r.gvk) {
				r.writers = append(r.writers, w)
				r.rename(r.name() + s)
			}
		}
	}
	for i, l := range k.K.Labels {
		specs := []fieldSpec{{path: "metadata/labels"}}
		switch {
		case l.IncludeSelectors:
			specs = append(specs, commonLabelSpecs...)
		case l.IncludeTemplates:
			specs = append(specs, templateLabelSpecs...)
		}
		for _, fs := range l.FieldSpecs {
			specs = append(specs, fieldSpec{path: fs.Path, group: fs.Group, version: fs.Version, kind: fs.Kind})
		}
		for name, value := range l.Pairs {
			t.addMapEntries(ra, specs, name, value, k.at(key("labels", i, "pairs", name)), true)
		}
	}
	for name, value := range k.K.CommonLabels {
		t.addMapEntries(ra, commonLabelSpecs, name, value, k.at(key("commonLabels", name)), true)
	}
	for name, value := range k.K.CommonAnnotations {
		t.addMapEntries(ra, commonAnnotationSpecs, name, value, k.at(key("commonAnnotations", name)), false)
	}
	for i, pt := range k.K.PatchesJson6902 {
		docs := t.patchDocs(k, pt.Path, key("patchesJson6902", i, "patch"))
		t.applyPatch(docs, pt, ra, k.at(key("patchesJson6902", i)))
	}
	for i, rep := range k.K.Replicas {
		count := rep.Count
		w := &leafWriter{at: k.at(key("replicas", i, "count")), match: exactly(key("spec", "replicas")),
			verify: func(v any) bool { n, ok := v.(int64); return ok && n == count }}
		for _, r := range ra {
			if r.hasName(rep.Name) && replicaKinds[r.gvk.Kind] {
				r.writers = append(r.writers, w)
			}
		}
	}
	for i, img := range k.K.Images {
		at := k.at(imageEntryField(k, i, img))
		w := &leafWriter{at: at, match: isImageField, verify: imageVerifier(img)}
		for _, r := range ra {
			r.writers = append(r.writers, w)
		}
	}
	t.replacements(k, ra)
}

// applyPatch records a patches (or patchesJson6902) entry.
func (t *tracer) applyPatch(docs []*srcDoc, pt types.Patch, ra []*tres, at manifest.Location) {
	if len(docs) == 0 {
		return
	}
	if isJSONPatch(docs) {
		if pt.Target == nil {
			return // krusty refuses a JSON patch without a target
		}
		matched := false
		for _, r := range ra {
			if selects(pt.Target, r) {
				r.writers = append(r.writers, &pendingJSON{sd: docs[0]})
				matched = true
			}
		}
		t.noteSelected(matched, len(ra), at)
		return
	}
	if pt.Target != nil {
		matched := false
		for _, r := range ra {
			if selects(pt.Target, r) {
				r.writers = append(r.writers, smpWriter(docs[0]))
				t.patchRenames(docs[0], pt.Options, r)
				matched = true
			}
		}
		t.noteSelected(matched, len(ra), at)
		return
	}
	t.applySMP(docs, ra, pt.Options, at)
}

// noteSelected remembers a patch entry whose target selected nothing of
// the resources there are. With none at all (placeholder files, as Flux's
// bootstrap leaves gotk-components.yaml before it runs) the empty build is
// the news, not the patch.
func (t *tracer) noteSelected(matched bool, resources int, at manifest.Location) {
	if !matched && resources > 0 && !slices.Contains(t.selectsNothing, at) {
		t.selectsNothing = append(t.selectsNothing, at)
	}
}

// applySMP records strategic merge patches that name their target by id.
// A patch that matches nothing is remembered: when krusty then fails with
// "no resource matches strategic merge patch", its entry is the line to fix.
func (t *tracer) applySMP(docs []*srcDoc, ra []*tres, opts *types.PatchArgs, at manifest.Location) {
	for _, sd := range docs {
		content, ok := sd.doc.Value.(map[string]any)
		if !ok {
			continue
		}
		matched := false
		for _, r := range ra {
			if r.matchesID(content) {
				r.writers = append(r.writers, smpWriter(sd))
				t.patchRenames(sd, opts, r)
				matched = true
				break
			}
		}
		if !matched {
			t.unmatched = append(t.unmatched, at)
		}
	}
}

// patchRenames follows a patch allowed to change the name or kind.
func (t *tracer) patchRenames(sd *srcDoc, opts *types.PatchArgs, r *tres) {
	if opts == nil {
		return
	}
	content, _ := sd.doc.Value.(map[string]any)
	id := manifest.IDOf(content, "")
	if opts.AllowNameChange && id.Name != "" {
		r.rename(id.Name)
	}
	if opts.AllowKindChange && id.Kind != "" {
		r.gvk = gvkOf(id.APIVersion, id.Kind)
	}
}

// addMapEntries records a label or annotation written into the field specs
// that apply to each resource. Resources of one kind share one writer.
func (t *tracer) addMapEntries(ra []*tres, specs []fieldSpec, name, value string, at manifest.Location, label bool) {
	byKind := map[resid.Gvk]writer{}
	for _, r := range ra {
		w, seen := byKind[r.gvk]
		if !seen {
			w = mapEntryWriter(specs, r.gvk, name, value, at)
			byKind[r.gvk] = w
		}
		if w == nil {
			continue
		}
		r.writers = append(r.writers, w)
		if label {
			r.labels[name] = value
		} else {
			r.annots[name] = value
		}
	}
}

// mapEntryWriter is the writer of one label (or annotation) for one kind:
// the entry in every field spec that applies, and the mappings along those
// specs (a transformer that creates the labels mapping, or the selector
// holding it, is their source when nothing earlier had them).
func mapEntryWriter(specs []fieldSpec, g resid.Gvk, name, value string, at manifest.Location) writer {
	var matches []func(manifest.Path) bool
	for _, fs := range specs {
		if !fs.applies(g) {
			continue
		}
		keys := strings.Split(fs.path, "/")
		for i, k := range keys {
			keys[i] = strings.TrimSuffix(k, "[]")
		}
		matches = append(matches, keysMatch(append(keys[:len(keys):len(keys)], name)))
		for i := len(keys); i > 0; i-- {
			matches = append(matches, keysMatch(keys[:i]))
		}
	}
	if len(matches) == 0 {
		return nil
	}
	return &leafWriter{at: at, verify: stringIs(value), match: func(q manifest.Path) bool {
		for _, m := range matches {
			if m(q) {
				return true
			}
		}
		return false
	}}
}

// skipsPrefixSuffix are the kinds whose names krusty's prefix and suffix
// transformers leave alone.
func skipsPrefixSuffix(g resid.Gvk) bool {
	return g.Kind == "CustomResourceDefinition" || g.Kind == "Namespace" ||
		(g.Group == "apiregistration.k8s.io" && g.Kind == "APIService")
}

var replicaKinds = map[string]bool{"Deployment": true, "ReplicationController": true, "ReplicaSet": true, "StatefulSet": true}

// imageEntryField picks the key of an images entry a person edits: the tag
// or digest when set, else the new name, else the entry.
func imageEntryField(k *kustomization, i int, img types.Image) manifest.Path {
	base := manifest.Path{manifest.Key("images"), manifest.Index(i)}
	for _, f := range []struct {
		key string
		set bool
	}{{"digest", img.Digest != ""}, {"newTag", img.NewTag != ""}, {"tagSuffix", img.TagSuffix != ""}, {"newName", img.NewName != ""}} {
		if f.set {
			p := base.Child(manifest.Key(f.key))
			if key, _ := k.node(p); key != nil {
				return p
			}
		}
	}
	// imageTags (deprecated) entries continue after images.
	if key, _ := k.node(base); key == nil {
		if _, n := k.node(manifest.Path{manifest.Key("images")}); n != nil {
			return manifest.Path{manifest.Key("imageTags"), manifest.Index(i - len(n.Content))}
		}
		return manifest.Path{manifest.Key("imageTags"), manifest.Index(i)}
	}
	return base
}

// isImageField recognises the fields krusty's image transformer rewrites:
// containers[].image and initContainers[].image at any depth, and image
// volume references.
func isImageField(q manifest.Path) bool {
	n := len(q)
	if n >= 3 && !q[n-1].IsIndex && q[n-1].Key == "image" && q[n-2].IsIndex && !q[n-3].IsIndex &&
		(q[n-3].Key == "containers" || q[n-3].Key == "initContainers") {
		return true
	}
	return n >= 4 && q[n-1].Key == "reference" && q[n-2].Key == "image" && q[n-3].IsIndex && q[n-4].Key == "volumes"
}

// imageVerifier checks that a rendered image is what an images entry makes
// of it: its name (or new name), and its tag or digest when the entry sets
// them.
func imageVerifier(img types.Image) func(any) bool {
	return func(v any) bool {
		s, ok := v.(string)
		if !ok {
			return false
		}
		name, tag, digest := splitImage(s)
		want := img.Name
		if img.NewName != "" {
			want = img.NewName
		}
		if name != want {
			return false
		}
		switch {
		case img.Digest != "":
			return digest == img.Digest
		case img.NewTag != "":
			return tag == img.NewTag
		case img.TagSuffix != "":
			return strings.HasSuffix(tag, img.TagSuffix)
		}
		return true
	}
}

// splitImage cuts an image reference into name, tag and digest.
func splitImage(s string) (name, tag, digest string) {
	if i := strings.Index(s, "@"); i >= 0 {
		s, digest = s[:i], s[i+1:]
	}
	if i := strings.LastIndex(s, ":"); i >= 0 && !strings.Contains(s[i:], "/") {
		s, tag = s[:i], s[i+1:]
	}
	return s, tag, digest
}

// replacements records the fields each replacement writes.
func (t *tracer) replacements(k *kustomization, ra []*tres) {
	for i, rf := range k.K.Replacements {
		base := manifest.Path{manifest.Key("replacements"), manifest.Index(i)}
		if rf.Path != "" {
			file := resolvedPath(k, rf.Path)
			for _, sd := range t.docs.get(file) {
				t.replacementList(sd, sd.doc.Node, ra)
			}
			continue
		}
		_, n := k.node(base)
		if n == nil {
			continue
		}
		sd := &srcDoc{doc: k.Doc}
		t.replacementNode(sd, k.Doc.Node, base, n, ra)
	}
}

func (t *tracer) replacementList(sd *srcDoc, n *yaml.Node, ra []*tres) {
	if n == nil {
		return
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for i, c := range n.Content {
			t.replacementNode(sd, n, manifest.Path{manifest.Index(i)}, c, ra)
		}
	case yaml.MappingNode:
		t.replacementNode(sd, n, nil, n, ra)
	}
}

// replacementNode records the target fields of one replacement.
func (t *tracer) replacementNode(sd *srcDoc, root *yaml.Node, base manifest.Path, n *yaml.Node, ra []*tres) {
	var rep types.Replacement
	if err := n.Decode(&rep); err != nil {
		return
	}
	for ti, target := range rep.Targets {
		if target == nil || target.Select == nil {
			continue
		}
		for fi, fp := range target.FieldPaths {
			at := sd.locate(root, base.Child(manifest.Key("targets"), manifest.Index(ti), manifest.Key("fieldPaths"), manifest.Index(fi)))
			match := fieldPathMatch(fp)
			for _, r := range ra {
				if !selects(target.Select, r) || rejected(target.Reject, r) {
					continue
				}
				r.writers = append(r.writers, &leafWriter{at: at, match: match})
			}
		}
	}
}

func rejected(rejects []*types.Selector, r *tres) bool {
	for _, s := range rejects {
		if s != nil && selects(s, r) {
			return true
		}
	}
	return false
}

// fieldPathMatch matches a replacement field path such as
// spec.template.spec.containers.[name=web].image or
// metadata.labels.[app.kubernetes.io/name].
func fieldPathMatch(fp string) func(manifest.Path) bool {
	var keys []string
	for fp != "" {
		if strings.HasPrefix(fp, "[") {
			end := strings.Index(fp, "]")
			if end < 0 {
				break
			}
			inner := fp[1:end]
			if !strings.Contains(inner, "=") {
				keys = append(keys, inner)
			}
			fp = strings.TrimPrefix(fp[end+1:], ".")
			continue
		}
		part, rest, _ := strings.Cut(fp, ".")
		keys = append(keys, part)
		fp = rest
	}
	return keysMatch(keys)
}
