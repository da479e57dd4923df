package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/github/fakegithub"
)

// Helpers that run the binary as the GitHub Action, the way the runner
// starts a Docker action step, against the fake GitHub.

// writeTree writes files (slash-separated names relative to root).
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const (
	actionHeadSHA = "1111111111111111111111111111111111111111"
	actionBaseSHA = "2222222222222222222222222222222222222222"
)

// actionStep is one workflow step running plumb as the action on pull
// request #7 of acme/shop.
type actionStep struct {
	t      *testing.T
	srv    *fakegithub.Server
	ws     string // GITHUB_WORKSPACE
	runner string // the runner's files: event, outputs, job summary
	env    map[string]string
}

// newActionStep prepares a step in workspace ws; the pull request changes
// files.
func newActionStep(t *testing.T, ws string, files []fakegithub.File) *actionStep {
	t.Helper()
	srv := fakegithub.New("acme", "shop")
	t.Cleanup(srv.Close)
	srv.AddPR(&fakegithub.PR{Number: 7, HeadSHA: actionHeadSHA, BaseSHA: actionBaseSHA, Files: files})
	s := &actionStep{t: t, srv: srv, ws: ws, runner: t.TempDir()}
	event := filepath.Join(s.runner, "event.json")
	if err := os.WriteFile(event, []byte(fmt.Sprintf(`{"action": "synchronize", "number": 7, "pull_request": {"number": 7,
		"html_url": "https://github.com/acme/shop/pull/7",
		"head": {"ref": "feature", "sha": %q, "repo": {"full_name": "acme/shop"}},
		"base": {"ref": "main", "sha": %q, "repo": {"full_name": "acme/shop"}}},
		"repository": {"full_name": "acme/shop", "name": "shop", "owner": {"login": "acme"}}}`, actionHeadSHA, actionBaseSHA)), 0o644); err != nil {
		t.Fatal(err)
	}
	// What the runner sets for a Docker action step on a pull_request,
	// with action.yml's input defaults.
	s.env = map[string]string{
		"GITHUB_ACTIONS": "true", "CI": "true",
		"GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": event,
		"GITHUB_REPOSITORY": "acme/shop", "GITHUB_REPOSITORY_OWNER": "acme",
		"GITHUB_SHA": "3333333333333333333333333333333333333333", "GITHUB_REF": "refs/pull/7/merge",
		"GITHUB_HEAD_REF": "feature", "GITHUB_BASE_REF": "main",
		"GITHUB_SERVER_URL": "https://github.com", "GITHUB_API_URL": srv.URL,
		"GITHUB_RUN_ID": "41", "GITHUB_RUN_ATTEMPT": "1", "GITHUB_RUN_NUMBER": "12",
		"GITHUB_WORKSPACE": ws, "GITHUB_ACTOR": "alice", "GITHUB_WORKFLOW": "plumb", "GITHUB_JOB": "check",
		"GITHUB_OUTPUT": filepath.Join(s.runner, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(s.runner, "summary"),
		"INPUT_TOKEN": "write-token", "INPUT_PATHS": ".", "INPUT_CONFIG": "", "INPUT_CHECKS": "",
		"INPUT_RULES": "", "INPUT_REFERENCE": "", "INPUT_ENV": "", "INPUT_FAIL-ON": "error", "INPUT_BASE-REF": "",
		"INPUT_SARIF-FILE": "plumb.sarif", "INPUT_REPORT-FILE": "plumb-report.json",
		"INPUT_ANNOTATIONS": "true", "INPUT_REVIEW-COMMENTS": "true", "INPUT_SUMMARY-COMMENT": "true",
		"INPUT_JOB-SUMMARY": "true", "INPUT_POST-REPORT": "", "INPUT_POST-EVENT": "", "INPUT_CATEGORY": "",
	}
	return s
}

// stepResult is what one run of the step left behind.
type stepResult struct {
	proc
	summary  string // the job summary
	outputs  string // the GITHUB_OUTPUT file
	report   string // the JSON report the step wrote
	requests []fakegithub.Request
}

// run runs the binary with no arguments, as the runner does, in the
// workspace; stdout and stderr share one pipe, as in the step log.
func (s *actionStep) run() stepResult {
	s.t.Helper()
	s.srv.ResetRequests()
	for _, f := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"} {
		os.Remove(s.env[f])
	}
	if s.env["INPUT_POST-REPORT"] == "" {
		os.Remove(filepath.Join(s.ws, "plumb-report.json")) // the poster's input
	}
	env := make([]string, 0, len(s.env))
	for k, v := range s.env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	p := runBinary(s.t, procOptions{dir: s.ws, env: env, combined: true})
	res := stepResult{proc: p, requests: s.srv.Requests()}
	if b, err := os.ReadFile(s.env["GITHUB_STEP_SUMMARY"]); err == nil {
		res.summary = string(b)
	}
	if b, err := os.ReadFile(s.env["GITHUB_OUTPUT"]); err == nil {
		res.outputs = string(b)
	}
	if b, err := os.ReadFile(filepath.Join(s.ws, "plumb-report.json")); err == nil {
		res.report = string(b)
	}
	return res
}

// bodies joins the bodies of every request the fake GitHub received.
func (r stepResult) bodies() string {
	var b strings.Builder
	for _, req := range r.requests {
		b.WriteString(req.Method + " " + req.Path + "\n" + req.Body + "\n")
	}
	return b.String()
}
