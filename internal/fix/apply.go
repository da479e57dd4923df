package fix

import (
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/render"
)

// Applied is what Apply did.
type Applied struct {
	// Files are the new contents of the files that change, by
	// repository path; Old their contents before.
	Files, Old map[string]string
	// Fixed are the findings whose fix was made; Skipped those whose fix
	// could not be made exactly (or clashed with an earlier one).
	Fixed, Skipped []*finding.Finding
}

// Apply makes the fixes of findings, in the order given, on the files:
// the operations of each finding are resolved against the objects as
// rendered, then made one after another on the file texts, each checked;
// a finding whose operations cannot all be made is skipped whole.
func Apply(findings []*finding.Finding, targets []*render.Target, opts Options) *Applied {
	objects := newObjectIndex(targets)
	r := newResolver(opts)
	out := &Applied{Files: map[string]string{}, Old: map[string]string{}}
	drafts := map[string]*draft{}
	for _, f := range findings {
		if f.Fix == nil || len(f.Fix.Changes) == 0 {
			continue
		}
		obj := objects.find(f)
		if obj == nil || obj.ID.Kind == "Secret" {
			out.Skipped = append(out.Skipped, f)
			continue
		}
		ops, err := r.ops(obj, f.Fix.Changes)
		if err != nil || !r.applyAll(drafts, ops) {
			out.Skipped = append(out.Skipped, f)
			continue
		}
		out.Fixed = append(out.Fixed, f)
	}
	for name, d := range drafts {
		if len(d.chunks) > 0 {
			out.Files[name], out.Old[name] = d.text(), d.src.text
		}
	}
	return out
}

// applyAll makes ops on the drafts, each checked, or none of them.
func (r *resolver) applyAll(drafts map[string]*draft, ops []sourceOp) bool {
	var made []restore
	for _, op := range ops {
		d := drafts[op.file]
		if d == nil {
			d = newDraft(r.files[op.file])
			drafts[op.file] = d
		}
		err := errNothingToDo
		if chunk, ok := d.chunk(op.rng); ok {
			var next string
			if next, err = r.apply(chunk, op, true); err == nil {
				made = append(made, d.setUndoable(op.rng, next))
			}
		}
		if err != nil {
			for i := len(made) - 1; i >= 0; i-- {
				made[i].undo()
			}
			return false
		}
	}
	return true
}
