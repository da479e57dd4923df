package checks

import (
	"testing"

	"github.com/plumb-ci/plumb/reference"
)

// The Markdown sinks trust a check's help only when it is the very
// remediation plumb's embedded catalog holds (reference.CheckRemediation):
// the text the loader reads for every embedded check must be that text, or
// plumb's own help would be shown as untrusted.
func TestEmbeddedRemediationIsTheTrustedText(t *testing.T) {
	cat := Load(DefaultSource())
	if len(cat.Checks) == 0 {
		t.Fatal("no embedded checks")
	}
	for _, c := range cat.Checks {
		got, ok := reference.CheckRemediation(c.ID)
		if !ok || got != c.Remediation {
			t.Errorf("check %s: the trusted text %q differs from the loaded remediation %q", c.ID, got, c.Remediation)
		}
	}
	if _, ok := reference.CheckRemediation("NO-SUCH-CHECK"); ok {
		t.Error("an id plumb does not ship has a trusted text")
	}
}
