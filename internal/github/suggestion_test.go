package github

import (
	"strings"
	"testing"

	gogithub "github.com/google/go-github/v60/github"

	"github.com/plumb-ci/plumb/internal/finding"
)

// The file the suggestions are about: a container added by the pull
// request (lines 10-20 of a.yaml are added).
var fileLines = func() []string {
	lines := make([]string, 30)
	for i := range lines {
		lines[i] = "line " + strings.Repeat("x", i%3)
	}
	lines[11] = "        - name: web"
	lines[12] = "          image: nginx"
	lines[14] = "          securityContext:"
	return lines
}()

// fixable is a finding at line with a fix that inserts after edit line.
func fixable(rule string, line, editLine int, add string) *finding.Finding {
	f := mkFinding("a.yaml", line, rule)
	old := fileLines[editLine-1] + "\n"
	f.Fix = &finding.Fix{Description: "set " + strings.TrimSpace(add),
		Edits: []finding.Edit{{File: "a.yaml", StartLine: editLine, EndLine: editLine, Old: old, New: old + add + "\n"}}}
	return f
}

func plan(t *testing.T, fs []*finding.Finding, existing []*gogithub.PullRequestComment) reviewPlan {
	t.Helper()
	diff := NewDiff([]*FileDiff{{Path: "a.yaml", Hunks: mustHunks(t, patchAdding(10, 20))}})
	return planReview(planInput{findings: fs, diff: diff, existing: existing, max: 10})
}

func suggestionOf(t *testing.T, body string) string {
	t.Helper()
	_, rest, ok := strings.Cut(body, "```suggestion\n")
	if !ok {
		return ""
	}
	text, _, ok := strings.Cut(rest, "\n```")
	if !ok {
		t.Fatalf("unterminated suggestion:\n%s", body)
	}
	return text
}

func TestASuggestionReplacesExactlyTheAnchoredLines(t *testing.T) {
	// The finding is on the container (line 12), the edit after it.
	f := fixable("check/A", 12, 12, "          securityContext: {runAsNonRoot: true}")
	p := plan(t, []*finding.Finding{f}, nil)
	if len(p.create) != 1 {
		t.Fatalf("plan %+v", p)
	}
	c := p.create[0]
	if c.anchor != (Anchor{Path: "a.yaml", Line: 12}) || !c.suggested {
		t.Errorf("anchor %+v suggested %v", c.anchor, c.suggested)
	}
	if got, want := suggestionOf(t, c.body), "        - name: web\n          securityContext: {runAsNonRoot: true}"; got != want {
		t.Errorf("suggestion %q, want %q", got, want)
	}
	if !strings.Contains(c.body, "**Suggested change:** set securityContext: {runAsNonRoot: true}.") {
		t.Errorf("body:\n%s", c.body)
	}
	if commentFingerprint(c.body) != f.Fingerprint {
		t.Error("the suggestion broke the markers")
	}
}

// The anchor grows from the finding's lines to the edit's (the fix's
// span), within one hunk: the lines between are suggested as they are.
func TestASuggestionSpansTheFindingAndItsEdit(t *testing.T) {
	f := fixable("check/A", 12, 15, "            runAsNonRoot: true")
	between := strings.Join(fileLines[11:14], "\n") + "\n"
	e := f.Fix.Edits[0]
	f.Fix.Span = &finding.Edit{File: "a.yaml", StartLine: 12, EndLine: 15, Old: between + e.Old, New: between + e.New}
	c := plan(t, []*finding.Finding{f}, nil).create[0]
	if c.anchor != (Anchor{Path: "a.yaml", StartLine: 12, Line: 15}) {
		t.Errorf("anchor %+v", c.anchor)
	}
	want := strings.Join(append(append([]string{}, fileLines[11:15]...), "            runAsNonRoot: true"), "\n")
	if got := suggestionOf(t, c.body); got != want {
		t.Errorf("suggestion:\n%s\nwant:\n%s", got, want)
	}
	// Without a span (a credential's line between) the comment sits on
	// the edit's own line.
	f.Fix.Span = nil
	c = plan(t, []*finding.Finding{f}, nil).create[0]
	if !c.suggested || c.anchor != (Anchor{Path: "a.yaml", Line: 15}) || suggestionOf(t, c.body) != fileLines[14]+"\n            runAsNonRoot: true" {
		t.Errorf("without a span: %+v", c)
	}
}

func TestNoSuggestionOutsideTheHunk(t *testing.T) {
	f := fixable("check/A", 12, 25, "            runAsNonRoot: true") // line 25 is not in the diff
	c := plan(t, []*finding.Finding{f}, nil).create[0]
	if c.suggested || strings.Contains(c.body, "```suggestion") || c.anchor != (Anchor{Path: "a.yaml", Line: 12}) {
		t.Errorf("comment %+v", c)
	}
}

// Findings whose edits touch the same lines share one joint suggestion
// (two there would add securityContext twice once both are applied), and
// one comment: a checklist of the three problems, the joint suggestion
// once, "How to fix" per rule folded — never a comment that only says
// another comment's suggestion fixes it.
func TestFindingsOnTheSameLinesShareOneSuggestion(t *testing.T) {
	a := fixable("check/A", 12, 12, "          securityContext: {runAsNonRoot: true}")
	b := fixable("check/B", 12, 12, "          securityContext: {readOnlyRootFilesystem: true}")
	c := fixable("check/C", 12, 12, "          securityContext: {privileged: false}")
	a.Help, b.Help = "Run as a user.", "Mount the root read-only."
	joint := &finding.JointFix{Findings: []string{a.Fingerprint, b.Fingerprint, c.Fingerprint}, Edits: []finding.Edit{{
		File: "a.yaml", StartLine: 12, EndLine: 12, Old: fileLines[11] + "\n",
		New: fileLines[11] + "\n          securityContext: {runAsNonRoot: true, readOnlyRootFilesystem: true, privileged: false}\n"}}}
	for _, f := range []*finding.Finding{a, b, c} {
		f.Fix.Joint = joint
	}
	p := plan(t, []*finding.Finding{a, b, c}, nil)
	if len(p.create) != 1 {
		t.Fatalf("%d comments, want 1: %+v", len(p.create), p.create)
	}
	d := p.create[0]
	want := findingMarker + `
**3 problems here:**

- ⚠️ **warning** · ` + "`check/A`" + ` — problem at 12 — _the suggested change below fixes it_
- ⚠️ **warning** · ` + "`check/B`" + ` — problem at 12 — _the suggested change below fixes it_
- ⚠️ **warning** · ` + "`check/C`" + ` — problem at 12 — _the suggested change below fixes it_

<sub>ConfigMap cm-a-12 · ` + "`data.x`" + `</sub>

**Suggested change:** set securityContext: {runAsNonRoot: true}; set securityContext: {readOnlyRootFilesystem: true}; set securityContext: {privileged: false}.

` + "```suggestion" + `
        - name: web
          securityContext: {runAsNonRoot: true, readOnlyRootFilesystem: true, privileged: false}
` + "```" + `

<details><summary>How to fix <code>check/A</code></summary>

Run as a user.

</details>

<details><summary>How to fix <code>check/B</code></summary>

Mount the root read-only.

</details>

<!-- plumb:fingerprint=` + a.Fingerprint + "," + b.Fingerprint + "," + c.Fingerprint + ` -->`
	if d.body != want {
		t.Errorf("body:\n%s\nwant:\n%s", d.body, want)
	}
	if !d.suggested || d.anchor != (Anchor{Path: "a.yaml", Line: 12}) {
		t.Errorf("anchor %+v suggested %v", d.anchor, d.suggested)
	}
}

// A joint suggestion on lines other than a finding's own joins its
// finding to the comment that carries it: the finding on line 14 is in
// the comment on line 12's checklist, not a comment of its own pointing
// there.
func TestAFindingFixedByAJointSuggestionJoinsItsComment(t *testing.T) {
	a := fixable("check/A", 12, 12, "          securityContext: {runAsNonRoot: true}")
	b := fixable("check/B", 14, 12, "          securityContext: {readOnlyRootFilesystem: true}")
	joint := &finding.JointFix{Findings: []string{a.Fingerprint, b.Fingerprint}, Edits: []finding.Edit{{
		File: "a.yaml", StartLine: 12, EndLine: 12, Old: fileLines[11] + "\n",
		New: fileLines[11] + "\n          securityContext: {runAsNonRoot: true, readOnlyRootFilesystem: true}\n"}}}
	a.Fix.Joint, b.Fix.Joint = joint, joint
	other := mkFinding("a.yaml", 14, "check/Other") // no fix, on line 14: a comment of its own
	p := plan(t, []*finding.Finding{a, b, other}, nil)
	if len(p.create) != 2 {
		t.Fatalf("%d comments, want 2", len(p.create))
	}
	if fps := commentFingerprints(p.create[0].body); len(fps) != 2 || fps[0] != a.Fingerprint || fps[1] != b.Fingerprint {
		t.Errorf("the carrier's comment is about %v", fps)
	}
	if !strings.Contains(p.create[0].body, "- ⚠️ **warning** · `check/B` — problem at 14 <sub>ConfigMap cm-a-14 · `data.x`</sub> — on line 14; _the suggested change below fixes it_\n") {
		t.Errorf("the joined problem's item:\n%s", p.create[0].body)
	}
	for _, d := range p.create {
		if strings.Contains(d.body, "fixes this too") {
			t.Errorf("a comment points at another's suggestion:\n%s", d.body)
		}
	}
	if p.create[1].anchor != (Anchor{Path: "a.yaml", Line: 14}) || commentFingerprint(p.create[1].body) != other.Fingerprint || p.create[1].suggested {
		t.Errorf("second comment %+v", p.create[1])
	}
}

// A comment of plumb's that already suggests a change on a line where a
// new finding with a suggestion of its own appears: the line keeps one
// comment and one suggestion. The comment (nobody answered it) is
// replaced by one about both problems that carries the earlier
// suggestion; the new finding's change is named, not suggested a second
// time. (Before one comment per line, the new finding got a second
// comment on the line, without a suggestion.)
func TestNoSuggestionWhereOneIsAlreadyOpen(t *testing.T) {
	old := fixable("check/A", 12, 12, "          securityContext: {runAsNonRoot: true}")
	body := findingCommentBody("x\n\n```suggestion\n        - name: web\n```", []string{old.Fingerprint})
	existing := []*gogithub.PullRequestComment{{ID: gogithub.Int64(1), Body: &body, Path: gogithub.String("a.yaml"), Line: gogithub.Int(12)}}
	fresh := fixable("check/B", 12, 12, "          securityContext: {readOnlyRootFilesystem: true}")
	p := plan(t, []*finding.Finding{old, fresh}, existing)
	if p.result.Kept != 0 || len(p.create) != 1 || !p.create[0].suggested || !p.replaced[1] ||
		len(commentFingerprints(p.create[0].body)) != 2 || strings.Count(p.create[0].body, "```suggestion") != 1 ||
		!strings.Contains(suggestionOf(t, p.create[0].body), "runAsNonRoot") {
		t.Errorf("plan %+v", p)
	}
}

// A fix that edits another file the pull request changes (the overlay
// patch that set the value, where the finding points at the base) is
// commented there, with its suggestion.
func TestAFixInAnotherFileIsCommentedThere(t *testing.T) {
	f := mkFinding("base.yaml", 3, "check/A")
	f.Fix = &finding.Fix{Description: "set allowPrivilegeEscalation: false", Edits: []finding.Edit{{
		File: "a.yaml", StartLine: 13, EndLine: 13, Old: fileLines[12] + "\n", New: "          allowPrivilegeEscalation: false\n"}}}
	c := plan(t, []*finding.Finding{f}, nil).create
	if len(c) != 1 || c[0].anchor != (Anchor{Path: "a.yaml", Line: 13}) || suggestionOf(t, c[0].body) != "          allowPrivilegeEscalation: false" {
		t.Errorf("comments %+v", c)
	}
}

func TestASuggestionHoldingBackticksGetsALongerFence(t *testing.T) {
	f := fixable("check/A", 12, 12, "          command: [\"echo ```\"]")
	c := plan(t, []*finding.Finding{f}, nil).create[0]
	if !strings.Contains(c.body, "\n````suggestion\n") || !strings.Contains(c.body, "\n````\n") {
		t.Errorf("body:\n%s", c.body)
	}
}
