package rules

import (
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/render"
)

// Finish runs the main phase (Main) and returns the report section
// (Section), keeping only what is read after it: each subject's findings
// (Findings), traits (Traits) and, with --explain, what WriteExplanation
// prints. The rules' records of a subject (rules applied, their actions'
// arguments, patches, plugin data, the copies of the content main rules
// changed) are written as its report entry and dropped as soon as
// nothing can change them: on 10,000 objects, holding every subject's
// records and every entry at once was the largest part of the rules'
// memory. Call it once, after Preprocess, instead of Main and Section.
func (r *Run) Finish(targets []*render.Target, findings []finding.Finding) *Section {
	if r.finished != nil {
		return r.finished
	}
	counts := r.newMatchCounts()
	var written []writtenEntry
	var done func(i int)
	r.collectObjects(targets)
	if r.redactorSettled() {
		// Entries are redacted by the run's redactor: once it is built, an
		// object's entry is final when its main rules are over.
		r.redactor()
		written = make([]writtenEntry, len(r.objOrder))
		done = func(i int) {
			s := r.objOrder[i]
			e, listed := r.objectEntry(s, counts)
			written[i] = writtenEntry{Entry: e, made: true, listed: listed}
			s.release()
		}
	}
	r.runMain(targets, findings, done)
	// Whatever is released, the redactor must have seen it first.
	r.redactor()
	r.finished = r.assembleSection(written, counts, true)
	return r.finished
}

// redactorSettled reports whether the redactor the report's values are
// redacted with can be built before the main phase: it is built once,
// from the content of every document and object when first used, so it
// is final before main when it is already built or when no main rule
// changes content.
func (r *Run) redactorSettled() bool {
	r.redactMu.Lock()
	built := r.redact != nil
	r.redactMu.Unlock()
	if built {
		return true
	}
	for _, rule := range r.e.phases[PhaseMain] {
		for _, a := range rule.Actions {
			if a.spec.editsContent() {
				return false
			}
		}
	}
	return true
}

// release drops what only the phases and the report entry needed, once
// the subject's entry is written; the subject keeps its identity,
// location, findings, traits and explanation.
func (s *subject) release() {
	s.applied, s.patch, s.edits = nil, nil, nil
	s.pluginData = nil
	s.content, s.owned = nil, false
	s.contentChanged()
	s.rendered = nil
}
