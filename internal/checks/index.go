package checks

import (
	"sync"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// targetIndex is one render target prepared for gathering: its objects by
// kind, the Secret-masked view of Secrets, and a cache of selections that
// many objects of the target share (every Deployment of a namespace asks for
// the same PodDisruptionBudgets).
type targetIndex struct {
	name    string
	kind    string
	objects []*manifest.Object
	byKind  map[string][]*manifest.Object
	// masked holds the content of Secrets with their values redacted:
	// gatherers read Secrets only through it, so no Secret value can reach a
	// fact, a message or the report.
	masked map[*manifest.Object]map[string]any
	cache  sync.Map // selection key → *selection
}

func newTargetIndex(t *render.Target) *targetIndex {
	ti := &targetIndex{name: t.Name, kind: string(t.Kind), objects: t.Objects, byKind: map[string][]*manifest.Object{}}
	for _, o := range t.Objects {
		ti.byKind[o.ID.Kind] = append(ti.byKind[o.ID.Kind], o)
		if manifest.IsSecret(o.Content) {
			if ti.masked == nil {
				ti.masked = map[*manifest.Object]map[string]any{}
			}
			ti.masked[o] = manifest.MaskSecretContent(o.Content)
		}
	}
	return ti
}

// content is what gatherers see of an object.
func (t *targetIndex) content(o *manifest.Object) map[string]any {
	if m, ok := t.masked[o]; ok {
		return m
	}
	return o.Content
}
