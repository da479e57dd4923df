package checks

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A sharded run (plumb check --shard i/n) evaluates the checks on its own
// render targets only, so its Result aggregates a part of each check's
// targets. plumb merge aggregates the check results again from every
// shard's per-target results, which needs a little more than the Result
// says: the checks' severities and expectations, every render target's name
// (the execution and group ids hash them all) and the exact values
// expect_same compared. A shard report therefore carries the checks section
// as a ShardSection; the merged report carries the plain Result, byte for
// byte the one the unsharded run writes.

// shardContext is what the analyzer knows of the run beyond the Result.
type shardContext struct {
	targets []string
	checks  []*Check
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
}

// ShardInfo describes a check for aggregation.
type ShardInfo struct {
	Severity     Severity          `json:"severity"`
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
}

// ShardSection returns the section a shard report writes: the Result with
// what merging needs. base is the base revision's checks section in
// pull-request mode (nil otherwise).
func (r *Result) ShardSection(base any) any {
	m := &ShardMerge{Targets: []string{}, CheckIDs: []string{}, Checks: map[string]ShardInfo{}, Same: r.sameValues()}
	if r.shard != nil {
		m.Targets = append(m.Targets, r.shard.targets...)
		for _, c := range r.shard.checks {
			m.CheckIDs = append(m.CheckIDs, c.ID)
			info := ShardInfo{Severity: c.Severity, Expectations: []ShardExpectInfo{}}
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
		if m.BaseSame == nil {
			m.BaseSame = []SameValues{}
		}
	}
	return &ShardSection{Result: r, Merge: m}
}

// sameValues collects the expect_same values of every executed target.
func (r *Result) sameValues() []SameValues {
	out := []SameValues{}
	for _, cr := range r.CheckResults {
		byName := map[string]map[string]string{}
		var names []string
		for _, a := range cr.AgentsCheckResults {
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
			}
		}
		slices.Sort(names)
		for _, n := range names {
			out = append(out, SameValues{CheckID: cr.CheckID, Expectation: n, Values: byName[n]})
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
}

type mergedCheckResult struct {
	CheckID            string              `json:"check_id"`
	Result             string              `json:"result"`
	Customized         bool                `json:"customized"`
	AgentsCheckResults []json.RawMessage   `json:"agents_check_results"`
	ExpectationResults []ExpectationResult `json:"expectation_results"`
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

// MergeShards implements the report's ShardMerger: it aggregates every
// check again over the targets of all shards, exactly as Run does, and
// fails when an expect_same expectation compared values that differ across
// shards (its findings name how many targets returned each value, which no
// shard knew).
func (ShardSection) MergeShards(parts []json.RawMessage) (any, error) {
	type checkParts struct {
		customized         bool
		executed, excluded []agentEntry
	}
	var (
		names    []string
		checkIDs []string
		infos    = map[string]ShardInfo{}
		byCheck  = map[string]*checkParts{}
		timeouts []string
		same     = map[string][]sameShard{}
		baseSame = map[string][]sameShard{}
	)
	for i, p := range parts {
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
			return nil, fmt.Errorf("shard %d: %w", i+1, err)
		}
		if s.Merge == nil {
			return nil, fmt.Errorf("shard %d: the checks section has no merge data (was it written by plumb check --shard?)", i+1)
		}
		if i == 0 {
			checkIDs = s.Merge.CheckIDs
		} else if !slices.Equal(checkIDs, s.Merge.CheckIDs) {
			return nil, fmt.Errorf("shard %d ran other checks than shard 1: merge the shards of one run", i+1)
		}
		names = append(names, s.Merge.Targets...)
		for id, info := range s.Merge.Checks {
			infos[id] = info
		}
		timeouts = append(timeouts, s.Result.Timeout...)
		for _, cr := range s.Result.CheckResults {
			cp := byCheck[cr.CheckID]
			if cp == nil {
				cp = &checkParts{}
				byCheck[cr.CheckID] = cp
			}
			cp.customized = cp.customized || cr.Customized
			for _, raw := range cr.AgentsCheckResults {
				a, err := readAgentResult(raw)
				if err != nil {
					return nil, fmt.Errorf("shard %d: check %s: %w", i+1, cr.CheckID, err)
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
			k := sv.CheckID + "\x00" + sv.Expectation
			same[k] = append(same[k], sameShard{i, sv})
		}
		for _, sv := range s.Merge.BaseSame {
			k := sv.CheckID + "\x00" + sv.Expectation
			baseSame[k] = append(baseSame[k], sameShard{i, sv})
		}
	}
	// The exact values expect_same compared (JSON no longer tells 1 from
	// 1.0), by check, expectation and target.
	sameKeys := map[string]string{}
	for k, list := range same {
		for _, s := range list {
			for agent, v := range s.values.Values {
				sameKeys[k+"\x00"+agent] = v
			}
		}
	}
	if err := sameAcrossShards(same, ""); err != nil {
		return nil, err
	}
	if err := sameAcrossShards(baseSame, "at the base revision "); err != nil {
		return nil, err
	}

	// Run's order: targets sorted by name for the ids, agents by target id,
	// checks by id with the fully excluded ones last.
	slices.Sort(names)
	out := &mergedResult{
		ExecutionID:  uuid5("plumb-checks-execution:" + strings.Join(names, "\n") + "\x00" + strings.Join(checkIDs, "\n")),
		GroupID:      uuid5("plumb-checks-group:" + strings.Join(names, "\n")),
		Result:       Passing,
		CheckResults: []mergedCheckResult{},
		Timeout:      []string{},
	}
	ids := make([]string, 0, len(byCheck))
	for id := range byCheck {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	byAgent := func(a, b agentEntry) int { return strings.Compare(a.agent.AgentID, b.agent.AgentID) }
	var fullyExcluded []mergedCheckResult
	for _, id := range ids {
		cp := byCheck[id]
		info, ok := infos[id]
		if !ok {
			return nil, fmt.Errorf("check %s has results but no description in the shard reports", id)
		}
		slices.SortFunc(cp.executed, byAgent)
		slices.SortFunc(cp.excluded, byAgent)
		mr := mergedCheckResult{CheckID: id, Customized: cp.customized, AgentsCheckResults: []json.RawMessage{}}
		for _, e := range cp.executed {
			mr.AgentsCheckResults = append(mr.AgentsCheckResults, e.raw)
		}
		for _, e := range cp.excluded {
			mr.AgentsCheckResults = append(mr.AgentsCheckResults, e.raw)
		}
		if len(cp.executed) == 0 {
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
					ev.key = sameKeys[id+"\x00"+ev.Name+"\x00"+e.agent.AgentID]
				}
			}
		}
		cr := aggregate(info.check(id), agents)
		mr.Result, mr.ExpectationResults = cr.Result, cr.ExpectationResults
		out.CheckResults = append(out.CheckResults, mr)
		out.Result = worst(out.Result, mr.Result)
	}
	out.CheckResults = append(out.CheckResults, fullyExcluded...)
	slices.Sort(timeouts)
	out.Timeout = append(out.Timeout, timeouts...)
	return out, nil
}

type sameShard struct {
	shard  int
	values SameValues
}

// sameAcrossShards fails when an expect_same expectation returned different
// values on targets of different shards. Values that differ within one
// shard are fine: that shard saw every target that had the expectation.
func sameAcrossShards(byExpectation map[string][]sameShard, where string) error {
	keys := make([]string, 0, len(byExpectation))
	for k := range byExpectation {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
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
			id, name, _ := strings.Cut(k, "\x00")
			return fmt.Errorf("check %s: expect_same %s returns different values %son render targets of different shards; "+
				"its findings compare all targets, so these shards cannot be merged (run this check unsharded, e.g. in the merge job, or shard so that the targets it compares share a shard)",
				id, name, where)
		}
	}
	return nil
}

// check rebuilds the part of a check aggregation reads.
func (s ShardInfo) check(id string) *Check {
	c := &Check{ID: id, Severity: s.Severity}
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
