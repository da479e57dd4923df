package finding

// Fix is a mechanical change that resolves a finding: what to change in
// the rendered object (Changes, as the rule declared it) and, once the fix
// stage found the source that supplied those fields, the exact edits to
// make there (Edits). Review comments show the edits as suggested changes,
// SARIF as the result's fixes, and `plumb fix` applies them.
type Fix struct {
	// Description says what the fix does, e.g. "set
	// securityContext.runAsNonRoot: true".
	Description string `json:"description"`
	// Changes are the field changes in the rendered object.
	Changes []Change `json:"changes"`
	// Edits make Changes in the source files: the file the finding points
	// at, the kustomize base or overlay patch that supplied the field, a
	// values file. Empty when no exact edit exists (the line is a template
	// expression, a transformer rewrote the value, the source is not YAML
	// plumb can edit).
	Edits []Edit `json:"edits,omitempty"`
	// Joint, when set, is one edit that fixes this finding together with
	// others whose edits touch the same lines (several settings added to
	// one container): made one after another, their own edits would clash.
	Joint *JointFix `json:"joint,omitempty"`
	// Span, when set, is the one edit widened to the finding's own lines
	// in the same file (lines between them unchanged), so a suggested
	// change can be anchored on the finding; unset when a credential's
	// line lies between.
	Span *Edit `json:"span,omitempty"`
	// NoEdit says why there are no Edits, when the fix stage tried.
	NoEdit string `json:"no_edit,omitempty"`
	// ObjectValue says the values set are this object's own (its limit,
	// the base revision's image), not the rule's: a source line that
	// other rendered objects take the same field from (a kustomize base
	// of several overlays) is edited only when each of them has the same
	// finding with the same fix, since the edit changes them all.
	ObjectValue bool `json:"-"`
}

// Change operations.
const (
	// ChangeSet gives the field at Path the value Value, creating the
	// mappings on the way.
	ChangeSet = "set"
	// ChangeRename renames the key at Path to To (a misspelt field).
	ChangeRename = "rename"
)

// Change is one change to the rendered object.
type Change struct {
	Op    string `json:"op"`
	Path  Path   `json:"path"`
	Value any    `json:"value,omitempty"`
	To    string `json:"to,omitempty"`
}

// Edit replaces whole lines of a repository file.
type Edit struct {
	File string `json:"file"`
	// StartLine and EndLine (1-based, inclusive) are the lines replaced.
	StartLine int `json:"start_line"`
	EndLine   int `json:"end_line"`
	// Old is the text of those lines as the edit was computed against,
	// New what replaces them; both end with a line break unless the
	// file's last line has none.
	Old string `json:"old"`
	New string `json:"new"`
}

// JointFix is the edit that fixes several findings at once.
type JointFix struct {
	// Findings are the fingerprints of the findings it fixes, the most
	// important first.
	Findings []string `json:"findings"`
	Edits    []Edit   `json:"edits"`
	// Span is Edits widened to the first finding's lines, as Fix.Span.
	Span *Edit `json:"span,omitempty"`
}

// Fixable reports whether the finding has source edits.
func (f *Finding) Fixable() bool { return f.Fix != nil && len(f.Fix.Edits) > 0 }
