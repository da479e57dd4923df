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
	r := &Result{ExecutionID: "e", GroupID: "g", Result: Critical, Timeout: []string{"t1"}, CheckResults: []CheckResult{
		{CheckID: "A1", Result: Critical, Customized: true, AgentsCheckResults: []*AgentResult{
			{AgentID: "a", Status: StatusExecuted, Facts: []FactResult{{CheckID: "A1", Name: "f", Value: map[string]any{"x": []any{1.5, "y", nil}}}},
				Values: []ResolvedValue{{Name: "v", Value: 3}}, Evaluations: []Evaluation{{Name: "e", Type: Expect, ReturnValue: false, FailureMessage: &msg}}},
			{AgentID: "b", Status: StatusExcluded, ExcludeExpression: &excl},
			{AgentID: "c", ErrorType: ErrFactGathering, Message: msgFactGatheringError, Facts: []FactResult{{CheckID: "A1", Name: "f", Error: &FactError{Type: "t", Message: "m"}}}},
			{AgentID: "d", ErrorType: ErrTimeout, Message: msgTimeout},
		}, ExpectationResults: []ExpectationResult{{Name: "e", Type: Expect, Result: false, FailureMessage: &msg}}},
		{CheckID: "B1", Result: Passing, AgentsCheckResults: []*AgentResult{}, ExpectationResults: nil},
	}}
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
