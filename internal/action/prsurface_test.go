package action

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plumb-ci/plumb/internal/github/fakegithub"
)

// The pull-request surface under every answer GitHub gives: each test
// runs the action end to end against the fake GitHub and asserts the
// requests it made, in order.

const (
	filesReq    = "GET /repos/acme/shop/pulls/7/files?per_page=100"
	commentsReq = "GET /repos/acme/shop/pulls/7/comments?per_page=100"
	reviewsReq  = "GET /repos/acme/shop/pulls/7/reviews?per_page=100"
	postReview  = "POST /repos/acme/shop/pulls/7/reviews"
	postComment = "POST /repos/acme/shop/pulls/7/comments"
	issueReq    = "GET /repos/acme/shop/issues/7/comments?per_page=100"
	postIssue   = "POST /repos/acme/shop/issues/7/comments"
	viewer      = "POST /graphql viewer"
	threads     = "POST /graphql reviewThreads"
	resolve     = "POST /graphql resolveReviewThread"
	// headReq reads the pull request's head just before writing.
	headReq = "GET /repos/acme/shop/pulls/7"
)

func editSummary(id int64) string {
	return fmt.Sprintf("PATCH /repos/acme/shop/issues/comments/%d", id)
}

// 1. Another bot that writes plumb's markers (a second plumb installed as
// another App, a copycat) is not plumb: its comments are never edited,
// deleted or taken for plumb's own; plumb learns its own account once.
func TestActionLeavesAnotherBotsCommentsAlone(t *testing.T) {
	h := newHarness(t)
	h.srv.Tokens["other-token"] = fakegithub.Write
	h.srv.Bots["other-token"] = "other-app[bot]"

	// The other App runs first, with the same markers and fingerprints.
	h.env["INPUT_TOKEN"] = "other-token"
	r := h.run("40")
	assertRequests(t, r.requests, filesReq, commentsReq, headReq, reviewsReq, postReview, issueReq, headReq, postIssue, issueReq)
	theirs := map[int64]string{}
	for _, c := range h.srv.ReviewComments(7) {
		theirs[c.ID] = c.Body
	}
	for _, c := range h.srv.IssueComments(7) {
		theirs[c.ID] = c.Body
	}
	if len(theirs) != 2 {
		t.Fatalf("the other App posted %d comments, want 2", len(theirs))
	}

	// plumb's own run: the marked comments are someone else's, so it asks
	// who it is (once), posts its own review comment and summary.
	h.env["INPUT_TOKEN"] = "write-token"
	r = h.run("41")
	assertRequests(t, r.requests, filesReq, commentsReq, viewer, headReq, reviewsReq, postReview, issueReq, headReq, postIssue, issueReq)
	// A rerun finds its own, edits its summary, touches nothing else.
	r = h.run("42")
	var ourSummary int64
	for _, c := range h.srv.IssueComments(7) {
		if c.User.Login == fakegithub.BotLogin {
			ourSummary = c.ID
		}
	}
	assertRequests(t, r.requests, filesReq, commentsReq, viewer, issueReq, headReq, editSummary(ourSummary))
	for _, c := range append(h.srv.ReviewComments(7), fakegithub.ReviewComment{}) {
		delete(theirs, c.ID)
	}
	for _, c := range h.srv.IssueComments(7) {
		if body, ok := theirs[c.ID]; ok && body != c.Body {
			t.Errorf("the other App's comment %d was edited", c.ID)
		}
		delete(theirs, c.ID)
	}
	if len(theirs) != 0 {
		t.Errorf("the other App's comments %v were deleted", theirs)
	}
	if n := len(h.srv.ReviewComments(7)); n != 2 {
		t.Errorf("%d review comments, want the other App's and plumb's", n)
	}
}

// Without a way to learn its account (no GraphQL, an installation token
// that may not read /user), plumb cannot tell its comments from others'
// and posts nothing rather than guess.
func TestActionPostsNothingWhenItCannotTellItsOwnComments(t *testing.T) {
	h := newHarness(t)
	h.srv.GraphQLDisabled = true
	h.srv.AddIssueComment(fakegithub.IssueComment{Issue: 7, Body: "<!-- plumb:summary -->\nold", User: fakegithub.User{Login: "someone[bot]", Type: "Bot"}})
	r := h.run("41")
	// The review is posted (no marked comment there needs telling apart);
	// the summary is not.
	assertRequests(t, r.requests, filesReq, commentsReq, headReq, reviewsReq, postReview, issueReq, viewer, "GET /user")
	if !strings.Contains(r.stdout, "cannot tell which GitHub account the token acts as, so which comments are plumb's own") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}

// manyFindings adds a file of n ConfigMaps without apiVersion (n
// missing-api-version errors) that the pull request adds.
func manyFindings(t *testing.T, h *harness, n int) {
	t.Helper()
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "kind: ConfigMap\nmetadata:\n  name: cm-%d\n  namespace: shop\n---\n", i)
	}
	content := b.String()
	if err := os.WriteFile(filepath.Join(h.ws, "apps/many.yaml"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(content, "\n")
	patch := fmt.Sprintf("@@ -0,0 +1,%d @@\n+%s", lines, strings.ReplaceAll(strings.TrimSuffix(content, "\n"), "\n", "\n+"))
	files := append([]fakegithub.File{{Filename: "apps/many.yaml", Status: "added", Patch: patch}}, prFiles...)
	h.srv.AddPR(&fakegithub.PR{Number: 7, HeadSHA: headSHA, BaseSHA: baseSHA, Files: files})
}

// 2. The cap (30 a review, 90 a run) counts what plumb already has: a
// rerun without changes posts nothing, though more findings than the cap
// could be commented.
func TestActionRerunPostsNothingOverTheCap(t *testing.T) {
	h := newHarness(t)
	manyFindings(t, h, 100)
	r := h.run("41")
	assertRequests(t, r.requests, filesReq, commentsReq, headReq, reviewsReq, postReview, postReview, postReview, issueReq, headReq, postIssue, issueReq)
	if n := len(h.srv.ReviewComments(7)); n != 90 {
		t.Fatalf("%d comments after the first run, want 90", n)
	}
	if !strings.Contains(r.summary, "Review comments: 90 posted.") || !strings.Contains(r.summary, "11 more findings were not commented") {
		t.Errorf("job summary:\n%s", r.summary)
	}
	summary := h.srv.IssueComments(7)[0].ID
	r = h.run("42")
	assertRequests(t, r.requests, filesReq, commentsReq, viewer, issueReq, headReq, editSummary(summary))
	if n := len(h.srv.ReviewComments(7)); n != 90 {
		t.Errorf("%d comments after the rerun, want still 90", n)
	}
	if !strings.Contains(r.summary, "Review comments: 90 already there.") {
		t.Errorf("job summary:\n%s", r.summary)
	}
}

// 3. GitHub can store a review and still answer 502, or drop the
// connection after storing it: plumb looks before it posts again, and
// never posts the same review twice. When it was not stored, it is sent
// again.
func TestActionNeverDuplicatesAfterAnUnclearAnswer(t *testing.T) {
	for _, c := range []struct {
		name  string
		fault fakegithub.Fault
		want  []string
	}{
		{"stored, then 502", fakegithub.Fault{Method: "POST", Path: `/pulls/7/reviews$`, Count: 1, Status: 502, Commit: true, Body: `{"message":"Server Error"}`},
			[]string{filesReq, commentsReq, headReq, reviewsReq, postReview, commentsReq, viewer, issueReq, headReq, postIssue, issueReq}},
		{"stored, then the connection dropped", fakegithub.Fault{Method: "POST", Path: `/pulls/7/reviews$`, Count: 1, Commit: true, Drop: true},
			[]string{filesReq, commentsReq, headReq, reviewsReq, postReview, commentsReq, viewer, issueReq, headReq, postIssue, issueReq}},
		{"not stored, 502", fakegithub.Fault{Method: "POST", Path: `/pulls/7/reviews$`, Count: 1, Status: 502, Body: `{"message":"Server Error"}`},
			[]string{filesReq, commentsReq, headReq, reviewsReq, postReview, commentsReq, postReview, issueReq, headReq, postIssue, issueReq}},
		{"summary stored, then 504", fakegithub.Fault{Method: "POST", Path: `/issues/7/comments$`, Count: 1, Status: 504, Commit: true, Body: `{"message":"Gateway Timeout"}`},
			[]string{filesReq, commentsReq, headReq, reviewsReq, postReview, issueReq, headReq, postIssue, issueReq, viewer, issueReq}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			h.srv.Inject(c.fault)
			r := h.run("41")
			assertRequests(t, r.requests, c.want...)
			if n, m := len(h.srv.ReviewComments(7)), len(h.srv.IssueComments(7)); n != 1 || m != 1 {
				t.Errorf("%d review comments and %d summaries, want 1 and 1", n, m)
			}
			if n := len(h.srv.Reviews(7)); n != 1 {
				t.Errorf("%d reviews, want 1", n)
			}
			if strings.Contains(r.stdout, "could not post") {
				t.Errorf("posting failed:\n%s", r.stdout)
			}
			if !strings.Contains(r.stdout, "\nplumb: GitHub API: ") || !strings.Contains(r.stdout, "looking in 1s whether it was stored before sending it again") {
				t.Errorf("the wait is not announced:\n%s", r.stdout)
			}
		})
	}
}

// 4. A 200 that says the quota is spent is waited out (the wait said on a
// visible line), and the run goes on.
func TestActionWaitsForASpentQuota(t *testing.T) {
	h := newHarness(t)
	h.srv.SetQuota(2, 40*time.Second) // the comments listing spends it
	r := h.run("41")
	assertRequests(t, r.requests, filesReq, commentsReq, headReq, reviewsReq, postReview, issueReq, headReq, postIssue, issueReq)
	if n := len(h.srv.ReviewComments(7)); n != 1 || strings.Contains(r.stdout, "could not post") {
		t.Fatalf("%d comments\n%s", n, r.stdout)
	}
	want := "\nplumb: GitHub's API rate limit: the quota is spent until 03:04:45 UTC; waiting 41s before the next request\n"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
	}
}

// A limit that resets later than plumb may wait stops posting, and the
// run says so in those words, not "a fork" or "permissions".
func TestActionSaysWhenTheRateLimitStopsIt(t *testing.T) {
	h := newHarness(t)
	h.srv.SetQuota(2, 10*time.Minute)
	r := h.run("41")
	assertRequests(t, r.requests, filesReq, commentsReq)
	want := "::notice title=plumb::plumb could not post to pull request #7: GitHub's API rate limit was reached; 2 comments not posted, retry after 03:14 UTC. The findings are in the annotations and the job summary."
	if !strings.Contains(r.stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
	}
	if strings.Contains(r.stdout, "fork") || strings.Contains(r.stdout, "pull-requests: write") {
		t.Errorf("a rate limit blamed on permissions:\n%s", r.stdout)
	}
	if r.code != 1 {
		t.Errorf("exit %d: a rate limit must not change it", r.code)
	}
}

// The time spent waiting in one run is capped (two minutes): after two
// waits of 50s a third is not made, and each wait was announced.
func TestActionCapsTheTimeItWaits(t *testing.T) {
	h := newHarness(t)
	h.srv.Inject(fakegithub.Fault{Method: "POST", Path: `/pulls/7/reviews$`, Count: 5, Status: 403,
		Header: map[string]string{"Retry-After": "50"}, Body: `{"message":"You have exceeded a secondary rate limit."}`})
	r := h.run("41")
	assertRequests(t, r.requests, filesReq, commentsReq, headReq, reviewsReq, postReview, postReview, postReview)
	if n := strings.Count(r.stdout, "\nplumb: GitHub's API rate limit: POST /repos/acme/shop/pulls/7/reviews was refused (403 Forbidden); waiting 50s"); n != 2 {
		t.Errorf("%d announced waits, want 2:\n%s", n, r.stdout)
	}
	var waited time.Duration
	for _, d := range h.srv.Clock.Slept() {
		if d > time.Second {
			waited += d
		}
	}
	if waited > 2*time.Minute {
		t.Errorf("waited %s in all", waited)
	}
	if !strings.Contains(r.stdout, "GitHub's API rate limit was reached; 2 comments not posted, retry after") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
}

// 6. A finding fixed by a later push: plumb's comment that nobody answered
// is deleted; one with replies gets "fixed in <sha>" and its thread
// resolved — once.
func TestActionClosesTheThreadsOfFixedFindings(t *testing.T) {
	h := newHarness(t)
	// Two commentable findings: the duplicate ConfigMap and a nameless one
	// in a file the pull request adds.
	extra := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: shop\n"
	if err := os.WriteFile(filepath.Join(h.ws, "apps/web/extra.yaml"), []byte(extra), 0o644); err != nil {
		t.Fatal(err)
	}
	files := append([]fakegithub.File{{Filename: "apps/web/extra.yaml", Status: "added", Patch: "@@ -0,0 +1,4 @@\n+apiVersion: v1\n+kind: ConfigMap\n+metadata:\n+  namespace: shop"}}, prFiles...)
	h.srv.AddPR(&fakegithub.PR{Number: 7, HeadSHA: headSHA, BaseSHA: baseSHA, Files: files})
	h.run("41")
	comments := h.srv.ReviewComments(7)
	if len(comments) != 2 {
		t.Fatalf("%d comments, want 2", len(comments))
	}
	var discussed, quiet fakegithub.ReviewComment
	for _, c := range comments {
		if c.Path == "apps/web/configmap.yaml" {
			discussed = c
		} else {
			quiet = c
		}
	}
	h.srv.AddReviewComment(fakegithub.ReviewComment{PR: 7, Path: discussed.Path, Body: "on purpose?", InReplyTo: &discussed.ID,
		User: fakegithub.User{Login: "alice", Type: "User"}})

	// The push fixes both: the duplicate document and the nameless
	// ConfigMap get names.
	if err := os.WriteFile(filepath.Join(h.ws, "apps/web/configmap.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: shop\ndata:\n  a: b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(h.ws, "apps/web/extra.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: shop\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const head2 = "4444444444444444444444444444444444444444"
	h.srv.Push(7, head2, []fakegithub.File{
		{Filename: "apps/web/extra.yaml", Status: "added", Patch: "@@ -0,0 +1,5 @@\n+apiVersion: v1\n+kind: ConfigMap\n+metadata:\n+  name: extra\n+  namespace: shop"},
		{Filename: "apps/web/configmap.yaml", Status: "modified", Patch: "@@ -1,4 +1,4 @@\n apiVersion: v1\n kind: ConfigMap\n metadata:\n-  name: old\n+  name: web"},
	})
	h.writeEvent("event.json", strings.Replace(pullRequestEvent("acme/shop"), headSHA, head2, 1))
	r := h.run("42")
	summary := h.srv.IssueComments(7)[0].ID
	assertRequests(t, r.requests, filesReq, commentsReq, viewer, headReq,
		fmt.Sprintf("DELETE /repos/acme/shop/pulls/comments/%d", quiet.ID),
		threads, postComment, resolve, issueReq, headReq, editSummary(summary))
	var reply *fakegithub.ReviewComment
	for _, c := range h.srv.ReviewComments(7) {
		if c.ID == quiet.ID {
			t.Error("the comment nobody answered is still there")
		}
		if c.InReplyTo != nil && c.User.Login == fakegithub.BotLogin {
			reply = &c
		}
	}
	if reply == nil || *reply.InReplyTo != discussed.ID || !strings.Contains(reply.Body, "Fixed in `444444444444`") {
		t.Fatalf("reply %+v", reply)
	}
	if !h.srv.Resolved(discussed.ID) {
		t.Error("the thread is not resolved")
	}
	if !strings.Contains(r.summary, "1 outdated removed, 1 thread of fixed findings resolved") {
		t.Errorf("job summary:\n%s", r.summary)
	}

	// Someone reopens the thread: plumb does not reply or resolve again.
	h.srv.SetResolved(discussed.ID, false)
	r = h.run("43")
	assertRequests(t, r.requests, filesReq, commentsReq, viewer, issueReq, headReq, editSummary(summary))
}

// The requests' bodies for GitHub's review API: the comments of each
// posted review.
func reviewComments(t *testing.T, reqs []fakegithub.Request) [][]map[string]any {
	t.Helper()
	var out [][]map[string]any
	for _, r := range reqs {
		if r.String() != postReview {
			continue
		}
		var body struct {
			Body     string           `json:"body"`
			Comments []map[string]any `json:"comments"`
		}
		if err := json.Unmarshal([]byte(r.Body), &body); err != nil {
			t.Fatal(err)
		}
		out = append(out, body.Comments)
	}
	return out
}
