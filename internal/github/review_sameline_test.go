package github

import (
	"strings"
	"testing"

	gogithub "github.com/google/go-github/v60/github"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/github/fakegithub"
)

// sameLineFindings are A, commented on by the first push, and B, which
// the second push brings to the same line (A is still there).
func sameLineFindings() (a, b *finding.Finding) {
	a, b = mkFinding("a.yaml", 12, "check/A"), mkFinding("a.yaml", 12, "check/B")
	a.Message, b.Message = "problem A", "problem B"
	a.Status, b.Status = finding.StatusNew, finding.StatusNew
	return a, b
}

// pushSameLine posts the first push's comment about a, then moves the
// pull request to a second head (the same diff).
func pushSameLine(t *testing.T, srv *fakegithub.Server, pr *PullRequest, a *finding.Finding) fakegithub.ReviewComment {
	t.Helper()
	if _, err := syncReview(t, srv, pr, "write-token", []*finding.Finding{a}); err != nil {
		t.Fatal(err)
	}
	first := srv.ReviewComments(7)
	if len(first) != 1 {
		t.Fatalf("%d comments after the first push", len(first))
	}
	srv.Push(7, "head2", []fakegithub.File{{Filename: "a.yaml", Status: "modified", Patch: patchAdding(10, 20)}})
	pr.HeadSHA = "head2"
	return first[0]
}

// A push brings a new problem to a line plumb already commented on, and
// nobody answered that comment: it is replaced by one comment about both
// (one comment per line, and the author is notified of the new problem).
// Before, the new problem got a second comment on the line.
func TestNewProblemOnACommentedLineJoinsItsComment(t *testing.T) {
	srv, pr := prSetup(t)
	a, b := sameLineFindings()
	old := pushSameLine(t, srv, pr, a)

	res, err := syncReview(t, srv, pr, "write-token", []*finding.Finding{a, b})
	if err != nil || *res != (ReviewResult{Posted: 1, PostedProblems: 2, Replaced: 1}) {
		t.Fatalf("second push: %+v %v", res, err)
	}
	got := srv.ReviewComments(7)
	if len(got) != 1 || got[0].ID == old.ID || *got[0].Line != 12 {
		t.Fatalf("comments %+v", got)
	}
	if fps := commentFingerprints(got[0].Body); len(fps) != 2 || fps[0] != a.Fingerprint || fps[1] != b.Fingerprint ||
		!strings.Contains(got[0].Body, "**2 problems here:**") {
		t.Errorf("the line's comment:\n%s", got[0].Body)
	}

	// A rerun writes nothing.
	srv.ResetRequests()
	res, err = syncReview(t, srv, pr, "write-token", []*finding.Finding{a, b})
	if err != nil || *res != (ReviewResult{Kept: 2}) {
		t.Errorf("rerun: %+v %v", res, err)
	}
	for _, r := range srv.Requests() {
		if r.Method != "GET" && r.GraphQL != "viewer" {
			t.Errorf("the rerun wrote: %s %s", r.Method, r.Path)
		}
	}
}

// When the earlier comment has replies, the conversation is not
// rewritten: the new problem is a line of the review's body that says
// where it is, once.
func TestNewProblemOnADiscussedLineIsListed(t *testing.T) {
	srv, pr := prSetup(t)
	a, b := sameLineFindings()
	old := pushSameLine(t, srv, pr, a)
	srv.AddReviewComment(fakegithub.ReviewComment{PR: 7, Path: old.Path, Body: "on purpose", InReplyTo: &old.ID,
		User: fakegithub.User{Login: "alice", Type: "User"}})

	res, err := syncReview(t, srv, pr, "write-token", []*finding.Finding{a, b})
	if err != nil || *res != (ReviewResult{Kept: 1, Discussed: 1}) {
		t.Fatalf("second push: %+v %v", res, err)
	}
	got := srv.ReviewComments(7)
	if len(got) != 2 || got[0].ID != old.ID || got[0].Body != old.Body || got[1].InReplyTo == nil {
		t.Fatalf("comments %+v", got)
	}
	reviews := srv.Reviews(7)
	body := reviews[len(reviews)-1].Body
	want := reviewMarker + "\nplumb: 1 new finding on lines where plumb's earlier comment has replies, listed below.\n\n" +
		"- ⚠️ `a.yaml:12` `check/B` — problem B (ConfigMap cm-a-12) — new on line 12, where plumb's earlier comment has replies (left as it is) <!-- plumb:listed=" + b.Fingerprint + " -->"
	if body != want {
		t.Errorf("review body:\n%s\nwant:\n%s", body, want)
	}

	srv.ResetRequests()
	res, err = syncReview(t, srv, pr, "write-token", []*finding.Finding{a, b})
	if err != nil || *res != (ReviewResult{Kept: 2}) {
		t.Errorf("rerun: %+v %v", res, err)
	}
	for _, r := range srv.Requests() {
		if r.Method != "GET" && r.GraphQL != "viewer" {
			t.Errorf("the rerun wrote: %s %s", r.Method, r.Path)
		}
	}
}

// Replacing is not posting more: at the cap, the line's comment is still
// replaced (one comment goes, one comes).
func TestReplacingACommentIgnoresTheCap(t *testing.T) {
	diff := NewDiff([]*FileDiff{{Path: "a.yaml", Hunks: mustHunks(t, patchAdding(10, 20))}})
	a, b := sameLineFindings()
	body := findingCommentBody("A", []string{a.Fingerprint})
	existing := []*gogithub.PullRequestComment{{ID: gogithub.Int64(5), Body: &body, Path: gogithub.String("a.yaml"), Line: gogithub.Int(12)}}
	p := planReview(planInput{findings: []*finding.Finding{a, b}, diff: diff, existing: existing, max: 1})
	if len(p.create) != 1 || len(p.delete) != 1 || !p.replaced[5] || len(commentFingerprints(p.create[0].body)) != 2 {
		t.Errorf("plan: create %+v, delete %v, replaced %v", p.create, p.delete, p.replaced)
	}
}

// A fingerprint plumb does not make (a report from a fork's artifact) goes
// into no comment's marker: it could end the marker and add mentions or
// links. The finding is left to the summary.
func TestAFingerprintThatIsNotPlumbsGetsNoComment(t *testing.T) {
	diff := NewDiff([]*FileDiff{{Path: "a.yaml", Hunks: mustHunks(t, patchAdding(10, 20))}})
	f := mkFinding("a.yaml", 12, "check/A")
	f.Status = finding.StatusNew
	f.Fingerprint = "abcdef12 -->\n\n@acme/everyone [click](https://evil.example) <!-- x"
	p := planReview(planInput{findings: []*finding.Finding{f}, diff: diff, max: 10})
	if len(p.create)+len(p.files)+len(p.listed) != 0 || p.result.OutsideDiff != 1 {
		t.Errorf("plan %+v", p)
	}
}
