package checks

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The report streams the Result; it must read exactly as the Result
// marshalled whole (the JSON report, goldens and shard merges rely on it).
func TestResultStreamsAsItMarshals(t *testing.T) {
	msg := "container <web> has no limit"
	excl := "env.x == 1"
	agents := []*AgentResult{
		{AgentID: "a", Status: StatusExecuted, Facts: []FactResult{{CheckID: "A1", Name: "f", Value: map[string]any{"x": []any{1.5, "y", nil}}}},
			Values: []ResolvedValue{{Name: "v", Value: 3}}, Evaluations: []Evaluation{{Name: "e", Type: Expect, ReturnValue: false, FailureMessage: &msg}}},
		{AgentID: "b", Status: StatusExcluded, ExcludeExpression: &excl},
		{AgentID: "c", ErrorType: ErrFactGathering, Message: msgFactGatheringError, Facts: []FactResult{{CheckID: "A1", Name: "f", Error: &FactError{Type: "t", Message: "m"}}}},
		{AgentID: "d", ErrorType: ErrTimeout, Message: msgTimeout},
		// A value the codec does not write: kept as it is.
		{AgentID: "e", Status: StatusExecuted, Evaluations: []Evaluation{{Name: "e", Type: Expect, ReturnValue: struct{ X int }{7}}}},
	}
	expectations := []ExpectationResult{{Name: "e", Type: Expect, Result: false, FailureMessage: &msg}}
	r := &Result{ExecutionID: "e", GroupID: "g", Result: Critical, Timeout: []string{"t1"}, CheckResults: []CheckResult{
		{CheckID: "A1", Result: Critical, Customized: true, AgentsCheckResults: NewAgentList(agents...), ExpectationResults: expectations},
		{CheckID: "B1", Result: Passing, AgentsCheckResults: NewAgentList(), ExpectationResults: nil},
	}}
	// What the list writes is what the slice of results it was made from
	// writes.
	type plainCheck struct {
		CheckID            string              `json:"check_id"`
		Result             string              `json:"result"`
		Customized         bool                `json:"customized"`
		AgentsCheckResults []*AgentResult      `json:"agents_check_results"`
		ExpectationResults []ExpectationResult `json:"expectation_results"`
	}
	plain := struct {
		ExecutionID  string       `json:"execution_id"`
		GroupID      string       `json:"group_id"`
		Result       string       `json:"result"`
		CheckResults []plainCheck `json:"check_results"`
		Timeout      []string     `json:"timeout"`
	}{"e", "g", Critical, []plainCheck{
		{"A1", Critical, true, agents, expectations},
		{"B1", Passing, false, []*AgentResult{}, nil},
	}, []string{"t1"}}
	for _, prefix := range []string{"", "  "} {
		want, err := json.MarshalIndent(plain, prefix, "  ")
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.MarshalIndent(r, prefix, "  ")
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("prefix %q:\npacked:\n%s\nplain:\n%s", prefix, got, want)
		}
	}
	for _, prefix := range []string{"", "  "} {
		want, err := json.MarshalIndent(r, prefix, "  ")
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := r.StreamJSON(&got, prefix, "  "); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("prefix %q:\nstreamed:\n%s\nmarshalled:\n%s", prefix, got.String(), want)
		}
	}
}
