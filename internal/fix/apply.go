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
	r := newResolver(opts.FS, opts.Limits)
	out := &Applied{Files: map[string]string{}, Old: map[string]string{}}
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
		if err != nil {
			out.Skipped = append(out.Skipped, f)
			continue
		}
		next := map[string]string{}
		ok := true
		for _, op := range ops {
			text, seen := next[op.file]
			if !seen {
				if text, seen = out.Files[op.file]; !seen {
					text = r.files[op.file].text
				}
			}
			if text, err = r.apply(text, op, true); err != nil {
				ok = false
				break
			}
			next[op.file] = text
		}
		if !ok {
			out.Skipped = append(out.Skipped, f)
			continue
		}
		for name, text := range next {
			if _, seen := out.Old[name]; !seen {
				out.Old[name] = r.files[name].text
			}
			out.Files[name] = text
		}
		out.Fixed = append(out.Fixed, f)
	}
	for name, text := range out.Files {
		if text == out.Old[name] {
			delete(out.Files, name)
			delete(out.Old, name)
		}
	}
	return out
}
