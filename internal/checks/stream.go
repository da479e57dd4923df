package checks

import (
	"io"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/jsonstream"
)

// StreamJSON writes the Result as json.MarshalIndent does, one target's
// result at a time: on 10,000 objects the section is tens of megabytes,
// which MarshalIndent would hold twice (compact, then indented).
func (r *Result) StreamJSON(w io.Writer, prefix, indent string) error {
	if r.detail == config.DetailSummary {
		return r.summarized().StreamJSON(w, prefix, indent)
	}
	return jsonstream.WriteObject(w, prefix, indent, []jsonstream.Field{
		{Key: "execution_id", Value: r.ExecutionID},
		{Key: "group_id", Value: r.GroupID},
		{Key: "result", Value: r.Result},
		{Key: "check_results", Value: r.CheckResults, Stream: true},
		{Key: "timeout", Value: r.Timeout},
	})
}

// StreamJSON writes a check's result as json.MarshalIndent does, one
// target at a time.
func (cr *CheckResult) StreamJSON(w io.Writer, prefix, indent string) error {
	return jsonstream.WriteObject(w, prefix, indent, []jsonstream.Field{
		{Key: "check_id", Value: cr.CheckID},
		{Key: "result", Value: cr.Result},
		{Key: "customized", Value: cr.Customized},
		{Key: "agents_check_results", Value: cr.AgentsCheckResults, Stream: true},
		{Key: "expectation_results", Value: cr.ExpectationResults},
	})
}
