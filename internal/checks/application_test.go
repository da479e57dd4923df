package checks

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// evalApplications runs `plumb checks eval` (default catalog) over
// testdata/eval/applications.yaml, edited by edit.
func evalApplications(t *testing.T, format string, env map[string]any, edit func(string) string) (code int, stdout, stderr string) {
	t.Helper()
	data, err := os.ReadFile("testdata/eval/applications.yaml")
	if err != nil {
		t.Fatal(err)
	}
	facts := filepath.Join(t.TempDir(), "applications.yaml")
	if err := os.WriteFile(facts, []byte(edit(string(data))), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	code = EvalCommand{Facts: facts, Env: env, Format: format, FailOn: "never"}.Run(context.Background(), &out, &errOut)
	return code, out.String(), strings.ReplaceAll(errOut.String(), facts, "applications.yaml")
}

func unchanged(s string) string { return s }

// A check over render targets compares the environments of each
// application (env.application, here per target) with each other only:
// api's differ, web's agree though they deploy other workloads than api's.
// The expectation fails as a whole (one Result); the text output names
// the application that differs.
func TestEvalComparesWithinApplications(t *testing.T) {
	code, out, errOut := evalApplications(t, "text", nil, unchanged)
	if code != 0 || strings.TrimSpace(errOut) != "plumb: applications.yaml:12:22: warning: check H10001 does not apply in the env of target tools "+
		"(its metadata or when filters it out), so it is not evaluated on it" {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	for _, want := range []string{
		"\nH10001 warning\n  expect_same same_workloads: false — The environments do not deploy the same workloads\n" +
			"    differ within application \"apps/api\"\n",
		`    apps/api/overlays/prod: same_workloads = ["CronJob/reindex","Deployment/api"]`,
		`    apps/web/overlays/prod: same_workloads = ["Deployment/web"]`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "tools") || strings.Contains(out, `application "apps/web"`) {
		t.Errorf("tools evaluated, or web reported:\n%s", out)
	}

	// api's environments agree too: the check passes, although web and
	// api deploy different workloads.
	agree := func(s string) string {
		return strings.Replace(s, `, {kind: CronJob, metadata: {name: reindex}}]`, `]`, 1)
	}
	_, js, _ := evalApplications(t, "json", nil, agree)
	r := evalRun{}
	if err := json.Unmarshal([]byte(js), &r.res); err != nil {
		t.Fatal(err)
	}
	cr := checkResult(t, r.res, "H10001")
	want(t, "check result", cr["result"], "passing")
	want(t, "ER", expectationResult(t, cr, "same_workloads")["result"], true)
	want(t, "targets", agentIDs(cr), []string{"apps/api/overlays/dev", "apps/api/overlays/prod", "apps/api/overlays/staging", "apps/web/overlays/dev", "apps/web/overlays/prod"})

	// --env application=... wins over the targets' env: one application,
	// whose five environments disagree.
	_, out, _ = evalApplications(t, "text", map[string]any{"application": "all"}, agree)
	if !strings.Contains(out, "expect_same same_workloads: false — The environments do not deploy the same workloads\n    differ within application \"all\"\n") {
		t.Errorf("one application:\n%s", out)
	}

	// Without applications, every environment is compared with every
	// other, as in Wanda; the text output names no application.
	noApps := func(s string) string {
		for _, a := range []string{", application: apps/web", ", application: apps/api"} {
			s = strings.ReplaceAll(agree(s), a, "")
		}
		return s
	}
	_, out, _ = evalApplications(t, "text", nil, noApps)
	if !strings.Contains(out, "expect_same same_workloads: false — The environments do not deploy the same workloads\n    apps/") {
		t.Errorf("without applications:\n%s", out)
	}
}

// A check over objects (and any check that is not over render targets)
// compares all its targets, whatever their applications: Wanda's E5 with
// per-target applications is still E5.
func TestEvalComparesObjectsAcrossApplications(t *testing.T) {
	facts := filepath.Join(t.TempDir(), "e5.yaml")
	if err := os.WriteFile(facts, []byte(`targets:
  a1: {id: agent_1, env: {application: a}}
  a2: {id: agent_2, env: {application: b}}
facts:
  expect_same_check:
    some_fact: {a1: true, a2: true}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	EvalCommand{Catalogs: []string{"testdata/eval/checks"}, Facts: facts, FailOn: "never"}.Run(context.Background(), &out, &errOut)
	r := evalRun{}
	if err := json.Unmarshal(out.Bytes(), &r.res); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	want(t, "ER", expectationResult(t, checkResult(t, r.res, "expect_same_check"), "some_expectation")["result"], true)
	if err := os.WriteFile(facts, []byte(`targets:
  a1: {id: agent_1, env: {application: a}}
  a2: {id: agent_2, env: {application: b}}
facts:
  expect_same_check:
    some_fact: {a1: true, a2: false}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	EvalCommand{Catalogs: []string{"testdata/eval/checks"}, Facts: facts, FailOn: "never"}.Run(context.Background(), &out, &errOut)
	if err := json.Unmarshal(out.Bytes(), &r.res); err != nil {
		t.Fatal(err)
	}
	want(t, "ER", expectationResult(t, checkResult(t, r.res, "expect_same_check"), "some_expectation")["result"], false)
}

// A target's env that is not a mapping is an error at its line.
func TestFakeFactsTargetEnvMustBeAMapping(t *testing.T) {
	_, diags := ParseFakeFacts("facts.yaml", []byte("targets:\n  a1: {id: x, env: [application]}\n  a2: {id: y, envs: {}}\n"))
	var got []string
	for _, d := range diags {
		got = append(got, d.String())
	}
	want := "facts.yaml:2:20: error: env of target a1 must be a mapping\n" +
		`facts.yaml:3:15: error: unknown key "envs" in target a2 (known keys: id, attributes, env, checks)`
	if strings.Join(got, "\n") != want {
		t.Errorf("diagnostics:\n%s", strings.Join(got, "\n"))
	}
}
