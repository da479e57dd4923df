package rules

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// subject is what rules inspect: a source document in the early phase, a
// rendered object in the later ones. Each subject is touched by one
// goroutine at a time.
type subject struct {
	run *Run
	doc *manifest.Document
	// obj is the rendered object (nil for a document); index its position
	// in its target.
	obj    *manifest.Object
	target *targetFacts
	facts  *sourceFacts
	// rendered are the facts of a rendered object (nil for a document).
	rendered *renderedFacts
	id       manifest.ObjectID
	scope    string
	// content is node; owned once a rule changed it (the subject then has
	// private copies of the mappings and lists on the changed paths).
	content map[string]any
	index   int32
	owned   bool
	secret  bool
	stopped bool
	// maskedValid: masked is the content as rules read it under
	// mask_secrets (maskedContent), valid until the content changes;
	// maskedCopy: it is a copy (the content holds secrets), dropped when a
	// phase ends rather than held through the analyzers.
	maskedValid bool
	maskedCopy  bool
	// pluginShared: pluginData is shared with other subjects
	// (sharePluginData), to be copied before a rule writes.
	pluginShared bool
	masked       map[string]any
	// secretPaths are manifest.SecretPaths of the content when
	// secretPathsValid: kept through the phases (the preprocess and main
	// phases and the redactor read them) until the content changes.
	secretPaths      []manifest.Path
	secretPathsValid bool
	// scratch is what a phase needs while it runs on the subject
	// (runPhase); nil between phases.
	scratch *phaseScratch

	// pluginData are the subject's plugin data (see pluginShared).
	pluginData map[string]any
	traits     []string // sorted
	stoppedBy  string
	// edits are the fields rules set and the plugin data sensitive rules
	// wrote (nil until a rule does).
	edits *subjectEdits

	// what the report shows: sealed is the JSON of the rules applied in
	// phases that are over (sealRules), applied the rules applied since
	sealed   [][]byte
	applied  []appliedRule
	patch    []PatchOp
	findings []phaseFinding
	explain  []string
	// phase is the phase running on the subject.
	phase Phase

	// fixedInventory replaces the inventory (the Ironic fixture in
	// tests).
	fixedInventory map[string]any
}

// subjectEdits are kept apart from the subject: most objects have none.
type subjectEdits struct {
	// setPaths are the fields rules set, with the action that set each.
	setPaths []setPath
	// hiddenData are plugin-data paths written by sensitive rules: the
	// report does not show their values.
	hiddenData []string
}

// edited returns the subject's edits, made on first use.
func (s *subject) edited() *subjectEdits {
	if s.edits == nil {
		s.edits = &subjectEdits{}
	}
	return s.edits
}

// setPaths are the fields rules set (nil when none).
func (s *subject) setPaths() []setPath {
	if s.edits == nil {
		return nil
	}
	return s.edits.setPaths
}

// hiddenData are the plugin-data paths sensitive rules wrote.
func (s *subject) hiddenData() []string {
	if s.edits == nil {
		return nil
	}
	return s.edits.hiddenData
}

// phaseScratch is what a subject needs only while a phase runs on it: kept
// in the subject, 10,000 objects held it from rendering to the end of the
// main rules.
type phaseScratch struct {
	// cow are the subject's private copies of what its rules changed.
	cow copyOnWrite
	// inventory is built when a rule reads it whole.
	inventory map[string]any
	// findingFacts are inventory[findings] in main, built from the
	// object's findings (Run.mainFindingIndex) when a rule first reads
	// them; haveFindings says they are.
	findingFacts []any
	haveFindings bool
	// maskedTrees are the mappings and lists of the content that rules
	// read masked in this phase (maskedTree), until the content changes.
	maskedTrees []maskedTree
}

// maskedTree is a mapping or list of the content (by address and length)
// read at a mask level, and what the masker made of it.
type maskedTree struct {
	addr  uintptr
	n     int
	level maskLevel
	out   any
}

// maskedTree is m.tree(v, level) of a mapping or list read from the
// subject's content: rules of one phase read the same containers in turn
// (the built-in rules' images, then a site's rules), and walking them once
// is enough. The memo lives in the phase's scratch and is forgotten when
// the content changes (contentChanged), so a write made in place to a
// mapping the subject owns is never read from it.
func (s *subject) maskedTree(m *masker, v any, level maskLevel) any {
	var addr uintptr
	var n int
	switch t := v.(type) {
	case map[string]any:
		addr, n = reflect.ValueOf(t).Pointer(), len(t)
	case []any:
		addr, n = uintptr(unsafe.Pointer(unsafe.SliceData(t))), len(t)
	}
	if n == 0 || s.scratch == nil {
		return m.tree(v, level)
	}
	for _, t := range s.scratch.maskedTrees {
		if t.addr == addr && t.n == n && t.level == level {
			return t.out
		}
	}
	out := m.tree(v, level)
	s.scratch.maskedTrees = append(s.scratch.maskedTrees, maskedTree{addr: addr, n: n, level: level, out: out})
	return out
}

// appliedRule is a rule whose conditions held on the subject.
type appliedRule struct {
	rule    *Rule
	phase   Phase
	actions []takenAction
}

// ActionTaken is one executed action (arguments as resolved, masked).
type ActionTaken struct {
	Op   string     `json:"op"`
	Args ActionArgs `json:"args"`
}

// takenAction is an executed action as recorded while rules run; the
// report's map of arguments is built only when the report is.
type takenAction struct {
	op     string
	params []param
	args   []any // nil for sensitive rules
}

// PatchOp is a change a rule made to the object, as an RFC 6902 operation.
type PatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
	Rule  string `json:"rule"`
	// hidden: made by a sensitive rule, so the value is not reported.
	hidden bool
}

// phaseFinding is a finding and the phase that made it.
type phaseFinding struct {
	finding.Finding
	phase Phase
}

func (s *subject) report(f finding.Finding) {
	s.findings = append(s.findings, phaseFinding{f, s.phase})
}

// setPath is a field a rule set, and where the action is written.
type setPath struct {
	path manifest.Path
	loc  manifest.Location
}

// disown forgets the subject's private copies: its content is now the
// content of an object others read, so later writes copy again.
func (s *subject) disown() {
	s.owned = false
	if s.scratch != nil {
		s.scratch.cow = copyOnWrite{}
	}
}

// maskedContent is the content with every value at its SecretPaths read
// as Masked, computed once per content version.
func (s *subject) maskedContent() map[string]any {
	if !s.maskedValid {
		paths := s.contentSecretPaths()
		if s.obj != nil && len(s.obj.SecretFields) > 0 {
			// Fields render found holding a copy of a Secret's value
			// (appended to a copy: the paths are kept).
			paths = append(slices.Clip(paths), s.obj.SecretFields...)
		}
		s.masked = manifest.MaskPaths(s.content, paths, Masked)
		s.maskedValid, s.maskedCopy = true, len(paths) > 0
	}
	return s.masked
}

// contentSecretPaths are manifest.SecretPaths of the content, computed
// once per content version.
func (s *subject) contentSecretPaths() []manifest.Path {
	if !s.secretPathsValid {
		s.secretPaths, s.secretPathsValid = manifest.SecretPaths(s.content), true
	}
	return s.secretPaths
}

// dropMasked forgets the masked content.
func (s *subject) dropMasked() {
	s.masked, s.maskedValid, s.maskedCopy = nil, false, false
}

// contentChanged forgets what was computed from the content: a rule wrote
// to it (perhaps in place, to a mapping the subject owns).
func (s *subject) contentChanged() {
	s.dropMasked()
	if s.scratch != nil {
		clear(s.scratch.maskedTrees)
		s.scratch.maskedTrees = s.scratch.maskedTrees[:0]
	}
	s.secretPaths, s.secretPathsValid = nil, false
}

// refreshIdentity re-reads what depends on the content after a write.
func (s *subject) refreshIdentity() {
	s.contentChanged()
	s.secret = manifest.IsSecret(s.content)
	s.id = manifest.IDOf(s.content, s.id.Target)
}

func (s *subject) matched(r *Rule, phase Phase) {
	s.applied = append(s.applied, appliedRule{rule: r, phase: phase})
}

func (s *subject) recordAction(a takenAction) {
	if len(s.applied) == 0 {
		return
	}
	last := &s.applied[len(s.applied)-1]
	last.actions = append(last.actions, a)
}

// locate finds a field: a field a rule set points at the action that set
// it; anything else at its source position.
func (s *subject) locate(p manifest.Path) manifest.Location {
	set := s.setPaths()
	for i := len(set) - 1; i >= 0; i-- {
		if sp := set[i]; len(p) > 0 && p.HasPrefix(sp.path) {
			return sp.loc
		}
	}
	switch {
	case s.obj != nil:
		loc, _ := s.obj.Locate(p)
		return loc
	case s.doc != nil:
		loc, _ := s.doc.Locate(p)
		return loc
	case s.facts != nil:
		return s.facts.loc
	}
	return manifest.Location{}
}

// newFinding builds a finding of rule r on the subject.
func (s *subject) newFinding(r *Rule, level finding.Level, msg string, p manifest.Path, key string) finding.Finding {
	f := finding.Finding{
		Source:   finding.SourceRule,
		RuleID:   r.ID(),
		Level:    level,
		Title:    r.Title(),
		Message:  msg,
		Help:     r.help,
		Object:   s.id,
		Path:     p,
		Location: s.locate(p),
		Key:      key,
	}
	if !r.BuiltIn {
		f.Related = []finding.Related{{Location: r.Source, Message: "inspection rule " + r.UUID}}
	}
	return f
}

// ruleError records a rule that could not be evaluated on this subject's
// data (an address that is not one, an attribute set inside a string, a
// list extended that is not one): an error finding of the rule on the
// object, like a fail action, not an input error — the rules file loaded,
// the object's content is what the rule cannot handle. As in Ironic the
// error stops the remaining rules for this subject; other subjects go on.
// Sensitive rules say only which rule failed and where (D11).
//
// A built-in rule that cannot be applied (an object whose containers are
// not a list) is skipped on that object without a finding, and the other
// rules go on: what is wrong with the object is the checks' to report, in
// their words.
func (s *subject) ruleError(r *Rule, stage string, i int, op string, at manifest.Location, err error) {
	if r.BuiltIn {
		return
	}
	var msg string
	if r.Sensitive {
		msg = fmt.Sprintf("inspection rule %s could not be applied to %s: %s error (details hidden: the rule is sensitive); the remaining rules were not run on it",
			r.UUID, describeSubject(s), stage)
	} else if r.BuiltIn {
		msg = fmt.Sprintf("inspection rule %s could not be applied to %s: %ss[%d] (%s): %v; the remaining rules were not run on it",
			r.UUID, describeSubject(s), stage, i, op, err)
	} else {
		// The finding sits at the object; the message says where the rule
		// is, for readers of plain text output.
		msg = fmt.Sprintf("inspection rule %s could not be applied to %s: %ss[%d] (%s) at %s: %v; the remaining rules were not run on it",
			r.UUID, describeSubject(s), stage, i, op, manifest.FormatLocation(at), err)
	}
	f := s.newFinding(r, finding.Error, msg, nil, "error")
	f.Title = "Inspection rule error"
	if !r.BuiltIn {
		f.Related = []finding.Related{{Location: at, Message: fmt.Sprintf("%ss[%d] of inspection rule %s", stage, i, r.UUID)}}
	}
	s.report(f)
	s.stop(r, "rule "+r.UUID+" failed")
}

func (s *subject) stop(r *Rule, why string) {
	s.stopped = true
	s.stoppedBy = why
}

func describeSubject(s *subject) string {
	if s.obj == nil && s.doc != nil {
		return fmt.Sprintf("document %d of %s", s.doc.Index+1, s.doc.File)
	}
	return s.id.String()
}

// ruleHelp builds a rule's help text (Rule.help keeps it).
func ruleHelp(r *Rule) string {
	var b strings.Builder
	b.WriteString("Reported by inspection rule `")
	b.WriteString(r.UUID)
	b.WriteString("`")
	if r.Description != "" {
		b.WriteString(": ")
		b.WriteString(r.Description)
	}
	b.WriteString(".")
	if r.BuiltIn {
		b.WriteString(" The rule is built into plumb.")
	} else {
		fmt.Fprintf(&b, " The rule is defined at `%s`.", manifest.FormatLocation(r.Source))
	}
	return b.String()
}

// addTrait and removeTrait keep traits a sorted set.
func (s *subject) addTrait(name string) {
	i, found := slices.BinarySearch(s.traits, name)
	if !found {
		s.traits = slices.Insert(s.traits, i, name)
	}
}

func (s *subject) removeTrait(name string) bool {
	i, found := slices.BinarySearch(s.traits, name)
	if found {
		s.traits = slices.Delete(s.traits, i, i+1)
	}
	return found
}

func (s *subject) explainf(indent int, format string, args ...any) {
	s.explain = append(s.explain, strings.Repeat("  ", indent)+fmt.Sprintf(format, args...))
}

// explainRule records a rule's outcome and, unless the rule is sensitive,
// the lines of its conditions and actions.
func (s *subject) explainRule(header, status string, hidden bool, lines []string) {
	s.explainf(0, "[%s] %s", status, header)
	if hidden {
		s.explainf(1, "(sensitive rule: conditions and actions are not shown)")
		return
	}
	for _, l := range lines {
		s.explainf(1, "%s", l)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
