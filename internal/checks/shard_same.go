package checks

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/plumb-ci/plumb/internal/finding"
)

// An expect_same check over render targets (the default catalog's H10001
// and H10002) reports the targets whose value is outside the majority, with
// a message counting the targets that return each value. A shard sees only
// its own targets, so it cannot decide either. Instead it reports, for every
// target, the finding the target would get — complete but for the message,
// and already through the pipeline's traits and suppressions — together
// with the value as the message prints it. plumb merge collects the values
// of every shard, decides with the same code as an unsharded run
// (sameVerdicts) and reports the findings of the targets it picks.

// SameFinding is a finding left pending by a shard: the one a render
// target's expect_same value gets when merge finds it outside the majority.
type SameFinding struct {
	CheckID     string `json:"check_id"`
	Expectation string `json:"expectation"`
	Target      string `json:"target"`
	// Value is the target's value as the message prints it.
	Value string `json:"value"`
	// Finding is the finding without its message.
	Finding finding.Finding `json:"finding"`
	// ConfigSuppressions are the indexes of the .plumb.yaml suppressions
	// that select the finding: reported, it uses them.
	ConfigSuppressions []int `json:"config_suppressions,omitempty"`
}

// pendingSame is a SameFinding before the pipeline has suppressed it.
type pendingSame struct {
	checkID, expectation, target, value string
	finding                             finding.Finding
}

// samePending builds the pending finding of every target that returned a
// value for an expect_same expectation.
func samePending(c *Check, e *Expectation, cr *CheckResult, byTarget map[string]*sameTarget) []pendingSame {
	var out []pendingSame
	for a := range cr.AgentsCheckResults.All() {
		if a.IsError() || a.Status != StatusExecuted {
			continue
		}
		st := byTarget[a.AgentID]
		if st == nil {
			continue
		}
		for _, ev := range a.Evaluations {
			if ev.Name != e.Name || ev.Error != nil {
				continue
			}
			out = append(out, pendingSame{
				checkID: c.ID, expectation: e.Name, target: a.AgentID, value: short(ev.ReturnValue),
				finding: newFinding(st.rec, e, st.places[e.Name], c.Severity.Level(), e.Name, ""),
			})
		}
	}
	return out
}

// setPending keeps the pending findings, in one slice that the pipeline
// suppresses in place.
func (s *shardContext) setPending(p []pendingSame) {
	s.pending = p
	s.pendingFindings = make([]finding.Finding, len(p))
	for i := range p {
		s.pendingFindings[i] = p[i].finding
	}
	s.pendingUses = make([][]int, len(p))
}

// PendingFindings returns the findings a sharded run leaves to plumb merge
// (nil for an unsharded run). The shard does not report them; the pipeline
// gives them what it gives reported findings (traits, suppressions) by
// modifying the returned slice, then records the configured suppressions
// each one selects with SetPendingUses.
func (r *Result) PendingFindings() []finding.Finding {
	if r.shard == nil {
		return nil
	}
	return r.shard.pendingFindings
}

// SetPendingUses records, for each pending finding in order, the indexes
// of the configured suppressions that select it.
func (r *Result) SetPendingUses(uses [][]int) error {
	if r.shard == nil || len(uses) != len(r.shard.pendingFindings) {
		return fmt.Errorf("suppression uses for %d pending findings, but the checks left %d", len(uses), len(r.PendingFindings()))
	}
	copy(r.shard.pendingUses, uses)
	return nil
}

// sameFindings returns the pending findings in their JSON form.
func (s *shardContext) sameFindings() []SameFinding {
	out := make([]SameFinding, len(s.pending))
	for i, p := range s.pending {
		out[i] = SameFinding{CheckID: p.checkID, Expectation: p.expectation, Target: p.target, Value: p.value,
			Finding: s.pendingFindings[i], ConfigSuppressions: s.pendingUses[i]}
	}
	return out
}

// MergedFindings are the expect_same findings plumb merge decided over all
// shards, for the report's findings list.
type MergedFindings struct {
	// Head are the findings of the checked revision.
	Head []finding.Finding
	// Base are the base revision's, and PullRequest tells that the shards
	// ran in pull-request mode (the pipeline then classifies Head against
	// Base).
	Base        []finding.Finding
	PullRequest bool
	// ConfigSuppressions are the indexes of the .plumb.yaml suppressions
	// that the Head findings select.
	ConfigSuppressions []int
}

// MergedFindings returns the findings merging decided (the merged section
// also marshals to the unsharded run's checks section).
func (m *mergedResult) MergedFindings() MergedFindings { return m.decided }

// sameKey identifies an expectation of a check, and with a target, one
// target's value of it.
func sameKey(parts ...string) string {
	k := parts[0]
	for _, p := range parts[1:] {
		k += "\x00" + p
	}
	return k
}

// pendingIndex holds every shard's pending findings by check, expectation
// and target.
type pendingIndex map[string]*SameFinding

func (idx pendingIndex) add(shard int, list []SameFinding) error {
	for i := range list {
		p := &list[i]
		k := sameKey(p.CheckID, p.Expectation, p.Target)
		if _, dup := idx[k]; dup {
			return fmt.Errorf("shard %d: check %s: target %s has a pending expect_same finding in two shards", shard+1, p.CheckID, p.Target)
		}
		idx[k] = p
	}
	return nil
}

// decideSame decides one expect_same expectation over the values every
// shard compared (by target) within each application (apps, by target),
// and returns the findings of the targets outside the majority with the
// configured suppressions they select.
func decideSame(c *Check, e *Expectation, values, apps map[string]string, pending pendingIndex) ([]finding.Finding, []int, error) {
	targets := make([]string, 0, len(values))
	for t := range values {
		targets = append(targets, t)
	}
	// An unsharded run compares the targets in id order.
	slices.Sort(targets)
	list := make([]sameValue, len(targets))
	for i, t := range targets {
		p := pending[sameKey(c.ID, e.Name, t)]
		if p == nil {
			return nil, nil, fmt.Errorf("check %s: expect_same %s: target %s has a value but no pending finding in its shard report", c.ID, e.Name, t)
		}
		list[i] = sameValue{target: t, application: apps[t], key: values[t], show: func() string { return p.Value }}
	}
	var out []finding.Finding
	var uses []int
	for _, v := range sameVerdictsByApplication(e, list) {
		p := pending[sameKey(c.ID, e.Name, v.target)]
		f := p.Finding
		f.Message = v.message
		out = append(out, f)
		uses = append(uses, p.ConfigSuppressions...)
	}
	return out, uses, nil
}

// withoutFacts empties the facts of a per-target entry that a shard kept
// for merge to decide (dropPassingFacts): the entry is rewritten with its
// keys in the order AgentResult writes them.
func withoutFacts(raw json.RawMessage) (json.RawMessage, error) {
	var a struct {
		AgentID                json.RawMessage `json:"agent_id"`
		Status                 json.RawMessage `json:"status"`
		ExcludeExpression      json.RawMessage `json:"exclude_expression"`
		Facts                  json.RawMessage `json:"facts"`
		Values                 json.RawMessage `json:"values"`
		ExpectationEvaluations json.RawMessage `json:"expectation_evaluations"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, err
	}
	a.Facts = json.RawMessage("[]")
	return json.Marshal(a)
}
