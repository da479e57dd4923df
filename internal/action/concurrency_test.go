package action

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/plumb-ci/plumb/internal/github/fakegithub"
)

// runAt runs the action as workflow run runID with its own copy of the
// environment, so several runs can overlap.
func (h *harness) runAt(runID string) runResult {
	env := maps.Clone(h.env)
	env["GITHUB_RUN_ID"] = runID
	env["GITHUB_OUTPUT"] = filepath.Join(h.dir, "output-"+runID)
	env["GITHUB_STEP_SUMMARY"] = filepath.Join(h.dir, "summary-"+runID)
	var stdout bytes.Buffer
	code := Run(context.Background(), Env{
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Stdout:    &stdout,
		Clock:     h.srv.Clock,
	})
	res := runResult{code: code, stdout: stdout.String()}
	if b, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"]); err == nil {
		res.summary = string(b)
	}
	return res
}

// writeRequests are the requests that changed something on GitHub.
func writeRequests(rs []fakegithub.Request) []string {
	var out []string
	for _, r := range rs {
		if r.Method != "GET" && r.GraphQL == "" {
			out = append(out, r.String())
		}
	}
	return out
}

// Two runs on a fresh pull request at once (a push and a reopen, a
// rerun): both read no summary and both create one; after listing again
// exactly one is left. Their reviews do not double: the later one's check
// just before posting finds the earlier review of the same head.
func TestActionConcurrentRunsLeaveOneSummaryAndOneReview(t *testing.T) {
	h := newHarness(t)
	// Both runs plan their review from an empty pull request...
	planned := h.srv.Hold("GET", `/pulls/7/comments$`, 2)
	// ...the first to check for a review of this head waits until the
	// other has posted one...
	check := h.srv.Hold("GET", `/pulls/7/reviews$`, 1)
	// ...and both create the summary before either lists again.
	create := h.srv.Hold("POST", `/issues/7/comments$`, 2)

	var wg sync.WaitGroup
	results := make([]runResult, 2)
	for i, id := range []string{"41", "42"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = h.runAt(id)
		}()
	}
	planned.Arrived(2)
	planned.Open()
	check.Arrived(1)
	// The run not held posts its review, then reaches the summary.
	create.Arrived(1)
	check.Open()
	create.Arrived(2)
	create.Open()
	wg.Wait()

	if n := len(h.srv.IssueComments(7)); n != 1 {
		t.Errorf("%d summary comments, want 1", n)
	}
	if n := len(h.srv.Reviews(7)); n != 1 {
		t.Errorf("%d reviews, want 1", n)
	}
	if n := len(h.srv.ReviewComments(7)); n != 1 {
		t.Errorf("%d review comments, want 1", n)
	}
	posts := 0
	for _, r := range h.srv.Requests() {
		if r.String() == postIssue {
			posts++
		}
	}
	if posts != 2 {
		t.Errorf("%d summaries created, want 2 (the race this test is about)", posts)
	}
	for _, r := range results {
		if r.code != 1 || strings.Contains(r.stdout, "could not post") {
			t.Errorf("exit %d\n%s", r.code, r.stdout)
		}
	}
	kept := results[0].summary + results[1].summary
	if !strings.Contains(kept, "Review comments: 1 already there.") || !strings.Contains(kept, "Review comments: 1 posted.") {
		t.Errorf("job summaries:\n%s", kept)
	}
}

// A run for a commit that is no longer the head (a push came while it
// ran, and the newer run finished first) posts nothing, and says so in
// the log and in the job summary.
func TestActionStaleRunPostsNothing(t *testing.T) {
	h := newHarness(t)
	const newHead = "4444444444444444444444444444444444444444"
	h.srv.Push(7, newHead, prFiles)
	// The newer run's summary is there.
	h.srv.AddIssueComment(fakegithub.IssueComment{Issue: 7, Body: "<!-- plumb:summary -->\nthe newer head's summary", User: fakegithub.User{Login: fakegithub.BotLogin, Type: "Bot"}})
	r := h.run("41")
	if w := writeRequests(r.requests); len(w) != 0 {
		t.Errorf("a stale run wrote: %v", w)
	}
	if got := h.srv.IssueComments(7); len(got) != 1 || !strings.HasSuffix(got[0].Body, "the newer head's summary") {
		t.Errorf("summary comments %+v", got)
	}
	want := "plumb posted nothing to pull request #7: this run checked commit 111111111111, but pull request #7 is now at 444444444444; the run for 444444444444 reports."
	if !strings.Contains(r.stdout, "::notice title=plumb::"+want) {
		t.Errorf("log lacks the notice:\n%s", r.stdout)
	}
	if !strings.Contains(r.summary, "> [!NOTE]\n> "+strings.ReplaceAll(want, "#", "\\#")) && !strings.Contains(r.summary, "> [!NOTE]\n> "+want) {
		t.Errorf("job summary lacks the note:\n%s", r.summary)
	}
	if r.code != 1 {
		t.Errorf("exit %d: staleness must not change it", r.code)
	}
}
