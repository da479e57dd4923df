package pipeline

import (
	"testing"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
)

func TestExitCodeFor(t *testing.T) {
	warn := finding.Finding{Level: finding.Warning}
	errF := finding.Finding{Level: finding.Error}
	note := finding.Finding{Level: finding.Note}
	suppressed := finding.Finding{Level: finding.Error, Suppressed: &finding.Suppression{Reason: "accepted"}}
	fixed := finding.Finding{Level: finding.Error, Status: finding.StatusFixed}
	input := finding.Finding{Level: finding.Error, InputError: true}
	configErr := finding.Finding{Level: finding.Error, InputError: true, ConfigError: true}
	brokenBefore := finding.Finding{Level: finding.Error, InputError: true, Status: finding.StatusUnchanged}
	brokenNow := finding.Finding{Level: finding.Error, InputError: true, Status: finding.StatusNew}
	cases := []struct {
		name   string
		fs     []finding.Finding
		failOn config.FailOn
		want   int
	}{
		{"nothing", nil, config.FailOnError, ExitOK},
		{"warning below error", []finding.Finding{warn, note}, config.FailOnError, ExitOK},
		{"warning at warning", []finding.Finding{warn}, config.FailOnWarning, ExitFindings},
		{"error", []finding.Finding{note, errF}, config.FailOnError, ExitFindings},
		{"never", []finding.Finding{errF}, config.FailOnNever, ExitOK},
		{"suppressed", []finding.Finding{suppressed}, config.FailOnWarning, ExitOK},
		{"fixed", []finding.Finding{fixed}, config.FailOnError, ExitOK},
		// What the repository holds is a finding like any other.
		{"a file that does not parse", []finding.Finding{input}, config.FailOnError, ExitFindings},
		{"never, whatever the repository holds", []finding.Finding{errF, input}, config.FailOnNever, ExitOK},
		// What plumb was given to run with and cannot use is exit 2.
		{"configuration error beats never", []finding.Finding{errF, configErr}, config.FailOnNever, ExitError},
	}
	for _, c := range cases {
		if got := ExitCodeFor(c.fs, c.failOn); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
	// In pull-request mode a file broken before the change does not fail
	// it; one the change breaks does.
	if got := ExitCodeGated([]finding.Finding{brokenBefore}, config.FailOnError, config.GateNew); got != ExitOK {
		t.Errorf("broken before: exit %d", got)
	}
	if got := ExitCodeGated([]finding.Finding{brokenBefore, brokenNow}, config.FailOnError, config.GateNew); got != ExitFindings {
		t.Errorf("broken by the change: exit %d", got)
	}
	if got := ExitCodeGated([]finding.Finding{brokenBefore}, config.FailOnError, config.GateAll); got != ExitFindings {
		t.Errorf("gate all: exit %d", got)
	}
}
