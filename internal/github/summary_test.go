package github

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	gogithub "github.com/google/go-github/v60/github"

	"github.com/plumb-ci/plumb/internal/github/fakegithub"
)

func TestSummaryCommentIsCreatedThenEditedInPlace(t *testing.T) {
	srv := newFake(t)
	srv.AddPR(&fakegithub.PR{Number: 4, HeadSHA: "h"})
	srv.AddIssueComment(fakegithub.IssueComment{Issue: 4, Body: "LGTM", User: fakegithub.User{Login: "alice"}})
	// A human quoting an old summary is not the summary.
	srv.AddIssueComment(fakegithub.IssueComment{Issue: 4, Body: "> " + summaryMarker + "\n> old", User: fakegithub.User{Login: "bob"}})
	c := testClient(t, srv, "write-token")
	ctx := context.Background()
	pr := &PullRequest{Number: 4, HeadSHA: "h"}

	what, url, err := c.UpsertSummary(ctx, pr, "first")
	if err != nil || what != SummaryCreated || !strings.Contains(url, "#issuecomment-") {
		t.Fatalf("%s %s %v", what, url, err)
	}
	what, _, err = c.UpsertSummary(ctx, pr, "second")
	if err != nil || what != SummaryUpdated {
		t.Fatalf("%s %v", what, err)
	}
	srv.ResetRequests()
	what, _, err = c.UpsertSummary(ctx, pr, "second")
	if err != nil || what != SummaryUnchanged {
		t.Fatalf("%s %v", what, err)
	}
	if got := requestLines(srv); len(got) != 1 || !strings.HasPrefix(got[0], "GET ") {
		t.Errorf("an unchanged summary was written: %v", got)
	}
	var ours []string
	for _, cm := range srv.IssueComments(4) {
		if cm.User.Login == fakegithub.BotLogin {
			ours = append(ours, cm.Body)
		}
	}
	if len(ours) != 1 || ours[0] != summaryMarker+"\nsecond" {
		t.Errorf("plumb's comments: %q", ours)
	}
}

func TestFakeRejectsBodiesOverTheLimit(t *testing.T) {
	srv := newFake(t)
	srv.AddPR(&fakegithub.PR{Number: 4, HeadSHA: "h"})
	c := testClient(t, srv, "write-token")
	_, _, err := c.gh.Issues.CreateComment(context.Background(), "acme", "shop", 4, &gogithub.IssueComment{Body: gogithub.String(strings.Repeat("é", MaxCommentChars+1))})
	if StatusOf(err) != 422 || !strings.Contains(err.Error(), "Body is too long (maximum is 65536 characters)") {
		t.Fatalf("err = %v", err)
	}
	// UpsertSummary cuts an oversized body instead of losing the comment.
	what, _, err := c.UpsertSummary(context.Background(), &PullRequest{Number: 4}, strings.Repeat("é", 2*MaxCommentChars))
	if err != nil || what != SummaryCreated {
		t.Fatalf("%s %v", what, err)
	}
	cms := srv.IssueComments(4)
	if n := utf8.RuneCountInString(cms[0].Body); n > MaxCommentChars {
		t.Errorf("posted %d characters", n)
	}
}

func TestLoadContextPullRequest(t *testing.T) {
	dir := t.TempDir()
	event := filepath.Join(dir, "event.json")
	if err := os.WriteFile(event, []byte(`{"action":"synchronize","number":12,"pull_request":{"number":12,"html_url":"https://github.com/acme/shop/pull/12",
		"head":{"sha":"abc","repo":{"full_name":"mallory/shop"}},"base":{"sha":"def","repo":{"full_name":"acme/shop"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event, "GITHUB_REPOSITORY": "acme/shop",
		"GITHUB_SHA": "merge", "GITHUB_SERVER_URL": "https://github.com", "GITHUB_API_URL": "https://api.github.com",
		"GITHUB_RUN_ID": "99", "GITHUB_WORKSPACE": "/github/workspace", "GITHUB_ACTIONS": "true",
	}
	c, err := LoadContext(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.PR == nil || c.PR.Number != 12 || c.PR.HeadSHA != "abc" || c.PR.BaseSHA != "def" || !c.PR.FromFork() {
		t.Fatalf("PR = %+v", c.PR)
	}
	if c.Owner != "acme" || c.Repo != "shop" || c.RunURL() != "https://github.com/acme/shop/actions/runs/99" ||
		c.BlobURL("abc") != "https://github.com/acme/shop/blob/abc/" {
		t.Errorf("context %+v", c)
	}

	env["GITHUB_EVENT_NAME"] = "push"
	if c, err := LoadContext(func(k string) string { return env[k] }); err != nil || c.PR != nil {
		t.Errorf("push event: %+v %v", c, err)
	}
}

func TestLoadContextBadEvent(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"not JSON":     `{"pull_request": `,
		"no number":    `{"pull_request": {"head": {"sha": "x"}}}`,
		"missing file": "",
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
		if content != "" {
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		env := map[string]string{"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": path, "GITHUB_REPOSITORY": "a/b"}
		_, err := LoadContext(func(k string) string { return env[k] })
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestParseWorkflowRunEvent(t *testing.T) {
	ev, err := ParseEvent([]byte(`{"workflow_run":{"id":5,"event":"pull_request","head_sha":"abc","pull_requests":[]}}`))
	if err != nil || ev.WorkflowRun == nil || ev.WorkflowRun.HeadSHA != "abc" || ev.WorkflowRun.ID != 5 || ev.PR != nil {
		t.Fatalf("%+v %v", ev, err)
	}
	if s := fmt.Sprint((&PullRequest{Number: 3}).String()); s != "#3" {
		t.Error(s)
	}
}
