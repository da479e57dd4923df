package suppress

import (
	"slices"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// Pending findings (a sharded run's, decided later by plumb merge) are
// suppressed, or told of an expired suppression, as Apply would; they use
// nothing yet, and Pending says which configured suppressions each one
// selects.
func TestPending(t *testing.T) {
	tgs, _ := targets(t)
	onTarget := func(target string) finding.Finding {
		f := finding.Finding{Source: finding.SourceCheck, RuleID: "check/H10001", Level: finding.Warning,
			Object: manifest.ObjectID{Target: target}, Location: manifest.Location{File: target + "/deploy.yaml", Line: 1, Column: 1}}
		f.SetFingerprint()
		return f
	}
	opts := Options{ConfigFile: ".plumb.yaml", Today: day("2025-06-01"), Config: []config.Suppression{
		{Rule: "check/H10001", Object: &config.ObjectSelector{Target: "overlays/qa"}, Reason: "qa differs", Line: 2, Column: 5},
		{Rule: "check/H1*", Until: "2025-01-01", Reason: "old", Line: 5, Column: 5},
		{Rule: "check/other", Reason: "unrelated", Line: 8, Column: 5},
	}}
	fs := []finding.Finding{onTarget("overlays/qa"), onTarget("overlays/dev")}
	uses := Pending(fs, tgs, opts)
	if !slices.EqualFunc(uses, [][]int{{0, 1}, {1}}, slices.Equal) {
		t.Errorf("uses %v", uses)
	}
	if s := fs[0].Suppressed; s == nil || s.Kind != KindConfig || s.Reason != "qa differs" || s.Source.Line != 2 {
		t.Errorf("qa: %+v", s)
	}
	if fs[1].Suppressed != nil || len(fs[1].Related) != 1 || fs[1].Related[0].Line != 5 ||
		!strings.Contains(fs[1].Related[0].Message, "a suppression of this finding expired after 2025-01-01") {
		t.Errorf("dev: %+v", fs[1])
	}

	// Apply on the same configuration sees no use from them.
	res := Apply(nil, tgs, opts)
	for i, e := range res.Section.Config {
		if e.Used {
			t.Errorf("entry %d used by pending findings", i+1)
		}
	}
	// Merge marks the entries of the findings it reports.
	if err := res.Section.MarkUsed(uses[1]); err != nil {
		t.Fatal(err)
	}
	var used []bool
	for _, e := range res.Section.Config {
		used = append(used, e.Used)
	}
	if !slices.Equal(used, []bool{false, true, false}) {
		t.Errorf("used %v", used)
	}
	if err := res.Section.MarkUsed([]int{3}); err == nil || err.Error() != "a finding selects configured suppression #4, but there are 3" {
		t.Errorf("out of range: %v", err)
	}
}
