package checks

import (
	"sync"

	"sigs.k8s.io/kustomize/kyaml/resid"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// targetIndex is one render target prepared for gathering: its objects by
// kind, the views gatherers read of objects whose content they must not
// see as it is, and a cache of selections that many objects of the target
// share (every Deployment of a namespace asks for the same
// PodDisruptionBudgets).
type targetIndex struct {
	name    string
	kind    string
	objects []*manifest.Object
	byKind  map[string][]*manifest.Object
	// views holds what gatherers read instead of an object's content:
	// objects with their secret values redacted (a Secret's values,
	// credential keys of a ConfigMap, credential environment variables: so
	// no secret can reach a fact, a message or the report), and objects with whole numbers
	// written as floats (replicas: 3.0) typed as integers, as Wanda types
	// facts. Objects that need neither are read as they are.
	views map[*manifest.Object]map[string]any
	// namespace is where objects that name none are created (a chart's
	// release namespace; see render.Target.Namespace).
	namespace string
	cache     sync.Map // selection key → *selection
}

func newTargetIndex(t *render.Target) *targetIndex {
	ti := &targetIndex{name: t.Name, kind: string(t.Kind), objects: t.Objects, byKind: map[string][]*manifest.Object{}, namespace: t.Namespace}
	for _, o := range t.Objects {
		ti.byKind[o.ID.Kind] = append(ti.byKind[o.ID.Kind], o)
		view, own := o.Content, false
		if masked, changed := manifest.MaskObject(o); changed {
			view, own = masked, true
		}
		if v, changed := wholeNumbers(view); changed {
			view, own = v.(map[string]any), true
		}
		if own {
			if ti.views == nil {
				ti.views = map[*manifest.Object]map[string]any{}
			}
			ti.views[o] = view
		}
	}
	return ti
}

// namespaceOf is the namespace o is created in: its own, or for a
// namespaced kind that names none, the target's (a chart's objects without
// metadata.namespace are in the release namespace, with the ConfigMaps and
// Secrets that name it explicitly).
func (t *targetIndex) namespaceOf(o *manifest.Object) string {
	if o.ID.Namespace != "" || t.namespace == "" {
		return o.ID.Namespace
	}
	gv := o.ID.APIVersion
	group, version := "", gv
	for i := len(gv) - 1; i >= 0; i-- {
		if gv[i] == '/' {
			group, version = gv[:i], gv[i+1:]
			break
		}
	}
	if resid.NewGvk(group, version, o.ID.Kind).IsClusterScoped() {
		return ""
	}
	return t.namespace
}

// content is what gatherers see of an object.
func (t *targetIndex) content(o *manifest.Object) map[string]any {
	if m, ok := t.views[o]; ok {
		return m
	}
	return o.Content
}

// wholeNumbers returns v with every whole float64 typed as an int64 (see
// normalizeNumber), and whether anything changed. Maps and lists are copied
// only along the branches that change, so the content of most objects,
// which has no such number, is shared rather than copied.
func wholeNumbers(v any) (any, bool) {
	switch t := v.(type) {
	case float64:
		n := normalizeNumber(t)
		_, isInt := n.(int64)
		return n, isInt
	case map[string]any:
		return manifest.RewriteMap(t, func(_ string, e any) (any, bool) { return wholeNumbers(e) })
	case []any:
		return manifest.RewriteList(t, wholeNumbers)
	}
	return v, false
}
