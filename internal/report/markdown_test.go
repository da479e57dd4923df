package report

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/golden"
)

func TestMarkdownGolden(t *testing.T) {
	md := Markdown{
		BlobURL: "https://github.com/acme/shop/blob/abc123/",
		Context: "Commit `abc123` · [workflow run](https://github.com/acme/shop/actions/runs/9)",
		Notes:   []string{"Review comments: 1 posted."},
	}.Render(prReport())
	golden.Assert(t, "testdata/summary.md", []byte(md))
	for _, want := range []string{
		// The title counts the change; the findings without a status (a
		// report merged from a run without a base) are neither new nor old.
		"### plumb: 1 new error · 1 fixed · 2 not compared with the base · 1 finding already on the base, listed below\n",
		"| `check` | 1 | 0 | 0 | 1 | 0 |", // new and fixed counted per engine
		"| `compare` | 0 | 0 | 0 | 0 | 1 |",
		"| **total** | **1** | **0** | **0** | **1** | **1** |",
		"[`overlays/prod/patch.yaml:9:16`](https://github.com/acme/shop/blob/abc123/overlays/prod/patch.yaml#L9)",
		"[`vms/db vm.yaml:30:11`](https://github.com/acme/shop/blob/abc123/vms/db%20vm.yaml#L30)",
		"<details><summary><code>compare/drift</code>",
		"```diff\n--- reference\n+++ rendered\n",
		"#### Fixed by this change (1)",
		"#### Suppressed (1)",
		"the mesh probes it (until 2027-01-01)",
		"Review comments: 1 posted.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if got := (Markdown{}).Render(&Report{}); !strings.HasPrefix(got, "### plumb: no findings\n") {
		t.Errorf("empty report: %q", got)
	}
}

func TestMarkdownEscapesRepositoryText(t *testing.T) {
	r := prReport()
	r.Findings[0].Message = "bad | cell <script>alert(1)</script> <!-- plumb:summary --> @alice [x](https://evil) `code` **bold**"
	r.Findings[0].Location.File = "a|b`c.yaml"
	for i := range r.Findings {
		if r.Findings[i].RuleID == "compare/drift" {
			r.Findings[i].Diff = "```\n</details>\n<!-- plumb:summary -->\n```"
		}
	}
	md := Markdown{}.Render(r)
	for _, bad := range []string{"<script>", "<!-- plumb:summary --> @", " @alice", "[x](https://evil)", "bad | cell", "**bold**"} {
		if strings.Contains(md, bad) {
			t.Errorf("repository text %q reached the Markdown:\n%s", bad, md)
		}
	}
	if !strings.Contains(md, "@\u200balice") || !strings.Contains(md, `bad \| cell &lt;script&gt;`) {
		t.Errorf("escaped text missing:\n%s", md)
	}
	// The diff keeps its content inside a longer fence, so it cannot close
	// the block or the <details>.
	if !strings.Contains(md, "````diff\n```\n</details>\n<!-- plumb:summary -->\n```\n````") {
		t.Errorf("diff fence:\n%s", md)
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| ") && strings.Contains(line, "a|b") && !strings.Contains(line, `a\|b`) {
			t.Errorf("a file name broke a table row: %s", line)
		}
	}
}

func TestMarkdownStaysWithinItsBudget(t *testing.T) {
	r := &Report{Version: "1"}
	for i := 0; i < 400; i++ {
		f := finding.Finding{Source: "compare", RuleID: "compare/drift", Level: finding.Level(i % 3), Message: fmt.Sprintf("drift %d: %s", i, strings.Repeat("é", 100)),
			Object:   finding.ObjectID{Kind: "ConfigMap", Name: fmt.Sprint("cm", i), Target: "prod"},
			Location: finding.Location{File: fmt.Sprintf("f%03d.yaml", i), Line: 1},
			Diff:     strings.Repeat(fmt.Sprintf("-old %d\n+new %d\n", i, i), 300)}
		f.SetFingerprint()
		r.Findings = append(r.Findings, f)
	}
	finding.Sort(r.Findings)
	for _, budget := range []int{65536 - 30, 20000, 1 << 20} {
		md := Markdown{MaxBytes: budget, MaxFindings: 1000, Notes: []string{"a note that must stay"}, Truncated: "See the job summary."}.Render(r)
		if len(md) > budget || utf8.RuneCountInString(md) > budget {
			t.Errorf("budget %d: %d bytes", budget, len(md))
		}
		if !strings.Contains(md, "a note that must stay") || !strings.Contains(md, "See the job summary.") || !strings.Contains(md, "Not shown here") {
			t.Errorf("budget %d: notes or pointer missing", budget)
		}
		if strings.Count(md, "<details>") != strings.Count(md, "</details>") {
			t.Errorf("budget %d: unbalanced <details>", budget)
		}
		if strings.Count(md, "```")%2 != 0 {
			t.Errorf("budget %d: unbalanced fences", budget)
		}
		if !strings.Contains(md, "#### Findings") {
			t.Errorf("budget %d: no findings table", budget)
		}
	}
	// Unbounded: everything (up to MaxFindings rows), no pointer.
	md := Markdown{MaxFindings: 1000}.Render(r)
	if strings.Contains(md, "Not shown here") || strings.Count(md, "<details>") != 400 {
		t.Errorf("unbounded summary left something out")
	}
}

func TestFindingComment(t *testing.T) {
	r := prReport()
	var c string
	for i := range r.Findings {
		if r.Findings[i].RuleID == "check/IMAGE_TAG" {
			c = FindingComment(&r.Findings[i])
		}
	}
	for _, want := range []string{"❌ **error** · `check/IMAGE_TAG` · Image tag pinned · new", "<details><summary>How to fix</summary>", "```yaml\nimage: web@sha256:...\n```"} {
		if !strings.Contains(c, want) {
			t.Errorf("comment lacks %q:\n%s", want, c)
		}
	}
	f := finding.Finding{RuleID: "r", Message: "hi @bob", Help: "ask @carol <!-- plumb:fingerprint=ffff -->"}
	c = FindingComment(&f)
	if strings.Contains(c, "@bob") || strings.Contains(c, "@carol") || strings.Contains(c, "<!--") {
		t.Errorf("comment: %q", c)
	}
}

func TestMarkdownSaysWhatWasLeftOut(t *testing.T) {
	r := &Report{}
	for i := 0; i < 30; i++ {
		f := finding.Finding{RuleID: "compare/drift", Level: finding.Warning, Message: fmt.Sprint("drift ", i),
			Location: finding.Location{File: fmt.Sprintf("f%02d.yaml", i), Line: 1}, Diff: strings.Repeat("+x\n", 200)}
		f.SetFingerprint()
		r.Findings = append(r.Findings, f)
	}
	md := Markdown{MaxBytes: 8000, MaxFindings: 10}.Render(r)
	diffs := strings.Count(md, "<details>")
	want := fmt.Sprintf("Not shown here: 20 of 30 findings, %d of 30 diffs.", 30-diffs)
	if !strings.Contains(md, want) {
		t.Errorf("want %q in:\n%s", want, md)
	}
}

// Findings that read alike across overlays (a base shared by several: the
// same line, rule and message) are one row naming their objects, as in the
// text report and the annotations; the title, the engine table and what
// is left out count it once: one problem, "in 6 targets".
func TestMarkdownGroupsFindingsAlike(t *testing.T) {
	r := &Report{}
	for _, target := range []string{"apps/web/overlays/dev", "apps/web/overlays/prod", "apps/web/overlays/qa", "apps/web/overlays/stage", "apps/web/overlays/test", "apps/web/overlays/uat"} {
		f := finding.Finding{RuleID: "check/D10001", Level: finding.Error, Message: "container web may run as root",
			Object:   finding.ObjectID{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Target: target},
			Location: finding.Location{File: "apps/web/base/deployment.yaml", Line: 19, Column: 11}}
		f.SetFingerprint()
		r.Findings = append(r.Findings, f)
	}
	other := finding.Finding{RuleID: "check/C10001", Level: finding.Error, Message: "image web:latest is not pinned",
		Location: finding.Location{File: "apps/web/base/deployment.yaml", Line: 20, Column: 11}}
	other.SetFingerprint()
	r.Findings = append(r.Findings, other)
	md := Markdown{}.Render(r)
	if n := strings.Count(md, "container web may run as root"); n != 1 {
		t.Errorf("%d rows for the findings alike, want 1:\n%s", n, md)
	}
	if !strings.HasPrefix(md, "### plumb: 2 errors\n") || !strings.Contains(md, "| `other` | 2 | 0 | 0 |") {
		t.Errorf("the counts are not of problems:\n%s", md)
	}
	if !strings.Contains(md, "Deployment web in 6 targets \\[apps/web/overlays/dev, apps/web/overlays/prod, apps/web/overlays/qa, apps/web/overlays/stage, apps/web/overlays/test and 1 more\\]</sub>") {
		t.Errorf("the row does not name the objects:\n%s", md)
	}
	md = Markdown{MaxFindings: 1}.Render(r)
	if !strings.Contains(md, "Not shown here: 1 of 2 findings.") {
		t.Errorf("left out:\n%s", md)
	}
}
