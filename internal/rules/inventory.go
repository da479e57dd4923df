package rules

import (
	"path"
	"slices"
	"sync"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// inventory holds read-only facts about a subject, never changed by rules
// (research §10.1):
//
//	inventory[source]   the source document: file, document (0-based index),
//	                    line, api_version, kind, namespace, name,
//	                    kustomization (a kustomize file), private_keys (field
//	                    paths holding a PEM private key)
//	inventory[target]   the render target: name, kind, basename (last path
//	                    element), parent (the element before it), objects
//	inventory[index]    kind → sorted names of the target's objects
//	inventory[findings] main phase: the analyzers' findings on the object
//	                    (rule_id, level, message, path)
//	inventory[env]      the checks' environment as the user gave it (--env,
//	                    checks.env), without what rules add
//
// Early rules see only inventory[source] and inventory[env].
func (s *subject) inventoryMap() map[string]any {
	if s.inventory == nil {
		inv := map[string]any{}
		if s.facts != nil {
			inv["source"] = s.facts.get()
		}
		if s.target != nil {
			inv["target"] = s.target.facts
			inv["index"] = s.target.index
		}
		if s.findingFacts != nil {
			inv["findings"] = s.findingFacts
		}
		env := s.run.e.opts.Env
		if env == nil {
			env = noEnv
		}
		inv["env"] = env
		s.inventory = inv
	}
	return s.inventory
}

// noEnv stands for an empty user environment (never written).
var noEnv = map[string]any{}

// sourceFacts are computed once per document, when a rule first asks
// (objects of one document may ask concurrently).
type sourceFacts struct {
	doc  *manifest.Document
	loc  manifest.Location // when the document is unknown
	once sync.Once
	m    map[string]any
}

func (f *sourceFacts) get() map[string]any {
	f.once.Do(func() {
		m := map[string]any{}
		if f.doc == nil {
			m["file"] = f.loc.File
			m["line"] = int64(f.loc.Line)
			f.m = m
			return
		}
		d := f.doc
		m["file"] = d.File
		m["document"] = int64(d.Index)
		m["line"] = int64(d.Start().Line)
		m["kustomization"] = d.IsKustomizeConfig()
		if content, ok := d.Value.(map[string]any); ok {
			id := manifest.IDOf(content, "")
			m["api_version"], m["kind"], m["namespace"], m["name"] = id.APIVersion, id.Kind, id.Namespace, id.Name
		}
		keys := privateKeyPaths(d.Value)
		list := make([]any, len(keys))
		for i, k := range keys {
			list[i] = k
		}
		m["private_keys"] = list
		f.m = m
	})
	return f.m
}

// targetFacts describe one render target, shared by its objects.
type targetFacts struct {
	t     *render.Target
	facts map[string]any
	index map[string]any
}

func newTargetFacts(t *render.Target) *targetFacts {
	byKind := map[string][]string{}
	for _, o := range t.Objects {
		if o.ID.Kind != "" && o.ID.Name != "" {
			byKind[o.ID.Kind] = append(byKind[o.ID.Kind], o.ID.Name)
		}
	}
	index := make(map[string]any, len(byKind))
	for kind, names := range byKind {
		slices.Sort(names)
		names = slices.Compact(names)
		list := make([]any, len(names))
		for i, n := range names {
			list[i] = n
		}
		index[kind] = list
	}
	return &targetFacts{t: t, index: index, facts: map[string]any{
		"name":     t.Name,
		"kind":     string(t.Kind),
		"basename": path.Base(t.Name),
		"parent":   path.Base(path.Dir(t.Name)),
		"objects":  int64(len(t.Objects)),
	}}
}
