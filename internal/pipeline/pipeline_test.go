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
		{"input error beats never", []finding.Finding{errF, input}, config.FailOnNever, ExitError},
	}
	for _, c := range cases {
		if got := ExitCodeFor(c.fs, c.failOn); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
}
