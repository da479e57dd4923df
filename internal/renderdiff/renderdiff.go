// Package renderdiff computes what a pull request changes in what gets
// deployed: for each render target, the unified diff between the objects
// rendered at the base revision and at the head, matched by identity and
// printed as normalised YAML with Secret values masked. A one-line change
// to a kustomize base shows up in every overlay that renders it, exactly as
// the cluster would receive it.
package renderdiff

import (
	"reflect"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/change"
	"github.com/plumb-ci/plumb/internal/diff"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// SectionName is the key of the rendered diff in the JSON report.
const SectionName = "diff"

// Section is the rendered-manifest diff of a pull request.
type Section struct {
	// BaseRef is the revision given with --base-ref, BaseCommit its id.
	BaseRef    string `json:"base_ref"`
	BaseCommit string `json:"base_commit"`
	// Targets lists the render targets whose objects differ, by name.
	Targets []Target `json:"targets"`
}

// Target statuses.
const (
	TargetAdded   = "added"   // only at the head
	TargetRemoved = "removed" // only at the base
	TargetChanged = "changed"
)

// Target is the diff of one render target.
type Target struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	// Objects added, removed and changed.
	Added   int `json:"objects_added"`
	Removed int `json:"objects_removed"`
	Changed int `json:"objects_changed"`
	// LinesAdded and LinesRemoved count the diff's + and - lines.
	LinesAdded   int `json:"lines_added"`
	LinesRemoved int `json:"lines_removed"`
	// Diff is a unified diff, one file section per object.
	Diff string `json:"diff"`
}

// Compute diffs the targets of the base and the head revision. Only
// targets with a difference are listed.
func Compute(base, head []*render.Target) []Target {
	byName := func(ts []*render.Target) map[string]*render.Target {
		m := make(map[string]*render.Target, len(ts))
		for _, t := range ts {
			m[t.Name] = t
		}
		return m
	}
	b, h := byName(base), byName(head)
	var names []string
	for n := range b {
		names = append(names, n)
	}
	for n := range h {
		if _, ok := b[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	var out []Target
	for _, n := range names {
		t := diffTarget(n, objectsOf(b[n]), objectsOf(h[n]))
		switch {
		case b[n] == nil:
			t.Status = TargetAdded
		case h[n] == nil:
			t.Status = TargetRemoved
		default:
			t.Status = TargetChanged
		}
		if t.Diff != "" {
			out = append(out, t)
		}
	}
	return out
}

func objectsOf(t *render.Target) []*manifest.Object {
	if t == nil {
		return nil
	}
	return t.Objects
}

func diffTarget(name string, base, head []*manifest.Object) Target {
	pairs := change.ByIdentity(base, head)
	slices.SortStableFunc(pairs, func(a, b change.Pair) int { return a.ID().Compare(b.ID()) })

	t := Target{Name: name}
	var sb strings.Builder
	for _, p := range pairs {
		if p.Base != nil && p.Head != nil && equal(p.Base.Content, p.Head.Content) {
			continue // the common case, decided without printing anything
		}
		var a, b string
		from, to := "/dev/null", "/dev/null"
		if p.Base != nil {
			a = normalise(maskBase(p.Base, p.Head))
			from = "base/" + label(p.Base.ID)
		}
		if p.Head != nil {
			b = normalise(maskHead(p.Base, p.Head))
			to = "head/" + label(p.Head.ID)
		}
		lines := diff.Lines(a, b)
		u := diff.Format(from, to, lines, diff.DefaultContext)
		if u == "" {
			continue // equal once normalised (1 and 1.0, key order)
		}
		switch {
		case p.Base == nil:
			t.Added++
		case p.Head == nil:
			t.Removed++
		default:
			t.Changed++
		}
		ins, del := diff.Stats(lines)
		t.LinesAdded += ins
		t.LinesRemoved += del
		sb.WriteString(u)
	}
	t.Diff = sb.String()
	return t
}

// label names an object in diff headers the way kubectl names resources:
// Kind.group/namespace/name.
func label(id manifest.ObjectID) string {
	var b strings.Builder
	b.WriteString(id.Kind)
	if g := id.Group(); g != "" {
		b.WriteByte('.')
		b.WriteString(g)
	}
	if id.Namespace != "" {
		b.WriteByte('/')
		b.WriteString(id.Namespace)
	}
	b.WriteByte('/')
	b.WriteString(id.Name)
	return b.String()
}

// normalise prints an object as YAML with sorted keys and two-space
// indentation, so that only real changes differ.
func normalise(content map[string]any) string {
	var b strings.Builder
	writeYAML(&b, content)
	return b.String()
}

// equal compares two JSON-compatible trees.
func equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		if reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer() {
			return true // one parsed file shared by both revisions
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case string, int64, float64, bool, nil:
		return a == b
	default:
		return reflect.DeepEqual(a, b)
	}
}
