package checks

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/plumb-ci/plumb/internal/config"
)

// A summary lists the targets that did not pass (failed, warned, erred,
// timed out) in their order, and counts those that passed and those that
// were excluded; it streams as it marshals.
func TestSummaryListsTheTargetsThatDidNotPass(t *testing.T) {
	msg := "replicas is 1"
	excl := "env.x == 1"
	agents := []*AgentResult{
		{AgentID: "a", Status: StatusExecuted, Evaluations: []Evaluation{{Name: "e", Type: Expect, ReturnValue: true}, {Name: "n", Type: ExpectEnum, ReturnValue: Passing}}},
		{AgentID: "b", Status: StatusExecuted, Facts: []FactResult{{CheckID: "A1", Name: "f", Value: int64(1)}},
			Evaluations: []Evaluation{{Name: "e", Type: Expect, ReturnValue: false, FailureMessage: &msg}, {Name: "n", Type: ExpectEnum, ReturnValue: Passing}}},
		{AgentID: "c", Status: StatusExcluded, ExcludeExpression: &excl},
		{AgentID: "d", Status: StatusExecuted, Evaluations: []Evaluation{{Name: "e", Type: Expect, ReturnValue: true}, {Name: "n", Type: ExpectEnum, ReturnValue: Warning}}},
		{AgentID: "e", ErrorType: ErrTimeout, Message: msgTimeout},
		{AgentID: "f", Status: StatusExecuted, Evaluations: []Evaluation{{Name: "e", Type: Expect, Error: &EvalError{Type: "expression_evaluation_error", Message: "no such key"}}}},
		{AgentID: "g", Status: StatusExecuted, Evaluations: []Evaluation{{Name: "e", Type: Expect, ReturnValue: true}, {Name: "n", Type: ExpectEnum, ReturnValue: Passing}}},
	}
	r := &Result{ExecutionID: "x", GroupID: "g", Result: Critical, Timeout: []string{"e"}, detail: config.DetailSummary, CheckResults: []CheckResult{
		{CheckID: "A1", Result: Critical, AgentsCheckResults: NewAgentList(agents...), ExpectationResults: []ExpectationResult{{Name: "e", Type: Expect, Result: false}}},
		{CheckID: "B1", Result: Passing, AgentsCheckResults: NewAgentList(agents[2]), ExpectationResults: []ExpectationResult{}},
	}}
	got, err := json.MarshalIndent(r, "  ", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var streamed bytes.Buffer
	if err := r.StreamJSON(&streamed, "  ", "  "); err != nil {
		t.Fatal(err)
	}
	if streamed.String() != string(got) {
		t.Errorf("streamed:\n%s\nmarshalled:\n%s", streamed.String(), got)
	}
	var s struct {
		Detail       string `json:"detail"`
		CheckResults []struct {
			AgentsCheckResults []struct {
				AgentID string            `json:"agent_id"`
				Facts   []json.RawMessage `json:"facts"`
			} `json:"agents_check_results"`
			AgentsPassed   int `json:"agents_passed"`
			AgentsExcluded int `json:"agents_excluded"`
		} `json:"check_results"`
		Timeout []string `json:"timeout"`
	}
	if err := json.Unmarshal(got, &s); err != nil {
		t.Fatal(err)
	}
	if s.Detail != config.DetailSummary || len(s.CheckResults) != 2 || !slices.Equal(s.Timeout, []string{"e"}) {
		t.Fatalf("summary: %s", got)
	}
	var listed []string
	for _, a := range s.CheckResults[0].AgentsCheckResults {
		listed = append(listed, a.AgentID)
	}
	if a1 := s.CheckResults[0]; !slices.Equal(listed, []string{"b", "d", "e", "f"}) || a1.AgentsPassed != 2 || a1.AgentsExcluded != 1 || len(a1.AgentsCheckResults[0].Facts) != 1 {
		t.Errorf("A1 lists %v (facts of b: %s), counts %d passed and %d excluded; want b d e f, 2 and 1", listed, a1.AgentsCheckResults[0].Facts, a1.AgentsPassed, a1.AgentsExcluded)
	}
	if b1 := s.CheckResults[1]; b1.AgentsCheckResults == nil || len(b1.AgentsCheckResults) != 0 || b1.AgentsPassed != 0 || b1.AgentsExcluded != 1 {
		t.Errorf("B1: %+v, want no target listed and one excluded", b1)
	}
	// The full Result is Wanda's, whatever the summary says.
	r.detail = config.DetailFull
	full, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(full, []byte(`"detail"`)) || bytes.Contains(full, []byte(`"agents_passed"`)) || bytes.Count(full, []byte(`"agent_id"`)) != len(agents)+1 {
		t.Errorf("full: %s", full)
	}
}

// A summary decides expect_same values by the check's result: a target
// whose application's environments agreed passed, one whose differed is
// listed.
func TestSummaryOfExpectSame(t *testing.T) {
	c := &Check{ID: "H1", Severity: SeverityWarning, TargetType: TargetGroup, Expectations: []*Expectation{{Name: "same", Type: ExpectSame}}}
	agent := func(id, app, value string) *AgentResult {
		return &AgentResult{AgentID: id, Status: StatusExecuted, application: app, Evaluations: []Evaluation{{Name: "same", Type: ExpectSame, ReturnValue: value}}}
	}
	agents := []*AgentResult{agent("api/dev", "api", "x"), agent("api/prod", "api", "y"), agent("web/dev", "web", "z"), agent("web/prod", "web", "z")}
	cr := aggregate(c, agents)
	cr.AgentsCheckResults = NewAgentList(agents...)
	s := cr.summarized()
	var listed []string
	for _, i := range s.AgentsCheckResults.at {
		listed = append(listed, agents[i].AgentID)
	}
	if !slices.Equal(listed, []string{"api/dev", "api/prod"}) || s.AgentsPassed != 2 || s.AgentsExcluded != 0 {
		t.Errorf("listed %v, %d passed, %d excluded; want api's two, 2, 0", listed, s.AgentsPassed, s.AgentsExcluded)
	}
}
