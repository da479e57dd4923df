package report

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/golden"
	"github.com/plumb-ci/plumb/internal/renderdiff"
)

func withRenderedDiff(r *Report, lines int) *Report {
	var d strings.Builder
	d.WriteString("--- base/Deployment.apps/shop/web\n+++ head/Deployment.apps/shop/web\n@@ -1 +1 @@\n")
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&d, "-  replicas: %d\n+  replicas: %d\n", i, i+1)
	}
	r.Sections = map[string]any{renderdiff.SectionName: &renderdiff.Section{
		BaseRef: "main", BaseCommit: "0123456789abcdef0123456789abcdef01234567",
		Targets: []renderdiff.Target{
			{Name: "overlays/prod", Status: renderdiff.TargetChanged, Changed: 1, LinesAdded: lines, LinesRemoved: lines, Diff: d.String()},
			{Name: "overlays/<staging>", Status: renderdiff.TargetAdded, Added: 1, LinesAdded: 1, Diff: "--- /dev/null\n+++ head/ConfigMap/c\n@@ -0,0 +1 @@\n+a: b\n"},
		},
	}}
	return r
}

func TestMarkdownShowsTheRenderedDiff(t *testing.T) {
	r := withRenderedDiff(prReport(), 3)
	md := Markdown{}.Render(r)
	for _, want := range []string{
		"#### Rendered changes (2 targets, against `0123456789ab`)",
		"<details><summary><code>overlays/prod</code> — 1 object changed (+3 −3)</summary>",
		"<details><summary><code>overlays/&lt;staging&gt;</code> — new target, 1 added (+1 −0)</summary>",
		"```diff\n--- base/Deployment.apps/shop/web\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q:\n%s", want, md)
		}
	}
	// The section read back from a JSON report renders the same.
	raw, _ := json.Marshal(r.Sections[renderdiff.SectionName])
	r.Sections[renderdiff.SectionName] = json.RawMessage(raw)
	if again := (Markdown{}).Render(r); again != md {
		t.Error("a read-back section renders differently")
	}
}

func TestMarkdownRenderedDiffStaysInTheBudget(t *testing.T) {
	r := withRenderedDiff(prReport(), 5000)
	md := Markdown{MaxBytes: 20000}.Render(r)
	if len(md) > 20000 {
		t.Fatalf("%d bytes over the budget", len(md))
	}
	if !strings.Contains(md, "more lines: the full diff is in the JSON report") {
		t.Errorf("the large diff is not cut:\n%s", md)
	}
	// Whatever the budget, the rendered diff is shown (perhaps cut) or
	// pointed at.
	pointed := false
	for budget := 2000; budget <= 20000; budget += 250 {
		md := Markdown{MaxBytes: budget}.Render(r)
		if len(md) > budget {
			t.Fatalf("budget %d: %d bytes", budget, len(md))
		}
		shown := strings.Contains(md, "#### Rendered changes")
		if !shown && !strings.Contains(md, "the rendered diff") {
			t.Fatalf("budget %d: the rendered diff is neither shown nor pointed at:\n%s", budget, md)
		}
		pointed = pointed || !shown
	}
	if !pointed {
		t.Error("no budget was small enough to leave the diff out")
	}
}

// In pull-request mode the summary leads with what the change introduced:
// the title counts new and fixed findings, new findings come first in the
// table whatever their level, and the fixed and suppressed ones are listed
// apart (the suppressed with their reasons), outside the table.
func TestMarkdownLeadsWithNewFindings(t *testing.T) {
	obj := finding.ObjectID{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web", Target: "apps/web"}
	mk := func(rule string, level finding.Level, status, msg string, line int) finding.Finding {
		f := finding.Finding{Source: finding.SourceCheck, RuleID: rule, Level: level, Status: status, Message: msg, Object: obj,
			Location: finding.Location{File: "apps/web/deploy.yaml", Line: line, Column: 1}}
		f.SetFingerprint()
		return f
	}
	suppressed := mk("check/S", finding.Error, finding.StatusNew, "suppressed one", 5)
	suppressed.Suppressed = &finding.Suppression{Kind: "annotation", Reason: "accepted by the team", Until: "2031-01-01"}
	r := &Report{Findings: []finding.Finding{
		mk("check/OLD", finding.Error, finding.StatusUnchanged, "old error", 1),
		mk("check/NEWW", finding.Warning, finding.StatusNew, "new warning", 2),
		mk("check/NEWN", finding.Note, finding.StatusNew, "new note", 3),
		mk("check/GONE", finding.Error, finding.StatusFixed, "fixed error", 4),
		suppressed,
	}}
	md := Markdown{}.Render(r)
	if !strings.HasPrefix(md, "### plumb: 1 new warning, 1 new note · 1 fixed · 1 finding already on the base, listed below\n") {
		t.Errorf("title:\n%s", md)
	}
	table := md[strings.Index(md, "#### Findings"):strings.Index(md, "#### Fixed by this change (1)")]
	order := []string{"new warning", "new note", "old error"}
	last := -1
	for _, msg := range order {
		i := strings.Index(table, msg)
		if i < 0 || i < last {
			t.Errorf("the findings table is not in the order %v:\n%s", order, table)
			break
		}
		last = i
	}
	for _, gone := range []string{"fixed error", "suppressed one"} {
		if strings.Contains(table, gone) {
			t.Errorf("%q is in the open findings table", gone)
		}
	}
	fixed := md[strings.Index(md, "#### Fixed by this change (1)"):]
	if !strings.Contains(fixed, "`check/GONE` | fixed error |") {
		t.Errorf("fixed section:\n%s", fixed)
	}
	sup := md[strings.Index(md, "#### Suppressed (1)"):]
	if !strings.Contains(sup, "`check/S` | accepted by the team (until 2031-01-01) |") {
		t.Errorf("suppressed section:\n%s", sup)
	}
	// Links: open findings to the head, fixed ones to the base commit
	// (their locations are the base's), or to nothing.
	md = Markdown{BlobURL: "https://github.com/o/r/blob/HEAD1/", BaseBlobURL: "https://github.com/o/r/blob/BASE1/"}.Render(r)
	for _, want := range []string{
		"[`apps/web/deploy.yaml:1:1`](https://github.com/o/r/blob/HEAD1/apps/web/deploy.yaml#L1) | `check/OLD`",
		"[`apps/web/deploy.yaml:4:1`](https://github.com/o/r/blob/BASE1/apps/web/deploy.yaml#L4) | `check/GONE`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	md = Markdown{BlobURL: "https://github.com/o/r/blob/HEAD1/"}.Render(r)
	if !strings.Contains(md, "| `apps/web/deploy.yaml:4:1` | `check/GONE`") {
		t.Errorf("a fixed finding without a base link:\n%s", md)
	}

	// Outside pull-request mode the title has no statuses.
	r.Findings = r.Findings[:1]
	r.Findings[0].Status = ""
	if md := (Markdown{}).Render(r); !strings.HasPrefix(md, "### plumb: 1 error\n") {
		t.Errorf("single revision title:\n%s", md)
	}
}

// The summary comment is about the change: its title counts what the pull
// request introduces and fixes, problems found in several targets once,
// and the findings already on the base are one phrase pointing at where
// they are listed, not rows.
func TestMarkdownCommentCountsTheChange(t *testing.T) {
	mk := func(rule string, level finding.Level, status, target string, line int) finding.Finding {
		f := finding.Finding{Source: finding.SourceCheck, RuleID: rule, Level: level, Status: status, Message: strings.ReplaceAll(rule, "_", " ") + " message",
			Object:   finding.ObjectID{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web", Target: target},
			Location: finding.Location{File: "base/deploy.yaml", Line: line, Column: 1}}
		f.SetFingerprint()
		return f
	}
	r := withRenderedDiff(&Report{}, 1)
	for _, target := range []string{"overlays/dev", "overlays/staging", "overlays/prod"} {
		r.Findings = append(r.Findings,
			mk("check/NEW_ERR", finding.Error, finding.StatusNew, target, 3),
			mk("check/OLD", finding.Warning, finding.StatusUnchanged, target, 4))
	}
	r.Findings = append(r.Findings,
		mk("check/NEW_WARN", finding.Warning, finding.StatusNew, "overlays/prod", 5),
		mk("check/OLD2", finding.Warning, finding.StatusUnchanged, "overlays/prod", 6),
		mk("check/GONE", finding.Error, finding.StatusFixed, "overlays/prod", 7))
	md := Markdown{Backlog: "in the [job summary](https://example.test/run)"}.Render(r)
	want := "### plumb: 1 new error, 1 new warning · 1 fixed · 2 findings already on `main`, in the [job summary](https://example.test/run)\n"
	if !strings.HasPrefix(md, want) {
		t.Errorf("title: want %q in:\n%s", want, md)
	}
	for _, want := range []string{
		"| engine | new errors | new warnings | new notes | fixed | already on `main` |\n| --- | ---: | ---: | ---: | ---: | ---: |\n| `check` | 1 | 1 | 0 | 1 | 2 |\n\n",
		"#### New findings\n",
		"Deployment shop/web in 3 targets \\[overlays/dev, overlays/prod, overlays/staging\\]",
		"#### Fixed by this change (1)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("comment lacks %q:\n%s", want, md)
		}
	}
	if n := strings.Count(md, "check/NEW ERR message"); n != 1 {
		t.Errorf("the new error in 3 targets is in %d rows, want 1", n)
	}
	for _, old := range []string{"check/OLD message", "check/OLD2 message"} {
		if strings.Contains(md, old) {
			t.Errorf("a finding already on the base is a row of the comment: %q", old)
		}
	}
	// The job summary (no Backlog) lists them after the new ones.
	md = Markdown{}.Render(r)
	if !strings.HasPrefix(md, "### plumb: 1 new error, 1 new warning · 1 fixed · 2 findings already on `main`, listed below\n") ||
		!strings.Contains(md, "#### Findings\n") || !strings.Contains(md, "check/OLD2 message") {
		t.Errorf("job summary:\n%s", md)
	}
	if got := Count(r); got != (Tally{Open: LevelCounts{Errors: 1, Warnings: 3}, New: LevelCounts{Errors: 1, Warnings: 1}, Fixed: 1, Base: 2, PR: true}) {
		t.Errorf("Count = %+v", got)
	}
}

// A pull request that introduces and fixes nothing gets a short comment:
// the title, the facts and what it renders differently; no table.
func TestMarkdownHarmlessChangeIsShort(t *testing.T) {
	r := withRenderedDiff(&Report{}, 1)
	for i := range 50 {
		f := finding.Finding{Source: finding.SourceCheck, RuleID: "check/OLD", Level: finding.Warning, Status: finding.StatusUnchanged,
			Message: fmt.Sprintf("old warning %d", i), Location: finding.Location{File: "a.yaml", Line: i + 1}}
		f.SetFingerprint()
		r.Findings = append(r.Findings, f)
	}
	md := Markdown{Backlog: "in the job summary"}.Render(r)
	if !strings.HasPrefix(md, "### plumb: no new findings · 50 findings already on `main`, in the job summary\n\n0 objects in 0 targets · 1 file with findings\n\n#### Rendered changes") {
		t.Errorf("harmless change:\n%s", md)
	}
	if strings.Contains(md, "| engine |") || strings.Contains(md, "old warning") {
		t.Errorf("a harmless change's comment has tables of findings:\n%s", md)
	}
	if len(md) > 2000 {
		t.Errorf("%d bytes for a harmless change", len(md))
	}
}

// Two pushes: the first head introduced NEW_ERR (in three targets) and
// LATER_FIXED, and fixed nothing; this head fixed LATER_FIXED and GONE and
// introduced NEW_WARN. The line about the push follows the comparison with
// the base, whose title and table come first.
func TestMarkdownSincePushFollowsTheComparison(t *testing.T) {
	mk := func(rule string, level finding.Level, status, target string, line int) finding.Finding {
		f := finding.Finding{Source: finding.SourceCheck, RuleID: rule, Level: level, Status: status, Message: strings.ReplaceAll(rule, "_", " ") + " message",
			Object:   finding.ObjectID{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web", Target: target},
			Location: finding.Location{File: "base/deploy.yaml", Line: line, Column: 1}}
		f.SetFingerprint()
		return f
	}
	first := &Report{}
	r := withRenderedDiff(&Report{}, 1)
	for _, target := range []string{"overlays/dev", "overlays/staging", "overlays/prod"} {
		first.Findings = append(first.Findings, mk("check/NEW_ERR", finding.Error, finding.StatusNew, target, 3))
		r.Findings = append(r.Findings, mk("check/NEW_ERR", finding.Error, finding.StatusNew, target, 3))
	}
	first.Findings = append(first.Findings,
		mk("check/LATER_FIXED", finding.Error, finding.StatusNew, "overlays/prod", 8),
		mk("check/GONE", finding.Error, finding.StatusUnchanged, "overlays/prod", 7))
	r.Findings = append(r.Findings,
		mk("check/NEW_WARN", finding.Warning, finding.StatusNew, "overlays/prod", 5),
		mk("check/GONE", finding.Error, finding.StatusFixed, "overlays/prod", 7))
	d := SinceLastPush(r, ChangeProblemsOf(first))
	if d != (PushDelta{Fixed: 2, Introduced: 1}) {
		t.Fatalf("delta %+v", d)
	}
	md := Markdown{
		Backlog:   "in the [job summary](https://example.test/run)",
		Context:   "Commit `444444444444`",
		SincePush: fmt.Sprintf("**Since the last push** (`111111111111`): fixed %d, introduced %d.", d.Fixed, d.Introduced),
	}.Render(r)
	golden.Assert(t, "testdata/summary-since-push.md", []byte(md))
}
