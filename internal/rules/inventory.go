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
//	                    element), parent (the element before it),
//	                    grandparent_dir (the path of the directory that
//	                    holds parent: apps/web for apps/web/overlays/prod,
//	                    "." for overlays/dev), objects
//	inventory[index]    kind → sorted names of the target's objects
//	inventory[findings] main phase: the analyzers' findings on the object
//	                    (rule_id, level, message, path)
//	inventory[env]      the checks' environment as the user gave it (--env,
//	                    checks.env), without what rules add
//	inventory[rendered] the rendered object: private_keys (field paths whose
//	                    private key was read from a file that is not a
//	                    manifest, such as a kustomize secretGenerator's
//	                    tls.key, which no early rule can see)
//
// Early rules see only inventory[source] and inventory[env].
//
// Rules read single entries ({inventory[source][file]}) far more often than
// the whole inventory, so entries are looked up one by one (inventoryField,
// sourceFacts.field) and mappings are built only for a rule that reads a
// whole mapping ({inventory}, {inventory[source]}).
func (s *subject) inventoryMap() map[string]any {
	if s.fixedInventory != nil {
		return s.fixedInventory
	}
	if s.scratch.inventory == nil {
		inv := map[string]any{}
		for _, k := range inventoryKeys {
			if v, ok := s.inventoryField(k); ok {
				if lm, isLazy := v.(lazyMap); isLazy {
					v = lm.materialize()
				}
				inv[k] = v
			}
		}
		s.scratch.inventory = inv
	}
	return s.scratch.inventory
}

var inventoryKeys = []string{"source", "target", "index", "findings", "env", "rendered"}

// inventoryField reads one top-level inventory entry; inventory[source] is
// returned as a lazyMap.
func (s *subject) inventoryField(key string) (any, bool) {
	if s.fixedInventory != nil {
		v, ok := s.fixedInventory[key]
		return v, ok
	}
	switch key {
	case "source":
		if s.facts != nil {
			return s.facts, true
		}
	case "target":
		if s.target != nil {
			return s.target.facts, true
		}
	case "index":
		if s.target != nil {
			return s.target.index, true
		}
	case "findings":
		if sc := s.scratch; sc != nil && s.phase == PhaseMain && s.run.mainFindingIndex != nil {
			if !sc.haveFindings {
				sc.findingFacts, sc.haveFindings = s.run.findingsOf(s), true
			}
			return sc.findingFacts, true
		}
	case "env":
		if env := s.run.e.opts.Env; env != nil {
			return env, true
		}
		return noEnv, true
	case "rendered":
		if s.rendered != nil {
			return s.rendered, true
		}
	}
	return nil, false
}

// lazyMap is a mapping whose entries are computed when a rule reads them.
type lazyMap interface {
	field(key string) (any, bool)
	materialize() map[string]any
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
	// keysOnce guards keys, the private-key paths (a walk of the document).
	keysOnce sync.Once
	keys     []any
}

// field reads one entry without building the mapping.
func (f *sourceFacts) field(key string) (any, bool) {
	d := f.doc
	if d == nil {
		switch key {
		case "file":
			return f.loc.File, true
		case "line":
			return int64(f.loc.Line), true
		}
		return nil, false
	}
	switch key {
	case "file":
		return d.File, true
	case "document":
		return int64(d.Index), true
	case "line":
		return int64(d.Start().Line), true
	case "kustomization":
		return d.IsKustomizeConfig(), true
	case "private_keys":
		return f.privateKeys(), true
	case "api_version", "kind", "namespace", "name":
		content, ok := d.Value.(map[string]any)
		if !ok {
			return nil, false
		}
		id := manifest.IDOf(content, "")
		switch key {
		case "api_version":
			return id.APIVersion, true
		case "kind":
			return id.Kind, true
		case "namespace":
			return id.Namespace, true
		}
		return id.Name, true
	}
	return nil, false
}

func (f *sourceFacts) privateKeys() []any {
	f.keysOnce.Do(func() {
		paths := privateKeyPaths(f.doc.Value)
		f.keys = make([]any, len(paths))
		for i, k := range paths {
			f.keys[i] = k
		}
	})
	return f.keys
}

func (f *sourceFacts) materialize() map[string]any { return f.get() }

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
		m["private_keys"] = f.privateKeys()
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

func newTargetFacts(t *render.Target, declared bool) *targetFacts {
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
		// The directory an overlays/ directory sits in is the application
		// whose environments the overlays are (plumb-application-from-overlay).
		"grandparent_dir": path.Dir(path.Dir(t.Name)),
		"objects":         int64(len(t.Objects)),
		// checks.environments names this target an environment.
		"declared_environment": declared,
	}}
}

// renderedFacts describe a rendered object as the renderer produced it
// (before any rule changed it). They are computed when a rule first asks;
// like the rest of a subject, by one goroutine at a time.
type renderedFacts struct {
	run  *Run
	obj  *manifest.Object
	keys []any
	done bool
}

func (f *renderedFacts) field(key string) (any, bool) {
	if key == "private_keys" {
		return f.privateKeys(), true
	}
	return nil, false
}

func (f *renderedFacts) materialize() map[string]any {
	return map[string]any{"private_keys": f.privateKeys()}
}

// privateKeys lists the fields of the object holding a private key that
// came from a file the early phase did not read: kustomize's
// configMapGenerator and secretGenerator take files and env files that are
// not manifests (tls.key, id_rsa, .env), and only the rendered object
// shows their content. A key from a loaded document is left out: the early
// rules see that document (and a built-in one fails it there).
func (f *renderedFacts) privateKeys() []any {
	if f.done {
		return f.keys
	}
	f.done = true
	f.keys = []any{}
	for _, p := range privateKeyFields(f.obj.Content) {
		loc, ok := f.obj.Locate(p)
		if !ok || loc.File == "" || len(f.run.byFile[loc.File]) > 0 {
			continue
		}
		f.keys = append(f.keys, p.String())
	}
	return f.keys
}
