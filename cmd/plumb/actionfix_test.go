package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/github/fakegithub"
)

// The binary, as the action, on a pull request that adds a workload
// without a securityContext: one review comment carries the suggested
// change of the five fixable checks; the fork-safe poster, which has only
// the analysis run's JSON report and no checkout, posts the same
// suggestion from it.
func TestActionBinarySuggestsChanges(t *testing.T) {
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"apps/web.yaml": fixWorkload})
	lines := strings.Split(strings.TrimSuffix(fixWorkload, "\n"), "\n")
	added := fakegithub.File{Filename: "apps/web.yaml", Status: "added",
		Patch: fmt.Sprintf("@@ -0,0 +1,%d @@\n+%s", len(lines), strings.Join(lines, "\n+"))}
	step := newActionStep(t, ws, []fakegithub.File{added})
	res := step.run()
	wantRequests := []string{
		"GET /repos/acme/shop/pulls/7/files?per_page=100",
		"GET /repos/acme/shop/pulls/7/comments?per_page=100",
		"GET /repos/acme/shop/pulls/7",
		"GET /repos/acme/shop/pulls/7/reviews?per_page=100",
		"POST /repos/acme/shop/pulls/7/reviews",
		"GET /repos/acme/shop/issues/7/comments?per_page=100",
		"GET /repos/acme/shop/pulls/7",
		"POST /repos/acme/shop/issues/7/comments",
		"GET /repos/acme/shop/issues/7/comments?per_page=100",
	}
	if got := requestStrings(res.requests); strings.Join(got, "\n") != strings.Join(wantRequests, "\n") {
		t.Fatalf("requests:\n%s\n%s", strings.Join(got, "\n"), res.combined)
	}
	suggestion := suggestionsIn(t, res.requests[4].Body)
	if len(suggestion) != 1 || !strings.Contains(suggestion[0], "        - name: web  # front\n          securityContext:\n            runAsNonRoot: true\n") {
		t.Fatalf("suggestions %q", suggestion)
	}

	// The fork-safe pattern: analyse without posting, post from the report.
	report := res.report
	if !strings.Contains(report, `"fix": {`) {
		t.Fatalf("the JSON report has no fixes")
	}
	poster := newActionStep(t, t.TempDir(), []fakegithub.File{added})
	writeTree(t, poster.ws, map[string]string{"plumb-report.json": report, "pr-event.json": mustRead(t, step.env["GITHUB_EVENT_PATH"])})
	poster.env["INPUT_POST-REPORT"] = "plumb-report.json"
	poster.env["INPUT_POST-EVENT"] = "pr-event.json"
	poster.env["GITHUB_EVENT_NAME"] = "workflow_run"
	writeTree(t, poster.runner, map[string]string{"wr.json": fmt.Sprintf(`{"workflow_run": {"id": 41, "event": "pull_request", "head_sha": %q}}`, actionHeadSHA)})
	poster.env["GITHUB_EVENT_PATH"] = filepath.Join(poster.runner, "wr.json")
	posted := poster.run()
	if posted.code != 0 {
		t.Fatalf("poster: exit %d\n%s", posted.code, posted.combined)
	}
	var review string
	for _, r := range posted.requests {
		if r.String() == "POST /repos/acme/shop/pulls/7/reviews" {
			review = r.Body
		}
	}
	if got := suggestionsIn(t, review); len(got) != 1 || got[0] != suggestion[0] {
		t.Errorf("the poster suggests %q, the analysis run %q", got, suggestion)
	}
}

func requestStrings(rs []fakegithub.Request) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.String()
	}
	return out
}

// suggestionsIn returns the suggested changes of a review request's
// comments.
func suggestionsIn(t *testing.T, body string) []string {
	t.Helper()
	var req struct {
		Comments []struct {
			Body string `json:"body"`
		} `json:"comments"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var out []string
	for _, c := range req.Comments {
		if _, rest, ok := strings.Cut(c.Body, "```suggestion\n"); ok {
			text, _, _ := strings.Cut(rest, "```")
			out = append(out, text)
		}
	}
	return out
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
