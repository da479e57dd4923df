package github

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/github/fakegithub"
)

// plumb's markers are text anyone can type. A comment someone else wrote
// with them is not plumb's: a fake summary posted first must not take the
// summary's place (plumb could not edit it, and would report that posting
// failed), and a fake review comment must not stand in for plumb's.
func TestMarkedCommentsBySomeoneElseAreNotPlumbs(t *testing.T) {
	srv, pr := prSetup(t)
	mallory := fakegithub.User{Login: "mallory", Type: "User"}
	fakeSummary := srv.AddIssueComment(fakegithub.IssueComment{Issue: 7, Body: summaryMarker + "\n### plumb: no findings", User: mallory})
	f := mkFinding("a.yaml", 12, "check/A")
	fakeReview := srv.AddReviewComment(fakegithub.ReviewComment{PR: 7, Path: "a.yaml", Line: intp(12), User: mallory,
		Body: findingCommentBody("fine, nothing to see", []string{f.Fingerprint})})

	c := testClient(t, srv, "write-token")
	ctx := context.Background()
	d, err := c.Diff(ctx, pr.Number)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.SyncReview(ctx, pr, d, []*finding.Finding{f}, ReviewOptions{})
	if err != nil || res.Posted != 1 || res.Kept != 0 || res.Deleted != 0 {
		t.Fatalf("review: %+v %v", res, err)
	}
	what, _, err := c.UpsertSummary(ctx, pr, "the real summary")
	if err != nil || what != SummaryCreated {
		t.Fatalf("summary: %s %v", what, err)
	}
	what, _, err = c.UpsertSummary(ctx, pr, "the real summary, again")
	if err != nil || what != SummaryUpdated {
		t.Fatalf("second summary: %s %v", what, err)
	}
	// Someone else's comments are left as they are.
	for _, cm := range srv.IssueComments(7) {
		if cm.ID == fakeSummary && !strings.Contains(cm.Body, "no findings") {
			t.Errorf("plumb edited someone else's comment: %q", cm.Body)
		}
	}
	found := false
	for _, cm := range srv.ReviewComments(7) {
		found = found || cm.ID == fakeReview
	}
	if !found {
		t.Error("plumb deleted someone else's review comment")
	}
	// Whose the marked comments are is learnt once: GraphQL's viewer.
	viewers := 0
	for _, r := range srv.Requests() {
		if r.String() == "POST /graphql viewer" {
			viewers++
		}
	}
	if viewers != 1 {
		t.Errorf("GraphQL viewer asked %d times, want once", viewers)
	}
}

// With a personal access token plumb writes as that person: its comments
// are still its own on the next run, and nothing is posted twice.
func TestPersonalAccessTokenFindsItsOwnComments(t *testing.T) {
	srv, pr := prSetup(t)
	srv.Tokens["pat"] = fakegithub.Write
	srv.Users["pat"] = "carol"
	fs := []*finding.Finding{mkFinding("a.yaml", 11, "check/A"), mkFinding("a.yaml", 15, "check/A")}
	for run := 1; run <= 2; run++ {
		c := testClient(t, srv, "pat")
		ctx := context.Background()
		d, err := c.Diff(ctx, pr.Number)
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.SyncReview(ctx, pr, d, fs, ReviewOptions{})
		if err != nil {
			t.Fatal(err)
		}
		what, _, err := c.UpsertSummary(ctx, pr, fmt.Sprint("summary of run ", run))
		if err != nil {
			t.Fatal(err)
		}
		switch run {
		case 1:
			if res.Posted != 2 || what != SummaryCreated {
				t.Errorf("run 1: %+v, summary %s", res, what)
			}
		case 2:
			if res.Posted != 0 || res.Kept != 2 || what != SummaryUpdated {
				t.Errorf("run 2: %+v, summary %s", res, what)
			}
		}
	}
	if n, m := len(srv.ReviewComments(7)), len(srv.IssueComments(7)); n != 2 || m != 1 {
		t.Errorf("%d review comments and %d summaries after two runs, want 2 and 1", n, m)
	}
	for _, cm := range srv.IssueComments(7) {
		if cm.User.Login != "carol" {
			t.Errorf("summary by %s", cm.User.Login)
		}
	}
}
