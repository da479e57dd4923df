// Package render turns loaded documents into render targets: the sets of
// objects that are deployed together, each object carrying its provenance.
package render

import (
	"context"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// Kind says how a target's objects were produced.
type Kind string

const (
	// KindPlain is a directory of plain manifest files.
	KindPlain Kind = "plain"
)

// Target is one unit of deployment: a directory of plain files or a
// kustomization. Analyzers that reason across objects (a Service and the
// Deployment it selects) look only inside one target.
type Target struct {
	// Name is the repository-relative directory ("." for the root).
	Name    string
	Kind    Kind
	Objects []*manifest.Object
	// Templates are the OpenShift Template objects found in the target,
	// kept whole (annotations, parameters) for the engines that read them.
	Templates []*Template
}

// Template is an OpenShift Template and what processing it produced.
type Template struct {
	// Object is the Template itself.
	Object *manifest.Object
	// Objects are its objects[] after parameter processing; they are also
	// in the target's Objects.
	Objects []*manifest.Object
}

// Result is every target, sorted by name, and the problems met on the way.
type Result struct {
	Targets  []*Target
	Problems []manifest.Problem
}

// Objects returns the objects of all targets in target order.
func (r *Result) Objects() []*manifest.Object {
	var out []*manifest.Object
	for _, t := range r.Targets {
		out = append(out, t.Objects...)
	}
	return out
}

// Options configures rendering.
type Options struct {
	// Select, when set, renders only the targets whose name it accepts
	// (a --shard share); the others are skipped, problems included.
	Select func(target string) bool
}

// Render groups the loaded documents into targets. Plain documents form one
// target per directory; kustomize configuration is not an object and is left
// to the kustomize renderer.
func Render(_ context.Context, _ fs.FS, set *manifest.Set, opts Options) *Result {
	byDir := map[string]*Target{}
	res := &Result{}
	for _, doc := range set.Documents {
		if doc.IsKustomizeConfig() {
			continue
		}
		dir := path.Dir(doc.File)
		if opts.Select != nil && !opts.Select(dir) {
			continue
		}
		t := byDir[dir]
		if t == nil {
			t = &Target{Name: dir, Kind: KindPlain}
			byDir[dir] = t
			res.Targets = append(res.Targets, t)
		}
		objs, problems := doc.Objects(dir)
		t.Objects = append(t.Objects, objs...)
		res.Problems = append(res.Problems, problems...)
	}
	slices.SortFunc(res.Targets, func(a, b *Target) int { return strings.Compare(a.Name, b.Name) })
	return res
}
