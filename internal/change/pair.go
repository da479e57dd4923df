package change

import (
	"fmt"
	"slices"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/internal/value"
)

// Pair is one object at the base and/or the head of one target.
type Pair struct {
	Base, Head *manifest.Object
	// RenamedFrom marks a pair of a deleted and an added object that are
	// near-identical under another name or namespace (a rename, which the
	// cluster sees as a delete and a create).
	RenamedFrom bool
}

// Added reports whether the object exists only at the head.
func (p Pair) Added() bool { return p.Base == nil }

// Deleted reports whether the object exists only at the base.
func (p Pair) Deleted() bool { return p.Head == nil }

// Changed reports whether both sides exist and differ.
func (p Pair) Changed() bool {
	return p.Base != nil && p.Head != nil && (p.RenamedFrom || !value.Equal(p.Base.Content, p.Head.Content))
}

// TargetPairs are the pairs of one render target.
type TargetPairs struct {
	Name string
	// Base and Head are the target at each revision (nil when absent).
	Base, Head *render.Target
	Pairs      []Pair
}

// PairTargets pairs targets by name and, within each, objects by
// identity: API group, kind, namespace and name (the version is left out,
// as Kubernetes does: apps/v1beta2 to apps/v1 is the same object). Objects
// left over are paired when a generator's content hash renamed them (the
// same name as written) and, for the kinds a rename recreates with a
// consequence, when they are near-identical (similar).
func PairTargets(base, head []*render.Target) []TargetPairs {
	b, h := byName(base), byName(head)
	names := make([]string, 0, len(b)+len(h))
	for n := range b {
		names = append(names, n)
	}
	for n := range h {
		if _, ok := b[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	out := make([]TargetPairs, 0, len(names))
	for _, n := range names {
		out = append(out, TargetPairs{Name: n, Base: b[n], Head: h[n], Pairs: pairObjects(objectsOf(b[n]), objectsOf(h[n]))})
	}
	return out
}

func byName(ts []*render.Target) map[string]*render.Target {
	m := make(map[string]*render.Target, len(ts))
	for _, t := range ts {
		m[t.Name] = t
	}
	return m
}

func objectsOf(t *render.Target) []*manifest.Object {
	if t == nil {
		return nil
	}
	return t.Objects
}

// identity is Kubernetes' own identity of an object (group, kind,
// namespace, name). The API version is left out on purpose: moving a
// Deployment from apps/v1beta2 to apps/v1 is a change of one object.
func identity(id manifest.ObjectID) string {
	return id.Group() + "|" + id.Kind + "|" + id.Namespace + "|" + id.Name
}

// ByIdentity pairs base and head objects by identity; an identity defined
// twice (a duplicate object, which hygiene reports) pairs in order of
// definition. It returns one pair per head object, in head order, then
// one per base object no head object has, in base order.
func ByIdentity(base, head []*manifest.Object) []Pair {
	baseBy := map[string][]*manifest.Object{}
	for _, o := range base {
		k := identity(o.ID)
		baseBy[k] = append(baseBy[k], o)
	}
	pairs := make([]Pair, 0, max(len(base), len(head)))
	for _, o := range head {
		k := identity(o.ID)
		p := Pair{Head: o}
		if list := baseBy[k]; len(list) > 0 {
			p.Base, baseBy[k] = list[0], list[1:]
		}
		pairs = append(pairs, p)
	}
	for _, o := range base {
		k := identity(o.ID)
		if list := baseBy[k]; len(list) > 0 && list[0] == o {
			pairs = append(pairs, Pair{Base: o})
			baseBy[k] = list[1:]
		}
	}
	return pairs
}

// pairObjects pairs by identity, then generated names, then renames.
func pairObjects(base, head []*manifest.Object) []Pair {
	all := ByIdentity(base, head)
	pairs := all[:len(head):len(head)] // appends below must not overwrite the deleted pairs
	var added []int
	for i, p := range pairs {
		if p.Base == nil {
			added = append(added, i)
		}
	}
	var deleted []*manifest.Object
	for _, p := range all[len(head):] {
		deleted = append(deleted, p.Base)
	}
	deleted = pairGenerated(pairs, added, deleted)
	deleted = pairRenames(pairs, added, deleted)
	for _, o := range deleted {
		pairs = append(pairs, Pair{Base: o})
	}
	slices.SortStableFunc(pairs, func(a, b Pair) int { return a.ID().Compare(b.ID()) })
	return pairs
}

// ID is the pair's object: the head's, or the base's for a deletion.
func (p Pair) ID() manifest.ObjectID {
	if p.Head != nil {
		return p.Head.ID
	}
	return p.Base.ID
}

// pairGenerated pairs an added and a deleted object of one kind and
// namespace written under the same name: a kustomize generator's content
// hash (app-config-5f7c → app-config-9b2d) or a prefix the overlay
// changed. A generator's hash changing is how kustomize rolls workloads
// when their configuration changes, not a rename: the pair counts as
// changed and is not judged a rename. It returns the deleted objects left.
func pairGenerated(pairs []Pair, added []int, deleted []*manifest.Object) []*manifest.Object {
	if len(added) == 0 || len(deleted) == 0 {
		return deleted
	}
	written := func(o *manifest.Object) string {
		return o.ID.Group() + "|" + o.ID.Kind + "|" + o.ID.Namespace + "|" + o.WrittenName()
	}
	byWritten := map[string][]int{}
	for i, o := range deleted {
		if o.SourceName != "" {
			byWritten[written(o)] = append(byWritten[written(o)], i)
		}
	}
	used := make([]bool, len(deleted))
	for _, i := range added {
		o := pairs[i].Head
		if o.SourceName == "" || !generatedKinds[o.ID.Kind] {
			continue
		}
		k := written(o)
		if list := byWritten[k]; len(list) > 0 {
			pairs[i].Base = deleted[list[0]]
			used[list[0]] = true
			byWritten[k] = list[1:]
		}
	}
	return unused(deleted, used)
}

// generatedKinds are the kinds kustomize generators make, whose names
// carry a content hash.
var generatedKinds = map[string]bool{"ConfigMap": true, "Secret": true}

func unused(objs []*manifest.Object, used []bool) []*manifest.Object {
	var out []*manifest.Object
	for i, o := range objs {
		if !used[i] {
			out = append(out, o)
		}
	}
	return out
}

// renameKinds are the kinds whose rename has a consequence worth a
// finding: a workload is recreated (its pods replaced at once, not
// rolled), a claim's data is lost.
var renameKinds = map[string]bool{
	"Deployment": true, "StatefulSet": true, "DaemonSet": true, "PersistentVolumeClaim": true,
}

// renameSimilarity is the share of an object's fields (other than its
// name and namespace) the deleted and the added object must have in
// common to be one object renamed.
const renameSimilarity = 0.8

// maxRenameCandidates bounds the quadratic search of one kind: past it,
// renames of that kind are not looked for.
const maxRenameCandidates = 200

// pairRenames pairs deleted and added objects of a rename kind that are
// near-identical, best match first. It returns the deleted objects left.
func pairRenames(pairs []Pair, added []int, deleted []*manifest.Object) []*manifest.Object {
	type cand struct {
		add, del int
		score    float64
	}
	var cands []cand
	leaves := map[*manifest.Object]map[string]bool{}
	leafSet := func(o *manifest.Object) map[string]bool {
		if s, ok := leaves[o]; ok {
			return s
		}
		s := renameLeaves(o)
		leaves[o] = s
		return s
	}
	perKind := map[string]int{}
	for _, i := range added {
		if o := pairs[i].Head; renameKinds[o.ID.Kind] && pairs[i].Base == nil {
			perKind[o.ID.Kind]++
		}
	}
	for _, i := range added {
		h := pairs[i].Head
		if pairs[i].Base != nil || !renameKinds[h.ID.Kind] || perKind[h.ID.Kind] > maxRenameCandidates {
			continue
		}
		for j, d := range deleted {
			if d.ID.Kind != h.ID.Kind || d.ID.Group() != h.ID.Group() {
				continue
			}
			if s := similarity(leafSet(d), leafSet(h)); s >= renameSimilarity {
				cands = append(cands, cand{i, j, s})
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	used := make([]bool, len(deleted))
	for _, c := range cands {
		if used[c.del] || pairs[c.add].Base != nil {
			continue
		}
		pairs[c.add].Base = deleted[c.del]
		pairs[c.add].RenamedFrom = true
		used[c.del] = true
	}
	return unused(deleted, used)
}

// renameLeaves flattens an object to path=value strings, leaving out what
// a rename changes by definition (name, namespace) and what tools write
// (status, generated metadata). Labels that carry the old name along
// (app: web) count as fields in common; a rename that renames them too
// reads as a deletion and an addition.
func renameLeaves(o *manifest.Object) map[string]bool {
	out := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, c := range t {
				walk(prefix+"."+k, c)
			}
		case []any:
			for i, c := range t {
				walk(fmt.Sprintf("%s[%d]", prefix, i), c)
			}
		default:
			out[prefix+"="+fmt.Sprint(t)] = true
		}
	}
	for k, v := range o.Content {
		switch k {
		case "status", "apiVersion", "kind":
			continue
		case "metadata":
			m, _ := v.(map[string]any)
			for mk, mv := range m {
				if mk == "labels" || mk == "annotations" {
					walk("metadata."+mk, mv)
				}
			}
			continue
		}
		walk(k, v)
	}
	return out
}

// similarity is the Jaccard index of two leaf sets.
func similarity(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0 // nothing to compare: never a rename
	}
	both := 0
	for k := range a {
		if b[k] {
			both++
		}
	}
	return float64(both) / float64(len(a)+len(b)-both)
}
