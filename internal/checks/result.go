package checks

import (
	"bytes"
	"encoding/json"
)

// Result is Wanda's execution Result (research §3.5), with the same keys.
type Result struct {
	ExecutionID  string        `json:"execution_id"`
	GroupID      string        `json:"group_id"`
	Result       string        `json:"result"`
	CheckResults []CheckResult `json:"check_results"`
	// Timeout lists the ids of the targets that timed out.
	Timeout []string `json:"timeout"`

	// shard is what a sharded run writes besides the result so that plumb
	// merge can aggregate the shards again (shard.go); nil outside the
	// analyzer.
	shard *shardContext
	// detail is config.DetailSummary when the JSON shows the summary
	// (detail.go); any other value writes every target.
	detail string
}

// CheckResult is the outcome of one check over its targets.
type CheckResult struct {
	CheckID            string              `json:"check_id"`
	Result             string              `json:"result"`
	Customized         bool                `json:"customized"`
	AgentsCheckResults AgentList           `json:"agents_check_results"`
	ExpectationResults []ExpectationResult `json:"expectation_results"`

	// same is how each expect_same expectation came out per application
	// (application.go); nil when the check has none that every target
	// evaluated without error.
	same map[string]*sameOutcome
}

// Agent statuses and error types.
const (
	StatusExecuted = "executed"
	StatusExcluded = "excluded"

	ErrTimeout            = "timeout"
	ErrFactGathering      = "fact_gathering_error"
	msgTimeout            = "Agent timed out during the execution"
	msgFactGatheringError = "Fact gathering error occurred during the execution"
)

// AgentResult is one target's part of a check result: an AgentCheckResult
// (executed or excluded) or, when ErrorType is set, an AgentCheckError.
// Wanda keeps both in one array; readers tell them apart by their keys.
type AgentResult struct {
	AgentID string
	// AgentCheckResult
	Status            string
	ExcludeExpression *string
	Facts             []FactResult
	Values            []ResolvedValue
	Evaluations       []Evaluation
	// AgentCheckError
	ErrorType string
	Message   string

	// application is the target's application (env.application) for a
	// check that compares expect_same values within applications; the
	// Result does not show it (Wanda's shape), the shard merge data does.
	application string
}

// IsError reports whether the entry is an AgentCheckError.
func (a *AgentResult) IsError() bool { return a.ErrorType != "" }

// MarshalJSON writes the keys of whichever of the two shapes a is.
func (a AgentResult) MarshalJSON() ([]byte, error) {
	if a.ErrorType != "" {
		facts := a.Facts
		if a.ErrorType == ErrTimeout {
			facts = nil
		} else if facts == nil {
			facts = []FactResult{}
		}
		return json.Marshal(struct {
			AgentID string       `json:"agent_id"`
			Facts   []FactResult `json:"facts"`
			Type    string       `json:"type"`
			Message string       `json:"message"`
		}{a.AgentID, facts, a.ErrorType, a.Message})
	}
	facts, values, evals := a.Facts, a.Values, a.Evaluations
	if facts == nil {
		facts = []FactResult{}
	}
	if values == nil {
		values = []ResolvedValue{}
	}
	if evals == nil {
		evals = []Evaluation{}
	}
	return json.Marshal(struct {
		AgentID                string          `json:"agent_id"`
		Status                 string          `json:"status"`
		ExcludeExpression      *string         `json:"exclude_expression"`
		Facts                  []FactResult    `json:"facts"`
		Values                 []ResolvedValue `json:"values"`
		ExpectationEvaluations []Evaluation    `json:"expectation_evaluations"`
	}{a.AgentID, a.Status, a.ExcludeExpression, facts, values, evals})
}

// FactResult is a gathered fact (Wanda's Fact) or, with Error set, a
// FactError.
type FactResult struct {
	CheckID string
	Name    string
	Value   any
	Error   *FactError
}

// MarshalJSON writes {check_id, name, value} or {check_id, name, type,
// message}.
func (f FactResult) MarshalJSON() ([]byte, error) {
	if f.Error != nil {
		return json.Marshal(struct {
			CheckID string `json:"check_id"`
			Name    string `json:"name"`
			Type    string `json:"type"`
			Message string `json:"message"`
		}{f.CheckID, f.Name, f.Error.Type, f.Error.Message})
	}
	return json.Marshal(struct {
		CheckID string `json:"check_id"`
		Name    string `json:"name"`
		Value   any    `json:"value"`
	}{f.CheckID, f.Name, f.Value})
}

// Evaluation is one expectation on one target: an ExpectationEvaluation or,
// with Error set, an ExpectationEvaluationError.
type Evaluation struct {
	Name string
	Type ExpectationType
	// ReturnValue is the expression's value; for expect_enum the outcome
	// (passing, warning or critical).
	ReturnValue    any
	FailureMessage *string
	Error          *EvalError
	// key, when set, is the canonical encoding of ReturnValue (an
	// evaluation read back from a shard report, whose JSON no longer tells
	// 1 from 1.0).
	key string
}

// sameKey is the value expect_same compares.
func (e *Evaluation) sameKey() string {
	if e.key != "" {
		return e.key
	}
	return canonical(e.ReturnValue)
}

// MarshalJSON writes {name, type, return_value[, failure_message]} or
// {name, type: <error type>, message}. A nil failure_message is left out,
// as Wanda's v2 API does.
func (e Evaluation) MarshalJSON() ([]byte, error) {
	if e.Error != nil {
		return json.Marshal(struct {
			Name    string `json:"name"`
			Type    string `json:"type"`
			Message string `json:"message"`
		}{e.Name, e.Error.Type, e.Error.Message})
	}
	return json.Marshal(struct {
		Name           string          `json:"name"`
		Type           ExpectationType `json:"type"`
		ReturnValue    any             `json:"return_value"`
		FailureMessage *string         `json:"failure_message,omitempty"`
	}{e.Name, e.Type, e.ReturnValue, e.FailureMessage})
}

// ExpectationResult is one expectation aggregated over the targets: Result
// is a boolean for expect and expect_same, the worst outcome string for
// expect_enum (false when an error forced it).
type ExpectationResult struct {
	Name           string          `json:"name"`
	Type           ExpectationType `json:"type"`
	Result         any             `json:"result"`
	FailureMessage *string         `json:"failure_message,omitempty"`
}

// MarshalIndent renders a Result as indented JSON with a final newline.
func (r *Result) MarshalIndent() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Counts returns how many check results are critical, warning and passing
// (the v2 API's counts).
func (r *Result) Counts() (critical, warning, passing int) {
	for _, c := range r.CheckResults {
		switch c.Result {
		case Critical:
			critical++
		case Warning:
			warning++
		default:
			passing++
		}
	}
	return
}
