package rules

import (
	"fmt"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/render"
)

// Rule ids that are not one rule's.
const (
	// RuleInvalid reports a rules file or rule that does not validate.
	RuleInvalid = "rule/invalid"
	// RuleLint reports deprecated or ineffective rule syntax.
	RuleLint = "rule/lint"
	// RulePluginDataConflict reports objects of one render target that set
	// one plugin-data key to different values (the checks' env has one).
	RulePluginDataConflict = "rule/plugin-data-conflict"
)

// Main runs the main rules on the rendered objects, after the analyzers:
// inventory[findings] lists each object's findings so far.
func (r *Run) Main(targets []*render.Target, findings []finding.Finding) {
	r.runMain(targets, findings, nil)
}

// runMain runs the main phase; done(i), when given, is called on the
// worker that ran the phase on objOrder[i], once its rules are over.
func (r *Run) runMain(targets []*render.Target, findings []finding.Finding, done func(i int)) {
	r.ranPhases[PhaseMain] = true
	r.collectObjects(targets)
	rules := r.e.phases[PhaseMain]
	if len(rules) == 0 {
		return
	}
	// Each object's findings are found by index here and turned into
	// inventory[findings] only for a rule that reads them: on 10,000
	// objects the mappings of every finding took a few megabytes that
	// the usual rules never look at.
	byObject := map[string][]int32{}
	for i := range findings {
		if f := &findings[i]; !f.Object.IsZero() {
			k := f.Object.Key()
			byObject[k] = append(byObject[k], int32(i))
		}
	}
	r.mainFindings = findings
	r.mainFindingIndex = map[*subject][]int32{}
	for _, s := range r.objOrder {
		if idx := byObject[s.id.Key()]; idx != nil {
			r.mainFindingIndex[s] = idx
		}
	}
	r.parallel(len(r.objOrder), func(i int) {
		r.e.runPhase(r.objOrder[i], PhaseMain, rules)
		if done != nil {
			done(i)
		}
	})
	r.mainFindings, r.mainFindingIndex = nil, nil
}

// findingsOf is inventory[findings] of a subject in the main phase: the
// analyzers' findings on the object as it was when the phase began.
func (r *Run) findingsOf(s *subject) []any {
	idx := r.mainFindingIndex[s]
	out := make([]any, 0, len(idx))
	for _, i := range idx {
		f := &r.mainFindings[i]
		out = append(out, map[string]any{
			"rule_id": f.RuleID, "level": f.Level.String(), "message": f.Message, "path": f.Path.String(),
		})
	}
	return out
}

// Findings returns the findings the rules made in the given phases (all
// phases when none are given): fail, log, rule errors, unresolved fields and
// plugin-data conflicts (preprocess), with Secret values redacted and
// fingerprints set, in subject order.
func (r *Run) Findings(phases ...Phase) []finding.Finding {
	want := func(p Phase) bool { return len(phases) == 0 || slices.Contains(phases, p) }
	n := len(r.conflicts)
	for _, subjects := range [][]*subject{r.docOrder, r.objOrder} {
		for _, s := range subjects {
			n += len(s.findings)
		}
	}
	out := make([]finding.Finding, 0, n)
	add := func(f finding.Finding) {
		f.Message = r.redactText(f.Message)
		f.SetFingerprint()
		out = append(out, f)
	}
	for _, subjects := range [][]*subject{r.docOrder, r.objOrder} {
		for _, s := range subjects {
			for _, f := range s.findings {
				if want(f.phase) {
					add(f.Finding)
				}
			}
		}
	}
	if want(PhasePreprocess) {
		for _, c := range r.conflicts {
			add(c.finding(r))
		}
	}
	return out
}

// TakeFindings returns the findings of the given phases, as Findings
// does, and forgets them: a caller that keeps them need not have the run
// hold a second copy (Findings returns no more of them).
func (r *Run) TakeFindings(phases ...Phase) []finding.Finding {
	out := r.Findings(phases...)
	want := func(p Phase) bool { return len(phases) == 0 || slices.Contains(phases, p) }
	for _, subjects := range [][]*subject{r.docOrder, r.objOrder} {
		for _, s := range subjects {
			s.findings = slices.DeleteFunc(s.findings, func(f phaseFinding) bool { return want(f.phase) })
			if len(s.findings) == 0 {
				s.findings = nil
			}
		}
	}
	if want(PhasePreprocess) {
		r.conflicts = nil
	}
	return out
}

// Traits returns each object's traits by ObjectID.Key(), for tagging every
// finding on the object.
func (r *Run) Traits() map[string][]string {
	out := map[string][]string{}
	for _, s := range r.objOrder {
		if len(s.traits) > 0 {
			out[s.id.Key()] = s.traits
		}
	}
	return out
}

// TargetEnv is the plugin data of each render target's objects after the
// preprocess phase, merged: what the checks see as env (analyzer.Input's
// TargetEnv). Mappings merge, lists are joined without duplicates, and a
// key set to different values by two objects keeps the first value and is
// reported (rule/plugin-data-conflict).
func (r *Run) TargetEnv() map[string]map[string]any { return r.env }

type conflict struct {
	target string
	key    string
	first  *subject
	second *subject
	a, b   any
}

func (c conflict) finding(r *Run) finding.Finding {
	f := finding.Finding{
		Source: finding.SourceRule,
		RuleID: RulePluginDataConflict,
		Level:  finding.Warning,
		Title:  "Conflicting plugin data in one render target",
		Message: fmt.Sprintf("plugin_data.%s is %s here but %s on %s, in the same render target %s; the checks' env.%s keeps %s",
			c.key, r.redactText(quoteValue(c.b)), r.redactText(quoteValue(c.a)), c.first.id, c.target, c.key, r.redactText(quoteValue(c.a))),
		Help: "Inspection rules set plugin data per object; the checks see one environment per render target, so every " +
			"object of a target must agree on each key. Make the rules that set this key agree, or limit them with conditions or scope.",
		Object:   c.second.id,
		Location: c.second.locate(nil),
		Key:      c.key,
	}
	return f
}

// buildEnv merges plugin data per target.
func (r *Run) buildEnv() {
	r.env = map[string]map[string]any{}
	r.conflicts = nil
	merged := map[*targetFacts]map[string]any{}
	owners := map[*targetFacts]map[string]*subject{}
	for _, s := range r.objOrder {
		if len(s.pluginData) == 0 || s.target == nil {
			continue
		}
		tf := s.target
		if merged[tf] == nil {
			merged[tf] = map[string]any{}
			owners[tf] = map[string]*subject{}
		}
		r.mergePluginData(merged[tf], s.pluginData, "", s, owners[tf], tf.t.Name)
	}
	for tf, m := range merged {
		if env, ok := r.redactValue(m).(map[string]any); ok {
			r.env[tf.t.Name] = env
		}
	}
}

func (r *Run) mergePluginData(dst, src map[string]any, prefix string, s *subject, owners map[string]*subject, target string) {
	for _, k := range sortedKeys(src) {
		v, key := src[k], prefix+k
		old, ok := dst[k]
		if !ok {
			dst[k] = deepCopy(v)
			owners[key] = s
			continue
		}
		switch o := old.(type) {
		case map[string]any:
			if m, ok := v.(map[string]any); ok {
				r.mergePluginData(o, m, key+".", s, owners, target)
				continue
			}
		case []any:
			if l, ok := v.([]any); ok {
				for _, e := range l {
					if !containsEqual(o, e) {
						o = append(o, deepCopy(e))
					}
				}
				dst[k] = o
				continue
			}
		}
		if !equal(old, v) {
			r.conflicts = append(r.conflicts, conflict{target: target, key: key, first: ownerOf(owners, key), second: s, a: old, b: v})
		}
	}
}

// ownerOf finds the object that first set key, or the mapping holding it.
func ownerOf(owners map[string]*subject, key string) *subject {
	for {
		if s := owners[key]; s != nil {
			return s
		}
		i := strings.LastIndexByte(key, '.')
		if i < 0 {
			return nil
		}
		key = key[:i]
	}
}

// redactor returns the run's redactor, built from the Secrets (and, unless
// masking is always on, the masked keys) of every document and object seen.
func (r *Run) redactor() *redactor {
	r.redactMu.Lock()
	defer r.redactMu.Unlock()
	if r.redact == nil {
		var sources []redactSource
		for _, s := range r.docOrder {
			if m, ok := s.doc.Value.(map[string]any); ok {
				sources = append(sources, redactSource{content: m})
			}
		}
		var copied []string
		for _, s := range r.objOrder {
			if s.content != nil {
				// The paths the subject's rules read it through, when
				// they did.
				sources = append(sources, redactSource{content: s.content, paths: s.secretPaths, pathsKnown: s.secretPathsValid})
			}
			if s.obj != nil {
				// Copies of a Secret's values that render found.
				for _, p := range s.obj.SecretFields {
					if v, ok := lookupString(s.obj.Content, p); ok {
						copied = append(copied, v)
					}
				}
			}
		}
		r.redact = newRedactor(r.e.masker, sources, copied, r.e.opts.Mask != MaskAlways, r.e.opts.Workers)
	}
	return r.redact
}

func (r *Run) redactText(s string) string { return r.redactor().text(s) }
func (r *Run) redactValue(v any) any      { return r.redactor().value(v) }

// resetRedactor forgets the redactor after objects changed.
func (r *Run) resetRedactor() {
	r.redactMu.Lock()
	r.redact = nil
	r.redactMu.Unlock()
}
