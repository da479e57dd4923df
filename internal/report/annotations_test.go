package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/golden"
)

func annotate(t *testing.T, a Annotations, r *Report) []string {
	t.Helper()
	var buf bytes.Buffer
	if err := a.Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
}

func TestAnnotationsGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := (Annotations{}).Write(&buf, prReport()); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/report.annotations", buf.Bytes())
}

// manyFindings has errors, warnings and notes in number, some new.
func manyFindings(errors, warnings, notes int) *Report {
	r := &Report{}
	add := func(n int, level finding.Level) {
		for i := 0; i < n; i++ {
			f := finding.Finding{RuleID: "r/" + level.String(), Level: level, Message: fmt.Sprintf("%s %d", level, i),
				Location: finding.Location{File: fmt.Sprintf("%s%02d.yaml", level, i), Line: i + 1}}
			if i%5 == 4 {
				f.Status = finding.StatusNew
			} else {
				f.Status = finding.StatusUnchanged
			}
			f.SetFingerprint()
			r.Findings = append(r.Findings, f)
		}
	}
	add(errors, finding.Error)
	add(warnings, finding.Warning)
	add(notes, finding.Note)
	finding.Sort(r.Findings)
	return r
}

func TestAnnotationsRespectGitHubsCaps(t *testing.T) {
	lines := annotate(t, Annotations{}, manyFindings(25, 15, 12))
	count := map[string]int{}
	for _, l := range lines {
		count[l[:strings.IndexByte(l[2:], ' ')+2]]++
	}
	if count["::error"] != 10 || count["::warning"] != 10 || count["::notice"] != 10 {
		t.Errorf("counts %v: want 10 errors, 10 warnings, 9 notices and the counting notice", count)
	}
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "::notice title=plumb::23 more findings are not shown as annotations (15 errors, 5 warnings, 3 notes)") {
		t.Errorf("counting notice: %s", last)
	}
	// The new errors (every fifth) come first.
	for _, l := range lines[:5] {
		if !strings.Contains(l, "[new]") {
			t.Errorf("an unchanged finding before a new one: %s", l)
		}
	}
	// Nothing to leave out: no counting notice, all shown.
	lines = annotate(t, Annotations{}, manyFindings(3, 2, 10))
	if len(lines) != 15 || strings.Contains(strings.Join(lines, "\n"), "not shown") {
		t.Errorf("%d lines: %v", len(lines), lines)
	}
	// The per-job total caps everything.
	lines = annotate(t, Annotations{MaxErrors: 40, MaxWarnings: 40, MaxNotices: 40, MaxTotal: 12}, manyFindings(25, 15, 12))
	if len(lines) != 12 || !strings.Contains(lines[11], "41 more findings") {
		t.Errorf("%d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

// The caps count every annotation of the step: what the caller printed
// itself (an engine error, the notice that posting failed) leaves less room.
func TestAnnotationsLeaveRoomForTheCallersOwn(t *testing.T) {
	lines := annotate(t, Annotations{Printed: LevelCounts{Errors: 2, Notes: 1}}, manyFindings(25, 15, 12))
	count := map[string]int{}
	for _, l := range lines {
		count[l[:strings.IndexByte(l[2:], ' ')+2]]++
	}
	if count["::error"] != 8 || count["::warning"] != 10 || count["::notice"] != 9 {
		t.Errorf("counts %v: want 8 errors, 10 warnings, 8 notes and the counting notice", count)
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "::notice title=plumb::26 more findings are not shown as annotations (17 errors, 5 warnings, 4 notes)") {
		t.Errorf("counting notice: %s", last)
	}
	// Caps already used up: only the counting notice, if it can be seen.
	lines = annotate(t, Annotations{Printed: LevelCounts{Errors: 10, Warnings: 10, Notes: 10}}, manyFindings(1, 1, 1))
	if len(lines) != 1 || !strings.Contains(lines[0], "3 more findings") {
		t.Errorf("lines %v", lines)
	}
}

func TestAnnotationsSkipSuppressedAndFixed(t *testing.T) {
	lines := annotate(t, Annotations{}, prReport())
	joined := strings.Join(lines, "\n")
	if strings.Contains(joined, "readinessProbe") || strings.Contains(joined, "livenessProbe") {
		t.Errorf("fixed or suppressed findings annotated:\n%s", joined)
	}
	if len(lines) != 4 {
		t.Errorf("%d annotations, want 4", len(lines))
	}
}

// Finding text comes from the repository; none of it may become a
// workflow command.
func TestAnnotationsCannotBeInjected(t *testing.T) {
	r := &Report{}
	for i, msg := range []string{
		"evil\n::set-output name=approved::true",
		"evil%0A::add-mask::secret",
		"evil\r\n::error file=x::forged",
		"::stop-commands::x\nthen anything",
		"%25%0D%0A::warning::x",
	} {
		f := finding.Finding{RuleID: "r/x,y:z", Title: "t::,\nnew", Level: finding.Error, Message: msg,
			Location: finding.Location{File: fmt.Sprintf("dir/::warning file=a,b::%d\n.yaml", i), Line: 1}}
		f.SetFingerprint()
		r.Findings = append(r.Findings, f)
	}
	lines := annotate(t, Annotations{}, r)
	if len(lines) != 5 {
		t.Fatalf("%d lines from 5 findings:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "::error title=") {
			t.Errorf("not one error command: %q", l)
		}
		// Parse it as the runner does: "::" name, properties up to the
		// next "::", then the message. The properties must be exactly
		// ours; whatever the message holds is just text.
		rest := strings.TrimPrefix(l, "::error ")
		props, _, ok := strings.Cut(rest, "::")
		if !ok {
			t.Errorf("no message separator in %q", l)
			continue
		}
		var keys []string
		for _, kv := range strings.Split(props, ",") {
			k, _, _ := strings.Cut(kv, "=")
			keys = append(keys, k)
		}
		if strings.Join(keys, ",") != "title,file,line" {
			t.Errorf("properties %v in %q", keys, l)
		}
		if strings.ContainsAny(l, "\r\n") {
			t.Errorf("line break in %q", l)
		}
	}
	want := "::error title=t%3A%3A%2C%0Anew (r/x%2Cy%3Az),file=dir/%3A%3Awarning file=a%2Cb%3A%3A1%0A.yaml,line=1::evil%250A::add-mask::secret"
	if lines[1] != want {
		t.Errorf("got  %s\nwant %s", lines[1], want)
	}
}

func TestEscapingMatchesTheToolkit(t *testing.T) {
	// The values of @actions/core's toCommandValue/escapeData/escapeProperty.
	if got := EscapeCommandData("a%b\rc\nd:e,f"); got != "a%25b%0Dc%0Ad:e,f" {
		t.Error(got)
	}
	if got := EscapeCommandProperty("a%b\rc\nd:e,f"); got != "a%25b%0Dc%0Ad%3Ae%2Cf" {
		t.Error(got)
	}
	if got := WorkflowCommand("notice", nil, "x"); got != "::notice::x" {
		t.Error(got)
	}
}

func TestNewFormatsAreRegistered(t *testing.T) {
	outs, err := ParseOutputs([]string{"sarif=a.sarif", "markdown=a.md", "annotations"})
	if err != nil || len(outs) != 3 {
		t.Fatalf("%v %v", outs, err)
	}
	var buf bytes.Buffer
	if err := WriteAll([]Output{{Format: "annotations"}}, prReport(), &buf); err != nil || !strings.HasPrefix(buf.String(), "::error ") {
		t.Errorf("%q %v", buf.String(), err)
	}
}

// Findings that read alike — one per overlay of a shared base, at the same
// line — share one annotation (and one slot of GitHub's caps), which lists
// their objects, at most annotationObjects of them.
func TestAnnotationsShareTheSlotOfFindingsAlike(t *testing.T) {
	r := &Report{}
	for i := 0; i < 8; i++ {
		f := finding.Finding{RuleID: "check/B10001", Level: finding.Warning, Message: "container web has no livenessProbe",
			Location: finding.Location{File: "base/deployment.yaml", Line: 10, Column: 11},
			Object:   finding.ObjectID{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web", Target: fmt.Sprintf("overlays/env%d", i)}}
		f.SetFingerprint()
		r.Findings = append(r.Findings, f)
	}
	other := finding.Finding{RuleID: "check/B10001", Level: finding.Warning, Message: "container api has no livenessProbe",
		Location: finding.Location{File: "base/deployment.yaml", Line: 30, Column: 11}}
	other.SetFingerprint()
	r.Findings = append(r.Findings, other)
	finding.Sort(r.Findings)
	lines := annotate(t, Annotations{MaxWarnings: 1, MaxNotices: 1}, r)
	if len(lines) != 2 {
		t.Fatalf("%d lines, want the shared annotation and the counting notice:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	first := lines[0]
	if !strings.HasPrefix(first, "::warning title=check/B10001,file=base/deployment.yaml,line=10,col=11::container web has no livenessProbe") {
		t.Errorf("annotation: %s", first)
	}
	for i := 0; i < annotationObjects; i++ {
		if !strings.Contains(first, fmt.Sprintf("[overlays/env%d]", i)) {
			t.Errorf("the annotation does not list env%d: %s", i, first)
		}
	}
	if strings.Contains(first, "env5") || !strings.Contains(first, "%0Aand 3 more objects") {
		t.Errorf("the annotation should list %d objects and count the rest: %s", annotationObjects, first)
	}
	if !strings.Contains(lines[1], "1 more finding is not shown") {
		t.Errorf("counting notice: %s", lines[1])
	}
}
