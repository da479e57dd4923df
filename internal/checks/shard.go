package checks

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
)

// A sharded run (plumb check --shard i/n) evaluates the checks on its own
// render targets only, so its Result aggregates a part of each check's
// targets. plumb merge aggregates the check results again from every
// shard's per-target results, which needs a little more than the Result
// says: the checks' severities and expectations, every render target's name
// (the execution and group ids hash them all), the exact values expect_same
// compared, and the findings expect_same checks over render targets left
// pending (shard_same.go). A shard report therefore carries the checks
// section as a ShardSection; the merged report carries the plain Result,
// byte for byte the one the unsharded run writes.

// shardContext is what the analyzer knows of the run beyond the Result.
type shardContext struct {
	targets []string
	checks  []*Check
	// pending are the expect_same findings left to plumb merge (sharded
	// runs only), pendingFindings their findings as the pipeline
	// suppresses them, pendingUses the configured suppressions each one
	// selects.
	pending         []pendingSame
	pendingFindings []finding.Finding
	pendingUses     [][]int
}

// ShardSection is the checks section of a shard report.
type ShardSection struct {
	Result *Result     `json:"result"`
	Merge  *ShardMerge `json:"merge"`
}

// ShardMerge is what plumb merge needs besides the Result.
type ShardMerge struct {
	// Targets are the shard's render targets; CheckIDs the checks that ran,
	// in catalog order (the same in every shard).
	Targets  []string             `json:"targets"`
	CheckIDs []string             `json:"check_ids"`
	Checks   map[string]ShardInfo `json:"checks"`
	// Same are the values each target's expect_same expectations returned
	// (canonically encoded); BaseSame the base revision's in pull-request
	// mode.
	Same     []SameValues `json:"same"`
	BaseSame []SameValues `json:"base_same,omitempty"`
	// Pending are the findings of the expect_same checks over render
	// targets, one per target and expectation, which merge reports for the
	// targets outside the majority; BasePending the base revision's.
	Pending     []SameFinding `json:"pending"`
	BasePending []SameFinding `json:"base_pending,omitempty"`
	// Detail is the detail the merged section is written with
	// (config.DetailSummary or config.DetailFull); the shard's Result
	// lists every target whatever it says, for merge to aggregate.
	Detail string `json:"detail"`
}

// ShardInfo describes a check for aggregation.
type ShardInfo struct {
	Severity     Severity          `json:"severity"`
	TargetType   TargetType        `json:"target_type"`
	Expectations []ShardExpectInfo `json:"expectations"`
}

// ShardExpectInfo describes an expectation for aggregation.
type ShardExpectInfo struct {
	Name           string          `json:"name"`
	Type           ExpectationType `json:"type"`
	FailureMessage *string         `json:"failure_message,omitempty"`
}

// SameValues are the values one expect_same expectation returned, by
// target id.
type SameValues struct {
	CheckID     string            `json:"check_id"`
	Expectation string            `json:"expectation"`
	Values      map[string]string `json:"values"`
	// Applications are the applications of the targets that have one, for
	// a check that compares within applications (application.go).
	Applications map[string]string `json:"applications,omitempty"`
}

// ShardSection returns the section a shard report writes: the Result with
// what merging needs. base is the base revision's checks section in
// pull-request mode (nil otherwise).
func (r *Result) ShardSection(base any) any {
	m := &ShardMerge{Targets: []string{}, CheckIDs: []string{}, Checks: map[string]ShardInfo{}, Same: r.sameValues(), Pending: []SameFinding{}, Detail: config.DetailFull}
	if r.detail == config.DetailSummary {
		m.Detail = config.DetailSummary
	}
	if r.shard != nil {
		m.Targets = append(m.Targets, r.shard.targets...)
		m.Pending = r.shard.sameFindings()
		for _, c := range r.shard.checks {
			m.CheckIDs = append(m.CheckIDs, c.ID)
			info := ShardInfo{Severity: c.Severity, TargetType: c.TargetType, Expectations: []ShardExpectInfo{}}
			for _, e := range c.Expectations {
				ei := ShardExpectInfo{Name: e.Name, Type: e.Type}
				if e.FailureMessage != nil {
					raw := e.FailureMessage.Raw
					ei.FailureMessage = &raw
				}
				info.Expectations = append(info.Expectations, ei)
			}
			m.Checks[c.ID] = info
		}
	}
	if b, ok := base.(*Result); ok && b != nil {
		m.BaseSame = b.sameValues()
		m.BasePending = []SameFinding{}
		if b.shard != nil {
			m.BasePending = b.shard.sameFindings()
		}
	}
	full := *r
	full.detail = config.DetailFull
	return &ShardSection{Result: &full, Merge: m}
}

// sameValues collects the expect_same values of every executed target.
func (r *Result) sameValues() []SameValues {
	out := []SameValues{}
	for _, cr := range r.CheckResults {
		byName := map[string]map[string]string{}
		apps := map[string]map[string]string{}
		var names []string
		for a := range cr.AgentsCheckResults.All() {
			if a.IsError() || a.Status != StatusExecuted {
				continue
			}
			for i := range a.Evaluations {
				ev := &a.Evaluations[i]
				if ev.Type != ExpectSame || ev.Error != nil {
					continue
				}
				if byName[ev.Name] == nil {
					byName[ev.Name] = map[string]string{}
					names = append(names, ev.Name)
				}
				byName[ev.Name][a.AgentID] = ev.sameKey()
				if a.application != "" {
					if apps[ev.Name] == nil {
						apps[ev.Name] = map[string]string{}
					}
					apps[ev.Name][a.AgentID] = a.application
				}
			}
		}
		slices.Sort(names)
		for _, n := range names {
			out = append(out, SameValues{CheckID: cr.CheckID, Expectation: n, Values: byName[n], Applications: apps[n]})
		}
	}
	return out
}

// mergedResult is a Result whose per-target entries are kept as the shards
// wrote them.
type mergedResult struct {
	ExecutionID  string              `json:"execution_id"`
	GroupID      string              `json:"group_id"`
	Result       string              `json:"result"`
	CheckResults []mergedCheckResult `json:"check_results"`
	Timeout      []string            `json:"timeout"`

	decided MergedFindings
	// detail is the shards' ShardMerge.Detail: with config.DetailSummary
	// AgentsCheckResults lists the targets that did not pass, and the
	// counts say how many did and how many were excluded.
	detail string
}

type mergedCheckResult struct {
	CheckID            string              `json:"check_id"`
	Result             string              `json:"result"`
	Customized         bool                `json:"customized"`
	AgentsCheckResults []json.RawMessage   `json:"agents_check_results"`
	ExpectationResults []ExpectationResult `json:"expectation_results"`

	passed, excluded int
}

// MarshalJSON writes the merged section as the unsharded run writes its
// Result: whole, or as its summary (detail.go).
func (m *mergedResult) MarshalJSON() ([]byte, error) {
	if m.detail != config.DetailSummary {
		type plain mergedResult // without this method
		return json.Marshal((*plain)(m))
	}
	type check struct {
		CheckID            string              `json:"check_id"`
		Result             string              `json:"result"`
		Customized         bool                `json:"customized"`
		AgentsCheckResults []json.RawMessage   `json:"agents_check_results"`
		AgentsPassed       int                 `json:"agents_passed"`
		AgentsExcluded     int                 `json:"agents_excluded"`
		ExpectationResults []ExpectationResult `json:"expectation_results"`
	}
	checks := make([]check, len(m.CheckResults))
	for i, c := range m.CheckResults {
		checks[i] = check{c.CheckID, c.Result, c.Customized, c.AgentsCheckResults, c.passed, c.excluded, c.ExpectationResults}
	}
	return json.Marshal(struct {
		ExecutionID  string   `json:"execution_id"`
		GroupID      string   `json:"group_id"`
		Result       string   `json:"result"`
		Detail       string   `json:"detail"`
		CheckResults []check  `json:"check_results"`
		Timeout      []string `json:"timeout"`
	}{m.ExecutionID, m.GroupID, m.Result, m.detail, checks, m.Timeout})
}

// readAgent is the part of a per-target entry aggregation reads.
type readAgent struct {
	AgentID     string `json:"agent_id"`
	Status      string `json:"status"`
	Type        string `json:"type"`
	Evaluations []struct {
		Name        string          `json:"name"`
		Type        ExpectationType `json:"type"`
		ReturnValue any             `json:"return_value"`
		Message     *string         `json:"message"`
	} `json:"expectation_evaluations"`
}

type agentEntry struct {
	agent *AgentResult
	raw   json.RawMessage
}

// checkParts are one check's per-target entries from every shard.
type checkParts struct {
	customized         bool
	executed, excluded []agentEntry
}

// shardParts is everything read from the shards' checks sections.
type shardParts struct {
	names    []string
	checkIDs []string
	infos    map[string]ShardInfo
	byCheck  map[string]*checkParts
	timeouts []string
	// same and baseSame are the expect_same values by check and
	// expectation; pending and basePending the pending findings.
	same, baseSame       map[string][]sameShard
	pending, basePending pendingIndex
	pullRequest          bool
	// detail is the shards' ShardMerge.Detail ("" until shard 1 is read).
	detail string
}

// MergeShards implements the report's ShardMerger: it aggregates every
// check again over the targets of all shards, exactly as Run does, and
// decides the expect_same checks over render targets over the values of all
// shards (MergedFindings). It fails when an expect_same check over objects
// returned values that differ across shards (see objectSameAcrossShards).
func (ShardSection) MergeShards(parts []json.RawMessage) (any, error) {
	sp := &shardParts{infos: map[string]ShardInfo{}, byCheck: map[string]*checkParts{},
		same: map[string][]sameShard{}, baseSame: map[string][]sameShard{}, pending: pendingIndex{}, basePending: pendingIndex{}}
	for i, p := range parts {
		if err := sp.read(i, p); err != nil {
			return nil, err
		}
	}
	if err := sp.objectSameAcrossShards(sp.same, ""); err != nil {
		return nil, err
	}
	if err := sp.objectSameAcrossShards(sp.baseSame, "at the base revision "); err != nil {
		return nil, err
	}
	out, err := sp.aggregate()
	if err != nil {
		return nil, err
	}
	out.decided.PullRequest = sp.pullRequest
	if out.decided.Head, out.decided.ConfigSuppressions, err = sp.decide(sp.same, sp.pending); err != nil {
		return nil, err
	}
	if out.decided.Base, _, err = sp.decide(sp.baseSame, sp.basePending); err != nil {
		return nil, fmt.Errorf("at the base revision: %w", err)
	}
	return out, nil
}

// read takes in shard i's checks section.
func (sp *shardParts) read(i int, p json.RawMessage) error {
	var s struct {
		Result struct {
			CheckResults []struct {
				CheckID            string            `json:"check_id"`
				Customized         bool              `json:"customized"`
				AgentsCheckResults []json.RawMessage `json:"agents_check_results"`
			} `json:"check_results"`
			Timeout []string `json:"timeout"`
		} `json:"result"`
		Merge *ShardMerge `json:"merge"`
	}
	if err := json.Unmarshal(p, &s); err != nil {
		return fmt.Errorf("shard %d: %w", i+1, err)
	}
	if s.Merge == nil {
		return fmt.Errorf("shard %d: the checks section has no merge data (was it written by plumb check --shard?)", i+1)
	}
	if i == 0 {
		sp.checkIDs, sp.detail = s.Merge.CheckIDs, s.Merge.Detail
	} else if !slices.Equal(sp.checkIDs, s.Merge.CheckIDs) {
		return fmt.Errorf("shard %d ran other checks than shard 1: merge the shards of one run", i+1)
	} else if sp.detail != s.Merge.Detail {
		return fmt.Errorf("shard %d was run with --checks-detail %s, shard 1 with %s: merge the shards of one run", i+1, detailName(s.Merge.Detail), detailName(sp.detail))
	}
	sp.names = append(sp.names, s.Merge.Targets...)
	for id, info := range s.Merge.Checks {
		sp.infos[id] = info
	}
	sp.timeouts = append(sp.timeouts, s.Result.Timeout...)
	for _, cr := range s.Result.CheckResults {
		cp := sp.byCheck[cr.CheckID]
		if cp == nil {
			cp = &checkParts{}
			sp.byCheck[cr.CheckID] = cp
		}
		cp.customized = cp.customized || cr.Customized
		for _, raw := range cr.AgentsCheckResults {
			a, err := readAgentResult(raw)
			if err != nil {
				return fmt.Errorf("shard %d: check %s: %w", i+1, cr.CheckID, err)
			}
			e := agentEntry{agent: a, raw: raw}
			if a.Status == StatusExcluded {
				cp.excluded = append(cp.excluded, e)
			} else {
				cp.executed = append(cp.executed, e)
			}
		}
	}
	for _, sv := range s.Merge.Same {
		k := sameKey(sv.CheckID, sv.Expectation)
		sp.same[k] = append(sp.same[k], sameShard{i, sv})
	}
	for _, sv := range s.Merge.BaseSame {
		k := sameKey(sv.CheckID, sv.Expectation)
		sp.baseSame[k] = append(sp.baseSame[k], sameShard{i, sv})
	}
	sp.pullRequest = sp.pullRequest || s.Merge.BaseSame != nil
	if err := sp.pending.add(i, s.Merge.Pending); err != nil {
		return err
	}
	return sp.basePending.add(i, s.Merge.BasePending)
}

// detailName names a shard's detail in messages; a shard of a plumb that
// did not record it listed every target.
func detailName(d string) string {
	if d == "" {
		return config.DetailFull
	}
	return d
}

// aggregate rebuilds the Result in Run's order: targets sorted by name for
// the ids, agents by target id, checks by id with the fully excluded ones
// last.
func (sp *shardParts) aggregate() (*mergedResult, error) {
	// The exact values expect_same compared (JSON no longer tells 1 from
	// 1.0), and the applications they were compared within, by check,
	// expectation and target.
	sameKeys, sameApps := map[string]string{}, map[string]string{}
	for k, list := range sp.same {
		for _, s := range list {
			for agent, v := range s.values.Values {
				sameKeys[sameKey(k, agent)] = v
			}
			for agent, a := range s.values.Applications {
				sameApps[sameKey(k, agent)] = a
			}
		}
	}
	slices.Sort(sp.names)
	out := &mergedResult{
		ExecutionID:  uuid5("plumb-checks-execution:" + strings.Join(sp.names, "\n") + "\x00" + strings.Join(sp.checkIDs, "\n")),
		GroupID:      uuid5("plumb-checks-group:" + strings.Join(sp.names, "\n")),
		Result:       Passing,
		CheckResults: []mergedCheckResult{},
		Timeout:      []string{},
		detail:       sp.detail,
	}
	summary := sp.detail == config.DetailSummary
	ids := make([]string, 0, len(sp.byCheck))
	for id := range sp.byCheck {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	byAgent := func(a, b agentEntry) int { return strings.Compare(a.agent.AgentID, b.agent.AgentID) }
	var fullyExcluded []mergedCheckResult
	for _, id := range ids {
		cp := sp.byCheck[id]
		info, ok := sp.infos[id]
		if !ok {
			return nil, fmt.Errorf("check %s has results but no description in the shard reports", id)
		}
		slices.SortFunc(cp.executed, byAgent)
		slices.SortFunc(cp.excluded, byAgent)
		mr := mergedCheckResult{CheckID: id, Customized: cp.customized, AgentsCheckResults: []json.RawMessage{}}
		if len(cp.executed) == 0 {
			mr.addExcluded(cp.excluded, summary)
			mr.Result, mr.ExpectationResults = Passing, []ExpectationResult{}
			fullyExcluded = append(fullyExcluded, mr)
			continue
		}
		agents := make([]*AgentResult, len(cp.executed))
		for i, e := range cp.executed {
			agents[i] = e.agent
			for j := range e.agent.Evaluations {
				ev := &e.agent.Evaluations[j]
				if ev.Type == ExpectSame && ev.Error == nil {
					ev.key = sameKeys[sameKey(id, ev.Name, e.agent.AgentID)]
					// A target has one application (for all expect_same
					// expectations of the check alike).
					e.agent.application = sameApps[sameKey(id, ev.Name, e.agent.AgentID)]
				}
			}
		}
		cr := aggregate(info.check(id), agents)
		mr.Result, mr.ExpectationResults = cr.Result, cr.ExpectationResults
		for _, e := range cp.executed {
			raw := e.raw
			passed := agentPassed(e.agent, &cr)
			if passed && summary {
				mr.passed++
				continue
			}
			// The shards kept these facts: only now is it known whether
			// the expect_same values passed (dropPassingFacts).
			if passed && hasSame(cr.ExpectationResults) {
				var err error
				if raw, err = withoutFacts(raw); err != nil {
					return nil, fmt.Errorf("check %s: target %s: %w", id, e.agent.AgentID, err)
				}
			}
			mr.AgentsCheckResults = append(mr.AgentsCheckResults, raw)
		}
		mr.addExcluded(cp.excluded, summary)
		out.CheckResults = append(out.CheckResults, mr)
		out.Result = worst(out.Result, mr.Result)
	}
	out.CheckResults = append(out.CheckResults, fullyExcluded...)
	slices.Sort(sp.timeouts)
	out.Timeout = append(out.Timeout, sp.timeouts...)
	return out, nil
}

// addExcluded lists the excluded targets, or counts them in a summary.
func (mr *mergedCheckResult) addExcluded(excluded []agentEntry, summary bool) {
	if summary {
		mr.excluded += len(excluded)
		return
	}
	for _, e := range excluded {
		mr.AgentsCheckResults = append(mr.AgentsCheckResults, e.raw)
	}
}

// decide decides every expect_same expectation of the checks over render
// targets (at the head, or at the base revision) over the values of all
// shards.
func (sp *shardParts) decide(byExpectation map[string][]sameShard, pending pendingIndex) ([]finding.Finding, []int, error) {
	keys := make([]string, 0, len(byExpectation))
	for k := range byExpectation {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var out []finding.Finding
	var uses []int
	for _, k := range keys {
		id, name, _ := strings.Cut(k, "\x00")
		info, ok := sp.infos[id]
		if !ok {
			return nil, nil, fmt.Errorf("check %s has expect_same values but no description in the shard reports", id)
		}
		if info.TargetType != TargetGroup {
			continue
		}
		c := info.check(id)
		e := c.expectation(name)
		if e == nil || e.Type != ExpectSame {
			return nil, nil, fmt.Errorf("check %s has values of an expect_same expectation %s it does not declare", id, name)
		}
		values, apps := map[string]string{}, map[string]string{}
		for _, s := range byExpectation[k] {
			for t, v := range s.values.Values {
				values[t] = v
			}
			for t, a := range s.values.Applications {
				apps[t] = a
			}
		}
		fs, u, err := decideSame(c, e, values, apps, pending)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, fs...)
		uses = append(uses, u...)
	}
	return out, uses, nil
}

type sameShard struct {
	shard  int
	values SameValues
}

// objectSameAcrossShards fails when an expect_same expectation of a check
// over objects returned different values on targets of different shards.
// Its findings are on objects, where each shard's inspection rules
// (inventory[findings]) and plumb.dev/ignore annotations already saw them
// or their absence; merge cannot run those again. Values that differ
// within one shard are fine: that shard saw every target that had the
// expectation.
func (sp *shardParts) objectSameAcrossShards(byExpectation map[string][]sameShard, where string) error {
	keys := make([]string, 0, len(byExpectation))
	for k := range byExpectation {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		id, name, _ := strings.Cut(k, "\x00")
		if sp.infos[id].TargetType == TargetGroup {
			continue
		}
		values := map[string]bool{}
		shards := map[int]bool{}
		for _, s := range byExpectation[k] {
			if len(s.values.Values) > 0 {
				shards[s.shard] = true
			}
			for _, v := range s.values.Values {
				values[v] = true
			}
		}
		if len(values) > 1 && len(shards) > 1 {
			return fmt.Errorf("check %s: expect_same %s returns different values %son objects of render targets in different shards; "+
				"its findings are on objects, where each shard's inspection rules and plumb.dev/ignore annotations saw them, so these shards cannot be merged "+
				"(run this check unsharded, e.g. in the merge job, or shard so that the targets it compares share a shard)",
				id, name, where)
		}
	}
	return nil
}

// check rebuilds the part of a check aggregation reads.
func (s ShardInfo) check(id string) *Check {
	c := &Check{ID: id, Severity: s.Severity, TargetType: s.TargetType}
	for _, e := range s.Expectations {
		exp := &Expectation{Name: e.Name, Type: e.Type}
		if e.FailureMessage != nil {
			exp.FailureMessage = &Message{Raw: *e.FailureMessage}
		}
		c.Expectations = append(c.Expectations, exp)
	}
	return c
}

// readAgentResult reads what aggregation needs of a per-target entry.
func readAgentResult(raw json.RawMessage) (*AgentResult, error) {
	var r readAgent
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	if r.AgentID == "" {
		return nil, errors.New("a target result without agent_id")
	}
	a := &AgentResult{AgentID: r.AgentID, Status: r.Status, ErrorType: r.Type}
	for _, ev := range r.Evaluations {
		e := Evaluation{Name: ev.Name, Type: ev.Type, ReturnValue: ev.ReturnValue}
		if ev.Message != nil {
			e.Error = &EvalError{Type: string(ev.Type), Message: *ev.Message}
		}
		a.Evaluations = append(a.Evaluations, e)
	}
	return a, nil
}
