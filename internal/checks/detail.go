package checks

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/jsonstream"
)

// The JSON report's checks section is, by default, a summary: Wanda's
// Result with each check's targets that did not pass in full (failed,
// warned, erred, timed out) and the others counted. The complete listing
// is about 93,000 entries on the 10,000-object benchmark corpus, nearly
// all "executed, one expectation, true", which say nothing the check's
// result and a count do not; `--checks-detail full` (checks.detail in
// .plumb.yaml) writes it for tooling that wants every target. A summary
// says so in its "detail" key; a full Result has none, as Wanda's.
//
// The detail shapes the JSON only: the Result keeps every target (the
// findings, expect_same, the cache and a shard's section read them), and a
// shard report always lists every target, which plumb merge needs to
// aggregate again; the merged section is summarized as the shards' run
// asked (ShardMerge.Detail).

// summaryResult is a summarized Result as it is written.
type summaryResult struct {
	ExecutionID  string         `json:"execution_id"`
	GroupID      string         `json:"group_id"`
	Result       string         `json:"result"`
	Detail       string         `json:"detail"`
	CheckResults []summaryCheck `json:"check_results"`
	Timeout      []string       `json:"timeout"`
}

// summaryCheck is a summarized CheckResult as it is written: the targets
// that did not pass, and how many passed and how many were excluded.
type summaryCheck struct {
	CheckID            string              `json:"check_id"`
	Result             string              `json:"result"`
	Customized         bool                `json:"customized"`
	AgentsCheckResults agentSubset         `json:"agents_check_results"`
	AgentsPassed       int                 `json:"agents_passed"`
	AgentsExcluded     int                 `json:"agents_excluded"`
	ExpectationResults []ExpectationResult `json:"expectation_results"`
}

// summarized is the Result as a summary writes it.
func (r *Result) summarized() *summaryResult {
	out := &summaryResult{ExecutionID: r.ExecutionID, GroupID: r.GroupID, Result: r.Result, Detail: config.DetailSummary,
		CheckResults: make([]summaryCheck, len(r.CheckResults)), Timeout: r.Timeout}
	for i := range r.CheckResults {
		out.CheckResults[i] = r.CheckResults[i].summarized()
	}
	return out
}

// summarized sorts the check's targets into the listed ones (in order)
// and the counted ones, reading their verdicts only.
func (cr *CheckResult) summarized() summaryCheck {
	out := summaryCheck{CheckID: cr.CheckID, Result: cr.Result, Customized: cr.Customized,
		AgentsCheckResults: agentSubset{list: cr.AgentsCheckResults, at: []int{}}, ExpectationResults: cr.ExpectationResults}
	i := 0
	for a := range cr.AgentsCheckResults.Verdicts() {
		switch {
		case !a.IsError() && a.Status == StatusExcluded:
			out.AgentsExcluded++
		case agentPassed(a, cr):
			out.AgentsPassed++
		default:
			out.AgentsCheckResults.at = append(out.AgentsCheckResults.at, i)
		}
		i++
	}
	return out
}

// MarshalJSON writes the Result whole (Wanda's shape), or its summary when
// the run asked for one.
func (r *Result) MarshalJSON() ([]byte, error) {
	if r.detail == config.DetailSummary {
		return json.Marshal(r.summarized())
	}
	type plain Result // without this method
	return json.Marshal((*plain)(r))
}

// StreamJSON writes the summary as json.MarshalIndent does, one target's
// result at a time.
func (s *summaryResult) StreamJSON(w io.Writer, prefix, indent string) error {
	return jsonstream.WriteObject(w, prefix, indent, []jsonstream.Field{
		{Key: "execution_id", Value: s.ExecutionID},
		{Key: "group_id", Value: s.GroupID},
		{Key: "result", Value: s.Result},
		{Key: "detail", Value: s.Detail},
		{Key: "check_results", Value: s.CheckResults, Stream: true},
		{Key: "timeout", Value: s.Timeout},
	})
}

// StreamJSON writes a check's summary as json.MarshalIndent does, one
// listed target at a time.
func (s *summaryCheck) StreamJSON(w io.Writer, prefix, indent string) error {
	return jsonstream.WriteObject(w, prefix, indent, []jsonstream.Field{
		{Key: "check_id", Value: s.CheckID},
		{Key: "result", Value: s.Result},
		{Key: "customized", Value: s.Customized},
		{Key: "agents_check_results", Value: s.AgentsCheckResults, Stream: true},
		{Key: "agents_passed", Value: s.AgentsPassed},
		{Key: "agents_excluded", Value: s.AgentsExcluded},
		{Key: "expectation_results", Value: s.ExpectationResults},
	})
}

// agentSubset is the results of a list at the given indexes, in order.
type agentSubset struct {
	list AgentList
	at   []int
}

// Len implements jsonstream.List.
func (s agentSubset) Len() int { return len(s.at) }

// Each implements jsonstream.List: the results are decoded one at a time.
func (s agentSubset) Each(yield func(elem any) error) error {
	d := cache.NewDecoder(nil)
	for _, i := range s.at {
		if err := yield(s.list.agents[i].unpack(d)); err != nil {
			return err
		}
	}
	return nil
}

// MarshalJSON writes the results as a JSON array.
func (s agentSubset) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('[')
	err := s.Each(func(elem any) error {
		if buf.Len() > 1 {
			buf.WriteByte(',')
		}
		b, err := json.Marshal(elem)
		buf.Write(b)
		return err
	})
	buf.WriteByte(']')
	return buf.Bytes(), err
}
