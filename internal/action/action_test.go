package action

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/github"
	"github.com/plumb-ci/plumb/internal/github/fakegithub"
	"github.com/plumb-ci/plumb/internal/report"
	"github.com/plumb-ci/plumb/internal/report/sarifcheck"
)

// The secret value in the workspace's Secret: it must appear nowhere.
const secretValue = "hunter2-do-not-leak"

// evilName is an object name built to break out of every output: a raw
// line break followed by workflow commands.
const evilName = `evil%0A::add-mask::leak\n::set-output name=approved::true`

// workspace writes a repository with known findings:
//
//	apps/web/configmap.yaml:9   duplicate-object (the second document), in the PR's diff
//	apps/web/secret.yaml:3      missing-name on a Secret
//	apps/api/cronjob.yaml:1     missing-api-version, in a changed file but outside its hunk
//	apps/::warning::evil.yaml:3 missing-name, in a file whose name is a workflow command
func workspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	files := map[string]string{
		"apps/web/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: web}]}\n",
		"apps/web/configmap.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"" + evilName + "\"\n  namespace: shop\ndata:\n  a: b\n---\n" +
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"" + evilName + "\"\n  namespace: shop\n",
		"apps/web/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  namespace: shop\nstringData:\n  password: " + secretValue + "\n",
		"apps/api/cronjob.yaml": "kind: CronJob\nmetadata:\n  name: nightly\nspec:\n  schedule: \"0 3 * * *\"\n" +
			"  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: OnFailure\n          containers: [{name: nightly, image: nightly}]\n",
		"apps/::warning::evil.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: shop\n",
		// These tests are about the action, not the checks catalog.
		"plumb.yaml": "checks:\n  default_catalog: false\n",
	}
	for name, content := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// The pull request: it adds lines 8-13 of configmap.yaml (the second
// document) and changes lines 2-3 of cronjob.yaml.
var prFiles = []fakegithub.File{
	{Filename: "apps/web/configmap.yaml", Status: "modified", Patch: "@@ -5,3 +5,9 @@ metadata:\n   namespace: shop\n data:\n   a: b\n+---\n+apiVersion: v1\n+kind: ConfigMap\n+metadata:\n+  name: \"x\"\n+  namespace: shop"},
	{Filename: "apps/api/cronjob.yaml", Status: "modified", Patch: "@@ -2,2 +2,2 @@\n-metadata: {}\n+metadata:\n+  name: nightly"},
	{Filename: "README.md", Status: "modified", Patch: "@@ -1 +1 @@\n-a\n+b"},
}

const (
	headSHA = "1111111111111111111111111111111111111111"
	baseSHA = "2222222222222222222222222222222222222222"
)

// harness runs the action against the fake GitHub.
type harness struct {
	t   *testing.T
	srv *fakegithub.Server
	ws  string
	dir string // runner files: event, outputs, summary
	env map[string]string
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessIn(t, workspace(t), prFiles)
}

// newHarnessIn runs the action in workspace ws on pull request #7, which
// changes files.
func newHarnessIn(t *testing.T, ws string, files []fakegithub.File) *harness {
	t.Helper()
	srv := fakegithub.New("acme", "shop")
	t.Cleanup(srv.Close)
	srv.AddPR(&fakegithub.PR{Number: 7, HeadSHA: headSHA, BaseSHA: baseSHA, Files: files})
	h := &harness{t: t, srv: srv, ws: ws, dir: t.TempDir()}
	h.writeEvent("event.json", pullRequestEvent("acme/shop"))
	// What the runner sets for a Docker action step on a pull_request.
	h.env = map[string]string{
		"GITHUB_ACTIONS": "true", "CI": "true",
		"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": filepath.Join(h.dir, "event.json"),
		"GITHUB_REPOSITORY": "acme/shop", "GITHUB_REPOSITORY_OWNER": "acme",
		"GITHUB_SHA": "3333333333333333333333333333333333333333", "GITHUB_REF": "refs/pull/7/merge",
		"GITHUB_HEAD_REF": "feature", "GITHUB_BASE_REF": "main",
		"GITHUB_SERVER_URL": "https://github.com", "GITHUB_API_URL": srv.URL,
		"GITHUB_RUN_ID": "41", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_RUN_NUMBER": "12",
		"GITHUB_WORKSPACE": h.ws, "GITHUB_ACTOR": "alice", "GITHUB_WORKFLOW": "plumb", "GITHUB_JOB": "check",
		// Inputs with action.yml's defaults, as the runner passes them.
		"INPUT_TOKEN": "write-token", "INPUT_PATHS": "apps", "INPUT_CONFIG": filepath.Join(h.ws, "plumb.yaml"), "INPUT_CHECKS": "",
		"INPUT_RULES": "", "INPUT_REFERENCE": "", "INPUT_ENV": "", "INPUT_FAIL-ON": "error", "INPUT_BASE-REF": "",
		"INPUT_SARIF-FILE": "plumb.sarif", "INPUT_REPORT-FILE": "plumb-report.json",
		"INPUT_ANNOTATIONS": "true", "INPUT_REVIEW-COMMENTS": "true", "INPUT_SUMMARY-COMMENT": "true",
		"INPUT_JOB-SUMMARY": "true", "INPUT_POST-REPORT": "", "INPUT_POST-EVENT": "", "INPUT_CATEGORY": "",
	}
	return h
}

func pullRequestEvent(headRepo string) string {
	return fmt.Sprintf(`{"action": "synchronize", "number": 7, "pull_request": {"number": 7,
		"html_url": "https://github.com/acme/shop/pull/7",
		"head": {"ref": "feature", "sha": %q, "repo": {"full_name": %q}},
		"base": {"ref": "main", "sha": %q, "repo": {"full_name": "acme/shop"}}},
		"repository": {"full_name": "acme/shop", "name": "shop", "owner": {"login": "acme"}}}`, headSHA, headRepo, baseSHA)
}

func (h *harness) writeEvent(name, content string) string {
	p := filepath.Join(h.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

type runResult struct {
	code     int
	stdout   string
	outputs  map[string]string
	summary  string
	requests []fakegithub.Request
}

// run runs the action once as workflow run runID.
func (h *harness) run(runID string) runResult {
	h.t.Helper()
	h.env["GITHUB_RUN_ID"] = runID
	h.env["GITHUB_OUTPUT"] = filepath.Join(h.dir, "output-"+runID)
	h.env["GITHUB_STEP_SUMMARY"] = filepath.Join(h.dir, "summary-"+runID)
	h.srv.ResetRequests()
	var stdout bytes.Buffer
	env := Env{
		LookupEnv: func(k string) (string, bool) { v, ok := h.env[k]; return v, ok },
		Stdout:    &stdout,
		Clock:     h.srv.Clock,
	}
	code := Run(context.Background(), env)
	res := runResult{code: code, stdout: stdout.String(), requests: h.srv.Requests(), outputs: map[string]string{}}
	if b, err := os.ReadFile(h.env["GITHUB_OUTPUT"]); err == nil {
		res.outputs = parseOutputs(h.t, string(b))
	}
	if b, err := os.ReadFile(h.env["GITHUB_STEP_SUMMARY"]); err == nil {
		res.summary = string(b)
	}
	return res
}

// parseOutputs reads the GITHUB_OUTPUT file: name<<DELIMITER, the value's
// lines, DELIMITER.
func parseOutputs(t *testing.T, s string) map[string]string {
	t.Helper()
	out := map[string]string{}
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			if lines[i] != "" {
				t.Errorf("outputs file: unexpected line %q", lines[i])
			}
			continue
		}
		var value []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			value = append(value, lines[i])
		}
		out[name] = strings.Join(value, "\n")
	}
	return out
}

func requestLines(rs []fakegithub.Request) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

// requestOf returns the request the fake received as line (method and
// path), failing the test when there is none.
func requestOf(t *testing.T, rs []fakegithub.Request, line string) fakegithub.Request {
	t.Helper()
	for _, r := range rs {
		if r.String() == line {
			return r
		}
	}
	t.Fatalf("no request %s among\n%s", line, strings.Join(requestLines(rs), "\n"))
	return fakegithub.Request{}
}

func assertRequests(t *testing.T, got []fakegithub.Request, want ...string) {
	t.Helper()
	if g := requestLines(got); strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n  %s\nwant:\n  %s", strings.Join(g, "\n  "), strings.Join(want, "\n  "))
	}
}

// commandLines returns the workflow commands printed outside the
// stop-commands block (the runner ignores commands inside it).
func commandLines(t *testing.T, stdout string) []string {
	t.Helper()
	var cmds []string
	stopped := ""
	for _, line := range strings.Split(stdout, "\n") {
		if stopped != "" {
			if line == "::"+stopped+"::" {
				stopped = ""
			}
			continue
		}
		if tok, ok := strings.CutPrefix(line, "::stop-commands::"); ok {
			stopped = tok
			cmds = append(cmds, "::stop-commands::")
			continue
		}
		if strings.HasPrefix(line, "::") {
			cmds = append(cmds, line)
		}
	}
	if stopped != "" {
		t.Error("stop-commands was never ended")
	}
	return cmds
}

func TestActionEndToEndOnAPullRequest(t *testing.T) {
	h := newHarness(t)

	// First run: everything is created.
	r := h.run("41")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (errors at fail-on error)\n%s", r.code, r.stdout)
	}
	assertRequests(t, r.requests,
		"GET /repos/acme/shop/pulls/7/files?per_page=100",
		"GET /repos/acme/shop/pulls/7/comments?per_page=100",
		// Just before writing: the head, and whether a run for the same
		// head has reviewed meanwhile.
		"GET /repos/acme/shop/pulls/7",
		"GET /repos/acme/shop/pulls/7/reviews?per_page=100",
		"POST /repos/acme/shop/pulls/7/reviews",
		"GET /repos/acme/shop/issues/7/comments?per_page=100",
		"GET /repos/acme/shop/pulls/7",
		"POST /repos/acme/shop/issues/7/comments",
		// After creating the summary: listed again, to keep exactly one.
		"GET /repos/acme/shop/issues/7/comments?per_page=100",
	)
	// The review has exactly the one finding inside a hunk, on the head
	// commit, on line 9 of configmap.yaml.
	var review struct {
		CommitID string `json:"commit_id"`
		Event    string `json:"event"`
		Comments []struct {
			Path string `json:"path"`
			Line int    `json:"line"`
			Side string `json:"side"`
			Body string `json:"body"`
		} `json:"comments"`
	}
	if err := json.Unmarshal([]byte(requestOf(t, r.requests, "POST /repos/acme/shop/pulls/7/reviews").Body), &review); err != nil {
		t.Fatal(err)
	}
	if review.CommitID != headSHA || review.Event != "COMMENT" || len(review.Comments) != 1 ||
		review.Comments[0].Path != "apps/web/configmap.yaml" || review.Comments[0].Line != 9 || review.Comments[0].Side != "RIGHT" {
		t.Errorf("review %+v", review)
	}
	if !strings.Contains(review.Comments[0].Body, "`manifest/duplicate-object`") {
		t.Errorf("comment body %q", review.Comments[0].Body)
	}

	// Workflow commands: the token masked first, then the report in a
	// stop-commands block, then the annotations; nothing else.
	cmds := commandLines(t, r.stdout)
	if !strings.HasPrefix(r.stdout, "::add-mask::write-token\n") {
		t.Errorf("the token is not masked before anything else:\n%s", firstLines(r.stdout, 3))
	}
	wantCmds := []string{
		"::add-mask::write-token",
		"::group::plumb report",
		"::stop-commands::",
		"::endgroup::",
		"::error title=Missing metadata.name (manifest/missing-name),file=apps/%3A%3Awarning%3A%3Aevil.yaml,line=3,",
		"::error title=Missing apiVersion (manifest/missing-api-version),file=apps/api/cronjob.yaml,line=1,",
		"::error title=Object defined twice (manifest/duplicate-object),file=apps/web/configmap.yaml,line=9,",
		"::error title=Missing metadata.name (manifest/missing-name),file=apps/web/secret.yaml,line=3,",
	}
	if len(cmds) != len(wantCmds) {
		t.Fatalf("commands:\n%s", strings.Join(cmds, "\n"))
	}
	for i, want := range wantCmds {
		if !strings.HasPrefix(cmds[i], want) {
			t.Errorf("command %d:\n  %s\nwant prefix\n  %s", i, cmds[i], want)
		}
	}
	// The injection attempts are inert text inside the messages.
	if !strings.Contains(cmds[6], "evil%250A::add-mask::leak%0A::set-output name=approved::true") {
		t.Errorf("duplicate-object annotation: %s", cmds[6])
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(line, "::set-output") || strings.HasPrefix(line, "::add-mask::leak") || strings.HasPrefix(line, "::warning::evil") {
			t.Errorf("injected command: %s", line)
		}
	}

	// Outputs.
	wantOut := map[string]string{"findings": "4", "errors": "4", "warnings": "0", "new": "0", "sarif-file": "plumb.sarif", "report-file": "plumb-report.json"}
	for k, v := range wantOut {
		if r.outputs[k] != v {
			t.Errorf("output %s = %q, want %q (all: %v)", k, r.outputs[k], v, r.outputs)
		}
	}

	// The job summary: the same Markdown, links to the head commit, notes.
	for _, want := range []string{
		"### plumb: 4 errors",
		"Commit `111111111111` · [workflow run](https://github.com/acme/shop/actions/runs/41)",
		"[`apps/web/configmap.yaml:9:1`](https://github.com/acme/shop/blob/" + headSHA + "/apps/web/configmap.yaml#L9)",
		"Review comments: 1 posted. 3 findings are on lines this pull request did not change",
		"[Summary comment](https://github.com/acme/shop/pull/7#issuecomment-",
	} {
		if !strings.Contains(r.summary, want) {
			t.Errorf("job summary lacks %q:\n%s", want, r.summary)
		}
	}

	// The summary comment: marker first, the same findings.
	comments := h.srv.IssueComments(7)
	if len(comments) != 1 || !strings.HasPrefix(comments[0].Body, "<!-- plumb:summary -->\n### plumb: 4 errors") {
		t.Fatalf("summary comments %+v", comments)
	}
	if !strings.Contains(comments[0].Body, "Review comments: 1 posted.") || !strings.Contains(comments[0].Body, "#### Findings") {
		t.Errorf("summary comment:\n%s", comments[0].Body)
	}

	// The SARIF and JSON files.
	sarifPath := filepath.Join(h.ws, "plumb.sarif")
	data, err := os.ReadFile(sarifPath)
	if err != nil {
		t.Fatal(err)
	}
	if errs := sarifcheck.Validate(data); len(errs) > 0 {
		t.Errorf("SARIF: %v", errs)
	}
	if !bytes.Contains(data, []byte(`"uri": "apps/web/configmap.yaml"`)) || !bytes.Contains(data, []byte(`"uri": "apps/%3A%3Awarning%3A%3Aevil.yaml"`)) {
		t.Errorf("SARIF locations:\n%s", data)
	}
	sarifcheck.Multitool(t, sarifPath)
	report, err := os.ReadFile(filepath.Join(h.ws, "plumb-report.json"))
	if err != nil || !bytes.Contains(report, []byte(`"rule_id": "manifest/duplicate-object"`)) {
		t.Errorf("JSON report: %v", err)
	}

	// No secret value anywhere.
	everything := r.stdout + r.summary + string(data) + string(report) + comments[0].Body
	for _, req := range r.requests {
		everything += req.Body
	}
	if strings.Contains(everything, secretValue) {
		t.Error("the Secret's value leaked")
	}

	// Second run of the same commit: the summary is edited in place, no
	// comment is posted twice.
	r2 := h.run("42")
	if r2.code != 1 {
		t.Fatalf("second run exit %d", r2.code)
	}
	// plumb's marked comments are there: it asks GitHub once who it is.
	assertRequests(t, r2.requests,
		"GET /repos/acme/shop/pulls/7/files?per_page=100",
		"GET /repos/acme/shop/pulls/7/comments?per_page=100",
		"POST /graphql viewer",
		"GET /repos/acme/shop/issues/7/comments?per_page=100",
		"GET /repos/acme/shop/pulls/7",
		fmt.Sprintf("PATCH /repos/acme/shop/issues/comments/%d", comments[0].ID),
	)
	if n := len(h.srv.ReviewComments(7)); n != 1 {
		t.Errorf("%d review comments after two runs, want 1", n)
	}
	after := h.srv.IssueComments(7)
	if len(after) != 1 || !strings.Contains(after[0].Body, "actions/runs/42") {
		t.Errorf("summary after the second run: %+v", after)
	}
	if !strings.Contains(r2.summary, "Review comments: 1 already there.") || !strings.Contains(r2.summary, ") updated.") {
		t.Errorf("second job summary notes:\n%s", r2.summary)
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

func TestActionOnAForkDegradesToAnnotationsAndJobSummary(t *testing.T) {
	h := newHarness(t)
	h.writeEvent("event.json", pullRequestEvent("mallory/shop"))
	h.env["INPUT_TOKEN"] = "read-token"
	r := h.run("41")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1: posting failures must not change it\n%s", r.code, r.stdout)
	}
	// It tried the review, got 403, and stopped: no summary attempt, no
	// deletes, no retries of a permission error.
	assertRequests(t, r.requests,
		"GET /repos/acme/shop/pulls/7/files?per_page=100",
		"GET /repos/acme/shop/pulls/7/comments?per_page=100",
		"GET /repos/acme/shop/pulls/7",
		"GET /repos/acme/shop/pulls/7/reviews?per_page=100",
		"POST /repos/acme/shop/pulls/7/reviews",
	)
	notices := 0
	for _, c := range commandLines(t, r.stdout) {
		if strings.HasPrefix(c, "::notice title=plumb::plumb could not post") {
			notices++
			if !strings.Contains(c, "pull requests from forks get a read-only token") {
				t.Errorf("notice: %s", c)
			}
		}
	}
	if notices != 1 {
		t.Errorf("%d degradation notices, want exactly 1", notices)
	}
	if !strings.Contains(r.summary, "plumb could not post to pull request #7") || !strings.Contains(r.summary, "#### Findings") {
		t.Errorf("job summary:\n%s", r.summary)
	}
	if strings.Count(r.stdout, " (manifest/") != 4 {
		t.Error("annotations missing")
	}
	if r.outputs["findings"] != "4" {
		t.Errorf("outputs %v", r.outputs)
	}
}

func TestActionRetriesASecondaryRateLimit(t *testing.T) {
	h := newHarness(t)
	h.srv.Inject(fakegithub.Fault{Method: "POST", Path: `/pulls/7/reviews$`, Count: 1, Status: 403,
		Header: map[string]string{"Retry-After": "30"}, Body: `{"message":"You have exceeded a secondary rate limit."}`})
	r := h.run("41")
	assertRequests(t, r.requests,
		"GET /repos/acme/shop/pulls/7/files?per_page=100",
		"GET /repos/acme/shop/pulls/7/comments?per_page=100",
		"GET /repos/acme/shop/pulls/7",
		"GET /repos/acme/shop/pulls/7/reviews?per_page=100",
		"POST /repos/acme/shop/pulls/7/reviews",
		"POST /repos/acme/shop/pulls/7/reviews",
		"GET /repos/acme/shop/issues/7/comments?per_page=100",
		"GET /repos/acme/shop/pulls/7",
		"POST /repos/acme/shop/issues/7/comments",
		"GET /repos/acme/shop/issues/7/comments?per_page=100",
	)
	if len(h.srv.ReviewComments(7)) != 1 || strings.Contains(r.stdout, "could not post") {
		t.Error("the retried review did not land")
	}
	waited := false
	for _, d := range h.srv.Clock.Slept() {
		waited = waited || d.Seconds() == 30
	}
	if !waited {
		t.Errorf("Retry-After not honoured: %v", h.srv.Clock.Slept())
	}
}

func TestActionOnPushReportsWithoutTheAPI(t *testing.T) {
	h := newHarness(t)
	h.env["GITHUB_EVENT_NAME"] = "push"
	h.env["GITHUB_REF"] = "refs/heads/main"
	h.writeEvent("event.json", `{"ref": "refs/heads/main", "after": "3333333333333333333333333333333333333333"}`)
	r := h.run("41")
	if r.code != 1 || len(r.requests) != 0 {
		t.Fatalf("exit %d, requests %v", r.code, requestLines(r.requests))
	}
	if !strings.Contains(r.summary, "https://github.com/acme/shop/blob/3333333333333333333333333333333333333333/apps/web/configmap.yaml#L9") {
		t.Errorf("job summary links:\n%s", r.summary)
	}
}

func TestActionSwitches(t *testing.T) {
	h := newHarness(t)
	for k, v := range map[string]string{"INPUT_ANNOTATIONS": "false", "INPUT_REVIEW-COMMENTS": "false", "INPUT_SUMMARY-COMMENT": "False",
		"INPUT_JOB-SUMMARY": "FALSE", "INPUT_SARIF-FILE": "", "INPUT_FAIL-ON": "never"} {
		h.env[k] = v
	}
	r := h.run("41")
	if r.code != 0 || len(r.requests) != 0 || r.summary != "" {
		t.Fatalf("exit %d, requests %v, summary %q", r.code, requestLines(r.requests), r.summary)
	}
	if strings.Contains(r.stdout, "::error title=manifest") {
		t.Error("annotations printed with annotations: false")
	}
	if _, err := os.Stat(filepath.Join(h.ws, "plumb.sarif")); err == nil {
		t.Error("a SARIF file with sarif-file: ''")
	}
	if r.outputs["sarif-file"] != "" || r.outputs["findings"] != "4" {
		t.Errorf("outputs %v", r.outputs)
	}
}

func TestActionRejectsBadInputs(t *testing.T) {
	for name, c := range map[string]struct {
		env  map[string]string
		want []string
	}{
		"bad boolean":    {map[string]string{"INPUT_ANNOTATIONS": "yes"}, []string{`::error title=plumb::input "annotations" is "yes": want true or false`}},
		"bad fail-on":    {map[string]string{"INPUT_FAIL-ON": "sometimes"}, []string{`fail-on "sometimes": want error, warning or never`}},
		"missing config": {map[string]string{"INPUT_CONFIG": "nope.yaml"}, []string{"--config nope.yaml: the file does not exist"}},
		"post without event": {map[string]string{"INPUT_POST-REPORT": "r.json"},
			[]string{`input "post-report" needs "post-event"`}},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			for k, v := range c.env {
				h.env[k] = v
			}
			r := h.run("41")
			if r.code != 2 || len(r.requests) != 0 {
				t.Errorf("exit %d, requests %v", r.code, requestLines(r.requests))
			}
			for _, w := range c.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, r.stdout)
				}
			}
		})
	}
}

func TestActionWithABrokenEventStillReports(t *testing.T) {
	h := newHarness(t)
	h.writeEvent("event.json", `{"pull_request": `)
	r := h.run("41")
	if r.code != 1 || len(r.requests) != 0 {
		t.Fatalf("exit %d, requests %v", r.code, requestLines(r.requests))
	}
	if !strings.Contains(r.stdout, "::warning title=plumb::the event payload ") || !strings.Contains(r.summary, "### plumb: 4 errors") {
		t.Errorf("stdout:\n%s\nsummary:\n%s", r.stdout, r.summary)
	}
}

func TestActionUnwritableOutputIsAnInputError(t *testing.T) {
	h := newHarness(t)
	h.env["INPUT_SARIF-FILE"] = "no/such/dir/plumb.sarif"
	r := h.run("41")
	if r.code != 2 || !strings.Contains(r.stdout, "::error title=plumb::writing the sarif report to ") {
		t.Fatalf("exit %d\n%s", r.code, r.stdout)
	}
	if r.outputs["sarif-file"] != "" || r.outputs["report-file"] != "plumb-report.json" || len(h.srv.IssueComments(7)) != 1 {
		t.Errorf("outputs %v; the other surfaces should still report", r.outputs)
	}
}

// A file of the repository that does not parse is a finding like any
// other: reported on every surface, and the run fails by --fail-on (exit 1),
// not with exit 2.
func TestActionBrokenFileIsAFindingAndStillReports(t *testing.T) {
	h := newHarness(t)
	if err := os.WriteFile(filepath.Join(h.ws, "apps/web/broken.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := h.run("41")
	if r.code != 1 {
		t.Fatalf("exit %d", r.code)
	}
	if !strings.Contains(r.stdout, "::error title=YAML syntax error (manifest/yaml-syntax),file=apps/web/broken.yaml,line=3") || r.outputs["errors"] != "5" {
		t.Errorf("stdout:\n%s\noutputs %v", r.stdout, r.outputs)
	}
	if len(h.srv.IssueComments(7)) != 1 {
		t.Error("no summary comment")
	}
}

// The fork-safe pattern: the pull_request run saved its report and event;
// a workflow_run run posts them after checking the pull request's head.
func TestActionPostsASavedReportFromWorkflowRun(t *testing.T) {
	h := newHarness(t)
	// The analysis run (read-only, as on a fork) writes the report.
	h.env["INPUT_TOKEN"] = "read-token"
	h.env["INPUT_REVIEW-COMMENTS"] = "false"
	h.env["INPUT_SUMMARY-COMMENT"] = "false"
	if r := h.run("41"); r.code != 1 || len(r.requests) != 0 {
		t.Fatalf("analysis: exit %d, %v", r.code, requestLines(r.requests))
	}
	// GitHub lists each changed file's blob id; the poster's workspace has
	// only the artifact, so it cannot compare them and must not take every
	// file for stale.
	files := slices.Clone(prFiles)
	for i := range files {
		if content, err := os.ReadFile(filepath.Join(h.ws, files[i].Filename)); err == nil {
			files[i].SHA = github.BlobID(content)
		}
	}
	h.srv.AddPR(&fakegithub.PR{Number: 7, HeadSHA: headSHA, BaseSHA: baseSHA, Files: files})
	artifact := t.TempDir()
	copyFile(t, filepath.Join(h.ws, "plumb-report.json"), filepath.Join(artifact, "plumb-report.json"))
	copyFile(t, h.env["GITHUB_EVENT_PATH"], filepath.Join(artifact, "pr-event.json"))

	// The poster: a workflow_run event in the base repository, with a write
	// token, in a workspace holding only the artifact.
	poster := func(headSHA string) runResult {
		h.env["INPUT_TOKEN"] = "write-token"
		h.env["INPUT_REVIEW-COMMENTS"] = "true"
		h.env["INPUT_SUMMARY-COMMENT"] = "true"
		h.env["GITHUB_EVENT_NAME"] = "workflow_run"
		h.env["GITHUB_WORKSPACE"] = artifact
		h.env["INPUT_POST-REPORT"] = "plumb-report.json"
		h.env["INPUT_POST-EVENT"] = "pr-event.json"
		h.env["GITHUB_EVENT_PATH"] = h.writeEvent("workflow_run.json",
			fmt.Sprintf(`{"action": "completed", "workflow_run": {"id": 41, "event": "pull_request", "head_sha": %q, "pull_requests": []}}`, headSHA))
		return h.run("50")
	}
	r := poster(headSHA)
	if r.code != 0 {
		t.Fatalf("poster exit %d\n%s", r.code, r.stdout)
	}
	assertRequests(t, r.requests,
		"GET /repos/acme/shop/pulls/7",
		"GET /repos/acme/shop/pulls/7/files?per_page=100",
		"GET /repos/acme/shop/pulls/7/comments?per_page=100",
		"GET /repos/acme/shop/pulls/7",
		"GET /repos/acme/shop/pulls/7/reviews?per_page=100",
		"POST /repos/acme/shop/pulls/7/reviews",
		"GET /repos/acme/shop/issues/7/comments?per_page=100",
		"GET /repos/acme/shop/pulls/7",
		"POST /repos/acme/shop/issues/7/comments",
		"GET /repos/acme/shop/issues/7/comments?per_page=100",
	)
	if len(h.srv.ReviewComments(7)) != 1 || r.outputs["findings"] != "4" || r.outputs["report-file"] != "plumb-report.json" {
		t.Errorf("outputs %v", r.outputs)
	}

	// An artifact that does not belong to the run's head is not posted.
	r = poster("9999999999999999999999999999999999999999")
	assertRequests(t, r.requests, "GET /repos/acme/shop/pulls/7")
	if !strings.Contains(r.stdout, "::warning title=plumb::not posting to pull request #7: its head is 111111111111 but the reported run built 999999999999") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	if r.code != 0 || !strings.Contains(r.summary, "### plumb: 4 errors") {
		t.Errorf("exit %d; the job summary should still report", r.code)
	}

	// A broken artifact is an input error.
	if err := os.WriteFile(filepath.Join(artifact, "plumb-report.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = poster(headSHA)
	if r.code != 2 || !strings.Contains(r.stdout, "::error title=plumb::post-report plumb-report.json: not a plumb JSON report") {
		t.Errorf("exit %d\n%s", r.code, r.stdout)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDetected(t *testing.T) {
	if !Detected([]string{"GITHUB_ACTIONS=true", "INPUT_PATHS=."}) {
		t.Error("an action step was not detected")
	}
	if Detected([]string{"GITHUB_ACTIONS=true"}) || Detected([]string{"INPUT_PATHS=."}) {
		t.Error("a run: step or a shell was taken for an action step")
	}
}

// GitHub shows 10 error, 10 warning and 10 notice annotations per step,
// counting the runner's own commands too: the notice that posting failed
// and the warning about an unreadable event take slots the findings'
// annotations then leave free, so none of them vanishes unannounced.
func TestActionAnnotationsShareTheCapsWithItsOwnCommands(t *testing.T) {
	h := newHarness(t)
	h.env["INPUT_TOKEN"] = "read-token" // posting fails: one notice
	for i := range 12 {
		// An error (no name) and a note (an ignore annotation that
		// matches nothing) per file.
		if err := os.WriteFile(filepath.Join(h.ws, "apps", fmt.Sprintf("extra-%02d.yaml", i)), []byte(fmt.Sprintf(
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: shop\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\n  namespace: shop\n  annotations:\n    plumb.dev/ignore: check/NOPE\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := h.run("41")
	count := map[string]int{}
	for _, c := range commandLines(t, r.stdout) {
		name, _, _ := strings.Cut(strings.TrimPrefix(c, "::"), " ")
		name, _, _ = strings.Cut(name, "::")
		count[name]++
	}
	if count["error"] != 10 || count["notice"] != 10 {
		t.Errorf("workflow commands %v: want 10 errors and 10 notices (the failure notice, 8 notes, the counting notice)", count)
	}
	cmds := commandLines(t, r.stdout)
	if !strings.Contains(cmds[len(cmds)-1], "more findings are not shown as annotations (6 errors, 4 notes)") {
		t.Errorf("the last command should count what was left out: %s", cmds[len(cmds)-1])
	}
	if !strings.Contains(r.stdout, "::notice title=plumb::plumb could not post") {
		t.Error("no notice that posting failed")
	}
}

// The runner takes at most 1 MiB of job summary per step; a step that
// already wrote close to that gets a warning instead of plumb's summary.
func TestActionJobSummaryStaysWithinTheStepLimit(t *testing.T) {
	h := newHarness(t)
	h.env["INPUT_REVIEW-COMMENTS"] = "false"
	h.env["INPUT_SUMMARY-COMMENT"] = "false"
	for _, used := range []int{stepSummaryLimit - 3000, stepSummaryLimit - 20000} {
		path := filepath.Join(h.dir, "summary-41") // the file run("41") hands the action
		if err := os.WriteFile(path, bytes.Repeat([]byte("x"), used), 0o644); err != nil {
			t.Fatal(err)
		}
		r := h.run("41")
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > stepSummaryLimit {
			t.Errorf("with %d bytes used the job summary grew to %d bytes", used, st.Size())
		}
		full := strings.Contains(r.stdout, "::warning title=plumb::the job summary already holds")
		if full != (used == stepSummaryLimit-3000) {
			t.Errorf("with %d bytes used: warning %v\n%s", used, full, r.stdout)
		}
		if !full && !strings.Contains(r.summary, "### plumb: 4 errors") {
			t.Errorf("with %d bytes used: no summary", used)
		}
	}
}

// Code scanning keeps one set of alerts per tool and category, and
// upload-sarif's category input only fills in a run without one: the
// category input is how two plumb jobs keep their alerts apart.
func TestActionSARIFCategory(t *testing.T) {
	h := newHarness(t)
	h.env["INPUT_REVIEW-COMMENTS"] = "false"
	h.env["INPUT_SUMMARY-COMMENT"] = "false"
	for input, want := range map[string]string{"": "plumb/", "plumb/apps": "plumb/apps/", "infra/": "infra/"} {
		h.env["INPUT_CATEGORY"] = input
		h.run("41")
		data, err := os.ReadFile(filepath.Join(h.ws, "plumb.sarif"))
		if err != nil {
			t.Fatal(err)
		}
		var log struct {
			Runs []struct {
				AutomationDetails struct{ ID string } `json:"automationDetails"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(data, &log); err != nil || len(log.Runs) != 1 {
			t.Fatalf("%v %s", err, data)
		}
		if got := log.Runs[0].AutomationDetails.ID; got != want {
			t.Errorf("category input %q: runAutomationDetails.id %q, want %q", input, got, want)
		}
	}
}

// A report posted from an artifact comes from the fork: a base commit that
// is not a commit id does not go into the summary's links.
func TestActionPostedReportCannotForgeLinks(t *testing.T) {
	rep := &report.Report{Sections: map[string]any{"diff": json.RawMessage(`{"base_ref": "x", "base_commit": "abc) [click](https://evil.example", "targets": []}`)}}
	if got := baseCommit(rep); got != "" {
		t.Errorf("base commit %q used in links", got)
	}
	rep.Sections["diff"] = json.RawMessage(`{"base_ref": "x", "base_commit": "` + baseSHA + `", "targets": []}`)
	if got := baseCommit(rep); got != baseSHA {
		t.Errorf("base commit %q, want %s", got, baseSHA)
	}
}

// On pull_request events the checkout is the merge of the head into the
// base branch. Where that is not the head's version of a changed file (the
// base branch changed it too), findings' lines may not be the head's: they
// are not commented, and the summary says why.
func TestActionDoesNotCommentWhereTheCheckoutIsNotTheHead(t *testing.T) {
	for _, c := range []struct {
		name   string
		sha    func(content []byte) string
		posted int
	}{
		{"the head's version", github.BlobID, 1},
		{"a merge with a newer base", func([]byte) string { return "0123456789012345678901234567890123456789" }, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t)
			content, err := os.ReadFile(filepath.Join(h.ws, "apps/web/configmap.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			files := slices.Clone(prFiles)
			files[0].SHA = c.sha(content)
			// Stale too, but without findings: not worth a mention.
			files = append(files, fakegithub.File{Filename: "apps/web/deployment.yaml", Status: "modified",
				Patch: "@@ -1 +1 @@\n-x\n+apiVersion: apps/v1", SHA: "0123456789012345678901234567890123456789"})
			h.srv.AddPR(&fakegithub.PR{Number: 7, HeadSHA: headSHA, BaseSHA: baseSHA, Files: files})
			r := h.run("41")
			if n := len(h.srv.ReviewComments(7)); n != c.posted {
				t.Errorf("%d review comments, want %d", n, c.posted)
			}
			note := strings.Contains(r.summary, "Not commented: 1 changed file (apps/web/configmap.yaml) is not the pull request's head version in this checkout")
			if note != (c.posted == 0) {
				t.Errorf("note in the job summary: %v\n%s", note, r.summary)
			}
		})
	}
}
