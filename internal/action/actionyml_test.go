package action

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/config"
)

// action.yml and the code must agree: every input the code reads is
// declared and documented, every declared input is read, and the outputs
// are the ones the code sets.
func TestActionYAMLMatchesTheCode(t *testing.T) {
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Name    string
		Inputs  map[string]struct{ Description, Default string }
		Outputs map[string]struct{ Description string }
		Runs    struct {
			Using, Image string
			Args         []string
		}
	}
	if err := yaml.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	if spec.Runs.Using != "docker" || spec.Runs.Image != "Dockerfile" || !slices.Equal(spec.Runs.Args, []string{"action"}) {
		t.Errorf("runs: %+v", spec.Runs)
	}
	var code []string
	for _, ci := range checkInputs {
		code = append(code, ci.Input)
	}
	code = append(code, "token", "sarif-file", "report-file", "annotations", "review-comments", "summary-comment", "job-summary", "post-report", "post-event", "category")
	var declared []string
	for name, in := range spec.Inputs {
		declared = append(declared, name)
		if len(strings.TrimSpace(in.Description)) < 20 {
			t.Errorf("input %q is not documented", name)
		}
	}
	slices.Sort(code)
	slices.Sort(declared)
	if !slices.Equal(code, declared) {
		t.Errorf("inputs in action.yml %v, read by the code %v", declared, code)
	}
	if spec.Inputs["token"].Default != "${{ github.token }}" {
		t.Errorf("token default %q", spec.Inputs["token"].Default)
	}
	for name, def := range map[string]string{"sarif-file": defaultSARIFFile, "report-file": defaultReportFile, "fail-on": "error"} {
		if spec.Inputs[name].Default != def {
			t.Errorf("input %s defaults to %q in action.yml, %q in the code", name, spec.Inputs[name].Default, def)
		}
	}
	var outputs []string
	for name, o := range spec.Outputs {
		outputs = append(outputs, name)
		if o.Description == "" {
			t.Errorf("output %q is not documented", name)
		}
	}
	slices.Sort(outputs)
	if want := []string{"errors", "findings", "fixed", "new", "report-file", "sarif-file", "warnings"}; !slices.Equal(outputs, want) {
		t.Errorf("outputs %v, want %v", outputs, want)
	}
}

// Every input that mirrors `plumb check` names a flag check has: the action
// accepts what the CLI accepts, with the CLI's parsing.
func TestEveryCheckInputIsACheckFlag(t *testing.T) {
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	config.BindCheckFlags(fs)
	seen := map[string]bool{}
	for _, ci := range checkInputs {
		if seen[ci.Input] {
			t.Errorf("input %q is listed twice", ci.Input)
		}
		seen[ci.Input] = true
		if ci.Flag == "" {
			if ci.Input != "paths" {
				t.Errorf("input %q sets no flag (only paths is positional)", ci.Input)
			}
			continue
		}
		f := fs.Lookup(ci.Flag)
		if f == nil {
			t.Errorf("input %q maps to --%s, which plumb check does not have", ci.Input, ci.Flag)
			continue
		}
		// A list input sets the flag once per line: the flag must repeat.
		if ci.List && !strings.HasSuffix(f.Value.Type(), "Array") && !strings.HasSuffix(f.Value.Type(), "Slice") {
			t.Errorf("list input %q maps to --%s of type %s, which does not repeat", ci.Input, ci.Flag, f.Value.Type())
		}
	}
}
