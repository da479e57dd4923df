// Package fix turns the mechanical fixes findings declare — set a field to
// a value, rename a misspelt key — into exact edits of the files a person
// edits: through each rendered object's provenance to the plain file, the
// kustomize base or overlay patch (or values file) that supplied the
// field, keeping the file's indentation, flow or block style and comments.
// An edit is made only when it is exact: the edited document must read
// back as before with exactly the change, nothing else in the file may
// move, and a value that is not written as itself (a template expression,
// a parameter, a value a transformer rewrote) is never edited. Review
// comments show the edits as suggested changes, SARIF as fixes, and
// `plumb fix` applies them.
package fix

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/internal/report"
)

// Options say where the sources are.
type Options struct {
	// FS is the repository the objects were rendered from.
	FS     fs.FS
	Limits manifest.Limits
	// Parsed are files the loader already parsed whole from FS with
	// Limits, without a problem, by name: their documents are taken as
	// they are instead of parsing the files again (a file of 20,000
	// objects would be held twice). Documents are only read.
	Parsed map[string][]*manifest.Document
}

// ParsedFiles are the files of a loaded set that parsed without a
// problem, with their documents, for Options.Parsed.
func ParsedFiles(set *manifest.Set) map[string][]*manifest.Document {
	if set == nil {
		return nil
	}
	bad := map[string]bool{}
	for _, p := range set.Problems {
		bad[p.Location.File] = true
	}
	out := map[string][]*manifest.Document{}
	for _, d := range set.Documents {
		if !bad[d.File] {
			out[d.File] = append(out[d.File], d)
		}
	}
	return out
}

// planned is a finding with its fix resolved to source operations, and
// the lines of its object that hold credentials (which no edit may carry).
type planned struct {
	f      *finding.Finding
	ops    []sourceOp
	secret lineSet
}

// lineSet is a set of lines by file.
type lineSet map[string]map[int]bool

// secretLines are the source lines of an object's credential values (a
// Secret's data, a credential environment variable's value): an edit
// replaces whole lines, and these must not be among them.
func secretLines(obj *manifest.Object) lineSet {
	out := lineSet{}
	for _, p := range manifest.SecretPaths(obj.Content) {
		loc, _ := obj.Locate(p)
		if loc.File == "" || loc.Line <= 0 {
			continue
		}
		if out[loc.File] == nil {
			out[loc.File] = map[int]bool{}
		}
		for l := loc.Line; l <= max(loc.Line, loc.EndLine); l++ {
			out[loc.File][l] = true
		}
	}
	return out
}

func (s lineSet) merge(t lineSet) lineSet {
	out := lineSet{}
	for _, x := range []lineSet{s, t} {
		for f, lines := range x {
			if out[f] == nil {
				out[f] = map[int]bool{}
			}
			for l := range lines {
				out[f][l] = true
			}
		}
	}
	return out
}

// Resolve computes, in place, the source edits of the fixes of the open
// findings: Fix.Edits for each finding alone, and Fix.Joint for findings
// whose edits touch the same lines (their edits made one after another).
// A fix without an exact edit keeps its Changes, gets no Edits and says
// why in NoEdit. Secrets are never edited: an edit carries source lines.
//
// The findings of each file are worked on apart, on both cores: every
// edit is checked by reading the edited document back, which is most of
// the work.
func Resolve(fs []finding.Finding, targets []*render.Target, opts Options) {
	objects := newObjectIndex(targets)
	r := newResolver(opts)
	byFile := map[string][]planned{}
	var shared *sharers
	for i := range fs {
		f := &fs[i]
		if f.Fix == nil || len(f.Fix.Changes) == 0 || !report.IsOpen(f) {
			continue
		}
		f.Fix.Edits, f.Fix.Joint, f.Fix.Span, f.Fix.NoEdit = nil, nil, nil, ""
		obj := objects.find(f)
		switch {
		case obj == nil:
			f.Fix.NoEdit = "the object is not one rendered object (two share its name, and neither is where the finding points)"
			continue
		case obj.ID.Kind == "Secret":
			f.Fix.NoEdit = "Secrets are never edited: an edit would carry their lines"
			continue
		}
		ops, err := r.ops(obj, f.Fix.Changes)
		if err != nil {
			f.Fix.NoEdit = reason(err)
			continue
		}
		if f.Fix.ObjectValue {
			if shared == nil {
				shared = newSharers(targets, fs)
			}
			if why := shared.conflict(f, obj); why != "" {
				f.Fix.NoEdit = why
				continue
			}
		}
		files := map[string]bool{}
		for _, op := range ops {
			files[op.file] = true
		}
		key := "" // the findings whose fix edits several files go together
		if len(files) == 1 {
			key = ops[0].file
		}
		byFile[key] = append(byFile[key], planned{f, ops, secretLines(obj)})
	}
	work := make(chan []planned)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(byFile)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for group := range work {
				r.fork().editsOf(group)
			}
		}()
	}
	for _, name := range slices.Sorted(maps.Keys(byFile)) {
		work <- byFile[name]
	}
	close(work)
	wg.Wait()
}

// editsOf computes the findings' own edits and their joint ones.
//
// Findings that add keys to the same mapping (the five security settings
// of one container) are the common case, and reading every edited
// document back is the cost: their keys are added in one go first,
// checked, and when that reads back right, each one's own edit is the
// same lines alone, made without reading back again (entries of one
// block or flow mapping stand on their own).
func (r *resolver) editsOf(group []planned) {
	batches := map[string][]planned{}
	var order []string
	for _, p := range group {
		if len(p.ops) != 1 || p.ops[0].rename || len(p.ops[0].keys) == 0 {
			continue
		}
		op := p.ops[0]
		k := fmt.Sprintf("%s\x00%s\x00%d\x00%s", p.f.Object.Target, op.file, op.rng, op.path)
		if batches[k] == nil {
			order = append(order, k)
		}
		batches[k] = append(batches[k], p)
	}
	done := map[*finding.Finding]bool{}
	known := map[string]*finding.JointFix{}
	for _, k := range order {
		members := batches[k]
		if len(members) < 2 {
			continue
		}
		slices.SortStableFunc(members, func(a, b planned) int { return report.CompareImportance(a.f, b.f) })
		var ops []sourceOp
		fps := make([]string, 0, len(members))
		for _, p := range members {
			ops = append(ops, p.ops...)
			fps = append(fps, p.f.Fingerprint)
		}
		secret := lineSet{}
		for _, p := range members {
			secret = secret.merge(p.secret)
		}
		edits, err := r.edits(batchInserts(ops), true, secret)
		if err != nil || len(edits) == 0 {
			continue
		}
		for _, p := range members {
			own, err := r.edits(p.ops, false, p.secret)
			if err != nil || len(own) == 0 {
				continue
			}
			p.f.Fix.Edits = own
			p.f.Fix.Span = r.span(own, p.f.Location, p.secret)
			done[p.f] = true
		}
		known[strings.Join(slices.Sorted(slices.Values(fps)), ",")] = &finding.JointFix{Findings: fps, Edits: edits,
			Span: r.span(edits, members[0].f.Location, secret)}
	}
	fixable := group[:0:0]
	for _, p := range group {
		if !done[p.f] {
			edits, err := r.edits(p.ops, true, p.secret)
			if err != nil || len(edits) == 0 {
				p.f.Fix.NoEdit = reason(err)
				continue
			}
			p.f.Fix.Edits = edits
			p.f.Fix.Span = r.span(edits, p.f.Location, p.secret)
		}
		fixable = append(fixable, p)
	}
	joint(fixable, r, known)
}

// reason says why a fix has no edit, in words for a person.
func reason(err error) string {
	var ne *errNotEditable
	switch {
	case err == nil, errors.Is(err, errNothingToDo):
		return "the object already has the values the fix sets"
	case errors.As(err, &ne):
		return ne.why
	}
	return err.Error()
}

// objectIndex finds rendered objects by id.
type objectIndex map[manifest.ObjectID][]*manifest.Object

func newObjectIndex(targets []*render.Target) objectIndex {
	out := objectIndex{}
	for _, t := range targets {
		for _, o := range t.Objects {
			out[o.ID] = append(out[o.ID], o)
		}
	}
	return out
}

// find returns the object a finding is about. Two objects may share an id
// (a duplicate in one target, itself a finding): then it is the one whose
// field is where the finding points.
func (x objectIndex) find(f *finding.Finding) *manifest.Object {
	objs := x[f.Object]
	if len(objs) == 1 {
		return objs[0]
	}
	var found *manifest.Object
	for _, o := range objs {
		if loc, _ := o.Locate(f.Path); loc == f.Location {
			if found != nil {
				return nil
			}
			found = o
		}
	}
	return found
}

// ops resolves the changes of one fix; none is made twice.
func (r *resolver) ops(obj *manifest.Object, changes []finding.Change) ([]sourceOp, error) {
	var ops []sourceOp
	for _, ch := range changes {
		op, err := r.resolve(obj, ch)
		if errors.Is(err, errNothingToDo) {
			continue
		}
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	if len(ops) == 0 {
		return nil, errNothingToDo
	}
	return ops, nil
}

// edits makes ops, in order, on the files as they are, and returns one
// edit for each file that changed; verify reads each edited document back
// (see applyOp). No edit may carry a line of secret.
func (r *resolver) edits(ops []sourceOp, verify bool, secret lineSet) ([]finding.Edit, error) {
	drafts, err := r.makeAll(ops, verify)
	if err != nil {
		return nil, err
	}
	var out []finding.Edit
	for _, name := range slices.Sorted(maps.Keys(drafts)) {
		e, changed, ok := drafts[name].edit(secret[name])
		if !ok {
			return nil, notEditable("the edit would carry the line of a credential's value")
		}
		if changed {
			out = append(out, e)
		}
	}
	return out, nil
}
