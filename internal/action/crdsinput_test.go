package action

import (
	"slices"
	"testing"
)

// The crds input is --crds, one path per line: the workflow's CRDs, which
// win over the repository's.
func TestCRDsInputSetsTheFlag(t *testing.T) {
	env := map[string]string{"INPUT_CRDS": "vendor/crds\n# the operator's\n\n/opt/crds/widgets.yaml\n"}
	fl, err := bindCheckInputs(inputs{lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"vendor/crds", "/opt/crds/widgets.yaml"}; !slices.Equal(fl.CRDs, want) {
		t.Errorf("--crds %v, want %v", fl.CRDs, want)
	}
}
