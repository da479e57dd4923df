package action

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
)

// visibleSummary is a summary comment's body without the hidden line that
// records its head's findings for the next push (what GitHub shows).
func visibleSummary(body string) string {
	first, rest, _ := strings.Cut(body, "\n")
	if strings.HasPrefix(rest, "<!-- plumb:push ") {
		_, rest, _ = strings.Cut(rest, "\n")
	}
	return first + "\n" + rest
}

// gitPush moves the harness's pull request to a new head: the workspace
// becomes head (committed nowhere; the diff is against the base commit),
// the fake GitHub lists its files, and the event names sha.
func gitPush(t *testing.T, h *harness, head map[string]string, sha string) {
	t.Helper()
	r := gittest.Open(t, h.ws)
	r.Write(head)
	r.Git("add", "-A")
	h.srv.Push(7, sha, diffFiles(r, h.ws, h.env["INPUT_BASE-REF"]))
	h.writeEvent("event.json", strings.Replace(pullRequestEvent("acme/shop"), headSHA, sha, 1))
}

// The realistic pull request, pushed twice: the second push fixes the
// worker's request above its limit and unpins the worker's image. The
// summary says, after the comparison with main, what the push fixed and
// introduced; the first run says nothing about a previous push, and a
// rerun of the second head says the same again.
func TestActionSinceTheLastPush(t *testing.T) {
	h := gitPR(t, realisticBase(), realisticHead())
	h.env["INPUT_PATHS"] = "."
	h.run("41")
	first := h.srv.IssueComments(7)[0].Body
	if strings.Contains(first, "Since the last push") {
		t.Errorf("the first run speaks of a previous push:\n%s", firstNLines(first, 10))
	}
	if !strings.HasPrefix(first, "<!-- plumb:summary -->\n<!-- plumb:push head="+headSHA+" ") {
		t.Errorf("no record of the head's findings:\n%s", firstNLines(first, 3))
	}

	head2 := realisticHead()
	head2["charts/worker/values-prod.yaml"] = "replicas: 3\n"
	head2["charts/worker/values.yaml"] = strings.Replace(head2["charts/worker/values.yaml"], `tag: "1.8.0"`, `tag: "latest"`, 1)
	const sha2 = "4444444444444444444444444444444444444444"
	gitPush(t, h, head2, sha2)
	h.run("42")
	comments := h.srv.IssueComments(7)
	if len(comments) != 1 {
		t.Fatalf("%d summary comments", len(comments))
	}
	second := comments[0].Body
	want := "**Since the last push** (`111111111111`): fixed 1, introduced 1."
	if !strings.Contains(second, want) {
		t.Errorf("want %q in:\n%s", want, firstNLines(second, 20))
	}
	// The change comes first: the title and the comparison with main,
	// then the push.
	if i, j := strings.Index(second, "### plumb: "), strings.Index(second, want); i < 0 || j < i || strings.Index(second, "| engine |") > j {
		t.Errorf("the push line is not after the comparison with the base:\n%s", firstNLines(second, 20))
	}
	// One comment per line, whatever the pushes did.
	lines := map[string]bool{}
	for _, c := range h.srv.ReviewComments(7) {
		if c.InReplyTo != nil || c.Line == nil {
			continue
		}
		k := fmt.Sprintf("%s:%d", c.Path, *c.Line)
		if lines[k] {
			t.Errorf("two comments on %s", k)
		}
		lines[k] = true
	}
	if out := os.Getenv("PLUMB_SUMMARY_OUT"); out != "" {
		for name, body := range map[string]string{".push1": first, ".push2": second} {
			if err := os.WriteFile(out+name, []byte(firstNLines(visibleSummary(body), 30)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}

	// A rerun of the same head (the same workflow run, attempt 2): the
	// comment says the same about the previous push, and records the same.
	h.env["GITHUB_RUN_ATTEMPT"] = "2"
	h.run("42")
	got := h.srv.IssueComments(7)[0].Body
	if !strings.Contains(got, want) || firstNLines(got, 2) != firstNLines(second, 2) {
		t.Errorf("the rerun changed what the comment says about the push:\n%s", firstNLines(got, 20))
	}
}
