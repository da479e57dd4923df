package compare

import (
	"context"
	"testing"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/internal/schema"
)

// TestRANInputsPassSchemaValidation: the conforming RAN DU input set (real
// OpenShift and Kubernetes objects) gives the schema analyzer nothing to
// report but the notes about operator kinds whose CRDs are not given.
func TestRANInputsPassSchemaValidation(t *testing.T) {
	inputs := ranInputs(t, loadRAN(t))
	out, err := (&schema.Analyzer{}).Analyze(context.Background(), &analyzer.Input{
		Targets: []*render.Target{{Name: "ran", Objects: inputs}}})
	if err != nil {
		t.Fatal(err)
	}
	notes := 0
	for _, f := range out.Findings {
		if f.RuleID == schema.RuleNoSchema {
			notes++
			continue
		}
		t.Errorf("%s %s: %s [%s]", f.Object, f.Path, f.Message, f.RuleID)
	}
	if notes == 0 {
		t.Error("no note about the operator kinds without a CRD")
	}
	t.Logf("%d objects, %d kinds without a CRD", len(inputs), notes)
}
