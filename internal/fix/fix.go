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
	"io/fs"
	"slices"
	"strings"

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
}

// planned is a finding with its fix resolved to source operations.
type planned struct {
	f   *finding.Finding
	ops []sourceOp
}

// Resolve computes, in place, the source edits of the fixes of the open
// findings: Fix.Edits for each finding alone, and Fix.Joint for findings
// whose edits touch the same lines (their edits made one after another).
// A fix without an exact edit keeps its Changes and gets no Edits.
// Secrets are never edited: an edit carries source lines.
func Resolve(fs []finding.Finding, targets []*render.Target, opts Options) {
	objects := objectIndex(targets)
	r := newResolver(opts.FS, opts.Limits)
	var fixable []planned
	for i := range fs {
		f := &fs[i]
		if f.Fix == nil || len(f.Fix.Changes) == 0 || !report.IsOpen(f) {
			continue
		}
		f.Fix.Edits, f.Fix.Joint, f.Fix.NoEdit = nil, nil, ""
		obj := objects[f.Object]
		switch {
		case obj == nil:
			f.Fix.NoEdit = "the object is not one rendered object (a duplicate)"
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
		edits, err := r.edits(ops)
		if err != nil || len(edits) == 0 {
			f.Fix.NoEdit = reason(err)
			continue
		}
		f.Fix.Edits = edits
		fixable = append(fixable, planned{f, ops})
	}
	joint(fixable, r)
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

// objectIndex finds rendered objects by id; an id two objects share (a
// duplicate) finds none.
func objectIndex(targets []*render.Target) map[manifest.ObjectID]*manifest.Object {
	out := map[manifest.ObjectID]*manifest.Object{}
	dup := map[manifest.ObjectID]bool{}
	for _, t := range targets {
		for _, o := range t.Objects {
			if _, seen := out[o.ID]; seen {
				dup[o.ID] = true
			}
			out[o.ID] = o
		}
	}
	for id := range dup {
		out[id] = nil
	}
	return out
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
// edit for each file that changed.
func (r *resolver) edits(ops []sourceOp) ([]finding.Edit, error) {
	texts, err := r.makeAll(ops)
	if err != nil {
		return nil, err
	}
	var out []finding.Edit
	for _, name := range sortedFiles(texts) {
		if e, ok := lineEdit(name, r.files[name].text, texts[name]); ok {
			out = append(out, e)
		}
	}
	return out, nil
}

// makeAll makes ops one after another and returns the new text of each
// file they touch.
func (r *resolver) makeAll(ops []sourceOp) (map[string]string, error) {
	texts := map[string]string{}
	for _, op := range ops {
		text, ok := texts[op.file]
		if !ok {
			text = r.files[op.file].text
		}
		next, err := apply(text, op, r.limits)
		if err != nil {
			return nil, err
		}
		texts[op.file] = next
	}
	return texts, nil
}

func sortedFiles(texts map[string]string) []string {
	names := make([]string, 0, len(texts))
	for n := range texts {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// lineEdit is the edit that turns text a into b: the lines between their
// common beginning and end. A pure insertion also covers the line before
// it (the one after, at the top of the file): an edit replaces at least
// one line, as a suggested change does.
func lineEdit(file, a, b string) (finding.Edit, bool) {
	if a == b {
		return finding.Edit{}, false
	}
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	p := 0
	for p < len(la) && p < len(lb) && la[p] == lb[p] {
		p++
	}
	s := 0
	for s < len(la)-p && s < len(lb)-p && la[len(la)-1-s] == lb[len(lb)-1-s] {
		s++
	}
	start, end := p, len(la)-s // old lines [start, end)
	newEnd := len(lb) - s
	if start == end {
		if start > 0 {
			start--
		} else {
			end++
			newEnd++
		}
	}
	joinLines := func(lines []string, to, total int) string {
		text := strings.Join(lines, "\n")
		if to < total {
			text += "\n"
		}
		return text
	}
	return finding.Edit{
		File:      file,
		StartLine: start + 1,
		EndLine:   end,
		Old:       joinLines(la[start:end], end, len(la)),
		New:       joinLines(lb[start:newEnd], newEnd, len(lb)),
	}, true
}

// joint groups the findings of one render target whose edits touch the
// same lines of a file and gives each group one edit: all their operations made one after
// another, most important finding first.
func joint(fixable []planned, r *resolver) {
	if len(fixable) < 2 {
		return
	}
	parent := make([]int, len(fixable))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	type span struct {
		at    int
		start int
		end   int
	}
	// Within one render target: --shard splits by target, and every shard
	// must find the same groups. (Alike findings of several targets share
	// identical edits; the review suggests those once anyway.)
	byFile := map[[2]string][]span{}
	for i, p := range fixable {
		for _, e := range p.f.Fix.Edits {
			k := [2]string{p.f.Object.Target, e.File}
			byFile[k] = append(byFile[k], span{i, e.StartLine, e.EndLine})
		}
	}
	for _, spans := range byFile {
		slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
		for i := 1; i < len(spans); i++ {
			for j := i - 1; j >= 0; j-- {
				if spans[j].end >= spans[i].start {
					parent[find(spans[i].at)] = find(spans[j].at)
				}
			}
		}
	}
	groups := map[int][]*finding.Finding{}
	opsOf := map[*finding.Finding][]sourceOp{}
	for i, p := range fixable {
		groups[find(i)] = append(groups[find(i)], p.f)
		opsOf[p.f] = p.ops
	}
	for _, members := range groups {
		if len(members) < 2 {
			continue
		}
		slices.SortStableFunc(members, report.CompareImportance)
		// The least important first: each key added to a mapping goes
		// before its first one, so the most important ends up on top.
		var ops []sourceOp
		fps := make([]string, 0, len(members))
		for i := len(members) - 1; i >= 0; i-- {
			ops = append(ops, opsOf[members[i]]...)
		}
		for _, f := range members {
			fps = append(fps, f.Fingerprint)
		}
		edits, err := r.edits(ops)
		if err != nil || len(edits) == 0 {
			continue
		}
		j := &finding.JointFix{Findings: fps, Edits: edits}
		for _, f := range members {
			f.Fix.Joint = j
		}
	}
}
