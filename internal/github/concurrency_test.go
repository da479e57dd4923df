package github

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/github/fakegithub"
)

// writes are the requests that change something on GitHub.
func writes(srv *fakegithub.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		if r.Method != "GET" && r.GraphQL != "viewer" && r.GraphQL != "reviewThreads" {
			out = append(out, r.String())
		}
	}
	return out
}

// Two runs for the same head create the summary at the same moment (both
// listed none, both POST): after listing again they keep exactly one, the
// oldest, and it holds the run's text.
func TestConcurrentRunsLeaveOneSummary(t *testing.T) {
	srv, pr := prSetup(t)
	gate := srv.Hold("POST", `/issues/7/comments$`, 2)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := testClient(t, srv, "write-token")
			_, _, errs[i] = c.UpsertSummary(context.Background(), pr, "the summary")
		}()
	}
	gate.Arrived(2) // both create: neither saw the other's comment
	gate.Open()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	cs := srv.IssueComments(7)
	if len(cs) != 1 {
		t.Fatalf("%d summary comments, want 1: %+v", len(cs), cs)
	}
	posts := 0
	for _, r := range srv.Requests() {
		if r.Method == "POST" && strings.HasSuffix(r.Path, "/issues/7/comments") {
			posts++
		}
	}
	if posts != 2 {
		t.Fatalf("%d summaries created, want 2 (the race this test is about)", posts)
	}
	if cs[0].Body != summaryMarker+"\nthe summary" {
		t.Errorf("kept summary %q", cs[0].Body)
	}
	// The kept one is the oldest of the two created.
	for _, r := range srv.Requests() {
		if id, ok := strings.CutPrefix(r.Path, "/repos/acme/shop/issues/comments/"); ok && r.Method == "DELETE" {
			if n, _ := strconv.ParseInt(id, 10, 64); n <= cs[0].ID {
				t.Errorf("deleted %d, not newer than the kept %d", n, cs[0].ID)
			}
		}
	}
}

// Two runs for the same head review at once: the one whose check just
// before posting comes after the other's review posts nothing.
func TestConcurrentRunsPostOneReview(t *testing.T) {
	srv, pr := prSetup(t)
	fs := []*finding.Finding{mkFinding("a.yaml", 12, "check/A"), mkFinding("a.yaml", 14, "check/B")}
	// Both have planned (listed the comments: none); the first to check
	// for a review of this head waits until the other has posted.
	planned := srv.Hold("GET", `/pulls/7/comments$`, 2)
	check := srv.Hold("GET", `/pulls/7/reviews$`, 1)
	var wg sync.WaitGroup
	done := make(chan int, 2)
	results := make([]*ReviewResult, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := testClient(t, srv, "write-token")
			d, err := c.Diff(context.Background(), pr.Number)
			if err != nil {
				t.Error(err)
				return
			}
			res, err := c.SyncReview(context.Background(), pr, d, fs, ReviewOptions{})
			if err != nil {
				t.Error(err)
			}
			results[i] = res
			done <- i
		}()
	}
	planned.Arrived(2)
	planned.Open()
	check.Arrived(1)
	<-done // the other run posted its review
	check.Open()
	wg.Wait()
	if n := len(srv.Reviews(7)); n != 1 {
		t.Errorf("%d reviews, want 1", n)
	}
	if n := len(srv.ReviewComments(7)); n != 2 {
		t.Errorf("%d review comments, want 2", n)
	}
	posted, kept := 0, 0
	for _, r := range results {
		if r != nil {
			posted += r.Posted
			kept += r.Kept
		}
	}
	if posted != 2 || kept != 2 {
		t.Errorf("posted %d, kept %d; want 2 and 2", posted, kept)
	}
}

// A run for a commit that is no longer the head writes nothing: no
// review, no summary, no deletion.
func TestStaleRunWritesNothing(t *testing.T) {
	srv, pr := prSetup(t)
	fs := []*finding.Finding{mkFinding("a.yaml", 12, "check/A")}
	if _, err := syncReview(t, srv, pr, "write-token", fs); err != nil {
		t.Fatal(err)
	}
	c := testClient(t, srv, "write-token")
	if _, _, err := c.UpsertSummary(context.Background(), pr, "head1 summary"); err != nil {
		t.Fatal(err)
	}
	// A push moves the head; the run for head1 finishes late with other
	// findings.
	srv.Push(7, "head2", []fakegithub.File{{Filename: "a.yaml", Status: "modified", Patch: patchAdding(10, 20)}})
	srv.ResetRequests()
	before := srv.ReviewComments(7)
	_, err := syncReview(t, srv, pr, "write-token", []*finding.Finding{mkFinding("a.yaml", 15, "check/C")})
	var se *StaleError
	if !IsStale(err) || !asStale(err, &se) || se.Head != "head2" || se.Run != "head1" {
		t.Fatalf("err = %v, want a StaleError", err)
	}
	_, _, err = c.UpsertSummary(context.Background(), pr, "old state")
	if !IsStale(err) {
		t.Fatalf("summary err = %v, want a StaleError", err)
	}
	if w := writes(srv); len(w) != 0 {
		t.Errorf("a stale run wrote: %v", w)
	}
	if got := srv.IssueComments(7); len(got) != 1 || !strings.HasSuffix(got[0].Body, "head1 summary") {
		t.Errorf("summary changed: %+v", got)
	}
	if len(srv.ReviewComments(7)) != len(before) {
		t.Errorf("review comments changed")
	}
	if !strings.Contains(err.Error(), "the run for head2 reports") {
		t.Errorf("message %q", err)
	}
}

func asStale(err error, se **StaleError) bool {
	s, ok := err.(*StaleError)
	*se = s
	return ok
}
