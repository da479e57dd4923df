package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDemoReportsCheckFindingsAtTheLines(t *testing.T) {
	code, out, errOut := plumb(t, "check", "--root", "../..", "../../fixtures/demo")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"fixtures/demo/web/deployment.yaml:20:11: error: image nginx:latest is not pinned: use a version tag or a digest instead of latest [check/C10001]",
		"fixtures/demo/web/deployment.yaml:20:11: warning: image nginx:latest does not name its registry, so the runtime picks one (Docker Hub for most) [check/C10002]",
		"fixtures/demo/web/deployment.yaml:9:3: warning: runs 3 replicas but no PodDisruptionBudget selects its pods: a node drain can evict them all at once [check/E10002]",
		"fixtures/demo/web/deployment.yaml:19:11: error: container web has no memory limit (resources.limits.memory) [check/A10003]",
		"fixtures/demo/worker/cronjob.yaml:14:15: warning: container report has no CPU request (resources.requests.cpu) [check/A10001]",
		"fixtures/demo/worker/cronjob.yaml:3:1: warning: metadata.labels has no app.kubernetes.io/name [check/L10001]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The api container sets its resources: no resource finding there.
	if strings.Contains(out, "container api has no memory limit") {
		t.Error("api reported without a memory limit")
	}
}

// checksSection is the JSON report's checks section, both detail levels.
type checksSection struct {
	ExecutionID  string  `json:"execution_id"`
	Result       string  `json:"result"`
	Detail       *string `json:"detail"`
	CheckResults []struct {
		CheckID            string            `json:"check_id"`
		Result             string            `json:"result"`
		AgentsCheckResults []json.RawMessage `json:"agents_check_results"`
		AgentsPassed       *int              `json:"agents_passed"`
		AgentsExcluded     *int              `json:"agents_excluded"`
		ExpectationResults []json.RawMessage `json:"expectation_results"`
	} `json:"check_results"`
	Timeout []string `json:"timeout"`
}

// demoChecksSection runs the demo with the extra arguments and returns
// its checks section and rule ids.
func demoChecksSection(t *testing.T, args ...string) (checksSection, map[string]bool) {
	t.Helper()
	_, out, _ := plumb(t, append([]string{"check", "--root", "../..", "../../fixtures/demo", "--format", "json", "--reproducible"}, args...)...)
	var rep struct {
		Checks checksSection         `json:"checks"`
		Rules  []struct{ ID string } `json:"rule_descriptors"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	c := rep.Checks
	if c.ExecutionID == "" || c.Result != "critical" || len(c.CheckResults) < 20 || c.Timeout == nil {
		t.Fatalf("checks section: %+v", c)
	}
	rules := map[string]bool{}
	for _, r := range rep.Rules {
		rules[r.ID] = true
	}
	return c, rules
}

// c10001Target is a per-target result of C10001 (two expectations).
type c10001Target struct {
	AgentID     string            `json:"agent_id"`
	Facts       []json.RawMessage `json:"facts"`
	Evaluations []struct {
		ReturnValue any `json:"return_value"`
	} `json:"expectation_evaluations"`
}

func (a c10001Target) passed() bool {
	return a.Evaluations[0].ReturnValue == true && a.Evaluations[1].ReturnValue == true
}

func readC10001Target(t *testing.T, raw json.RawMessage) c10001Target {
	t.Helper()
	var a c10001Target
	if err := json.Unmarshal(raw, &a); err != nil || a.Facts == nil || len(a.Evaluations) != 2 {
		t.Fatalf("C10001 agent %s (%v)", raw, err)
	}
	return a
}

// By default the section is Wanda's Result with each check's failing
// targets in full and the passing ones counted.
func TestChecksSectionIsTheWandaResult(t *testing.T) {
	c, rules := demoChecksSection(t)
	if c.Detail == nil || *c.Detail != "summary" {
		t.Errorf("detail %v, want summary", c.Detail)
	}
	seen := false
	for _, cr := range c.CheckResults {
		if cr.AgentsPassed == nil || cr.AgentsExcluded == nil {
			t.Fatalf("%s: no counts of passing and excluded targets", cr.CheckID)
		}
		if cr.CheckID != "C10001" {
			continue
		}
		seen = true
		if cr.Result != "critical" || len(cr.AgentsCheckResults) == 0 || *cr.AgentsPassed == 0 || len(cr.ExpectationResults) != 2 {
			t.Errorf("C10001: %+v", cr)
		}
		// Only the targets that failed are listed, with their facts.
		for _, raw := range cr.AgentsCheckResults {
			if a := readC10001Target(t, raw); a.passed() || len(a.Facts) != 1 {
				t.Errorf("listed target %s: passed %v, facts %s", a.AgentID, a.passed(), a.Facts)
			}
		}
	}
	if !seen {
		t.Error("no C10001 result")
	}
	if !rules["check/C10001"] || !rules["checks/lint"] {
		t.Errorf("rules lack the checks: %v", rules)
	}
}

// --checks-detail full lists every target, as Wanda does; the summary
// counts exactly the targets it leaves out.
func TestChecksDetailFullListsEveryTarget(t *testing.T) {
	full, _ := demoChecksSection(t, "--checks-detail", "full")
	summary, _ := demoChecksSection(t)
	if full.Detail != nil {
		t.Errorf("a full section says detail %q (Wanda's Result has no such key)", *full.Detail)
	}
	if len(full.CheckResults) != len(summary.CheckResults) {
		t.Fatalf("%d check results in full, %d in the summary", len(full.CheckResults), len(summary.CheckResults))
	}
	for i, cr := range full.CheckResults {
		s := summary.CheckResults[i]
		if cr.AgentsPassed != nil || cr.AgentsExcluded != nil {
			t.Errorf("%s: a full section counts targets", cr.CheckID)
		}
		if s.CheckID != cr.CheckID || s.Result != cr.Result || len(cr.AgentsCheckResults) != len(s.AgentsCheckResults)+*s.AgentsPassed+*s.AgentsExcluded {
			t.Errorf("%s: full lists %d targets; the summary lists %d, counts %d passing and %d excluded",
				cr.CheckID, len(cr.AgentsCheckResults), len(s.AgentsCheckResults), *s.AgentsPassed, *s.AgentsExcluded)
		}
		if cr.CheckID != "C10001" {
			continue
		}
		// Facts are listed for the targets that failed, not for those
		// that passed (a deliberate difference from Wanda: report size).
		var failed, passed int
		for _, raw := range cr.AgentsCheckResults {
			a := readC10001Target(t, raw)
			if a.passed() {
				passed++
				if len(a.Facts) != 0 {
					t.Errorf("passing target %s lists its facts", a.AgentID)
				}
			} else {
				failed++
				if len(a.Facts) != 1 {
					t.Errorf("failing target %s: facts %s", a.AgentID, a.Facts)
				}
			}
		}
		if failed == 0 || passed == 0 || failed != len(s.AgentsCheckResults) || passed != *s.AgentsPassed {
			t.Errorf("C10001: %d failing and %d passing targets in full, summary %d and %d", failed, passed, len(s.AgentsCheckResults), *s.AgentsPassed)
		}
	}
}

func TestSelectAndNoDefaultChecks(t *testing.T) {
	_, out, _ := plumb(t, "check", "--root", "../..", "../../fixtures/demo", "--select", "C10001")
	if !strings.Contains(out, "[check/C10001]") || strings.Contains(out, "[check/A10001]") {
		t.Errorf("--select C10001:\n%s", out)
	}
	_, out, _ = plumb(t, "check", "--root", "../..", "../../fixtures/demo", "--no-default-checks")
	if strings.Contains(out, "[check/") {
		t.Errorf("--no-default-checks still checks:\n%s", out)
	}
	code, out, _ := plumb(t, "check", "--root", "../..", "../../fixtures/demo", "--select", "NOPE")
	if code != 2 || !strings.Contains(out, `select: there is no check "NOPE" in the catalog`) {
		t.Errorf("unknown selected check: exit %d\n%s", code, out)
	}
}

// A broken catalog check is a configuration error at its line (exit 2,
// whatever --fail-on says); the other checks and engines still report. It
// is printed once: in the text report on stdout, or on stderr when no
// text report goes to stdout.
func TestBrokenCatalogExitsTwoAndOthersStillRun(t *testing.T) {
	dir := t.TempDir()
	check := "id: \"X1\"\nname: Broken\ngroup: mine\ndescription: d\nremediation: r\nmetadata: {target_type: object}\nfacts:\n  - {name: f, gatherer: manifest@v1, argument: spec}\nexpectations:\n  - {name: e, expect: facts.f.replicas >}\n"
	if err := os.WriteFile(filepath.Join(dir, "X1.yaml"), []byte(check), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := plumb(t, "check", "--root", "../..", "../../fixtures/demo", "--checks", dir, "--fail-on", "never")
	if code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	want := "X1.yaml:10:41: error: check X1: expectations[0].expect: Syntax error"
	if strings.Contains(errOut, want) || !strings.Contains(out, want) {
		t.Errorf("want %q once, on stdout:\nstdout:\n%s\nstderr:\n%s", want, out, errOut)
	}
	if !strings.Contains(out, "[check/C10001]") || !strings.Contains(out, "[kubevirt/minimal-required-memory]") {
		t.Errorf("other checks and engines did not run:\n%s", out)
	}
	code, out, errOut = plumb(t, "check", "--root", "../..", "../../fixtures/demo", "--checks", dir, "--format", "json="+filepath.Join(dir, "r.json"))
	if code != 2 || out != "" || !strings.Contains(errOut, "plumb: "+filepath.Join(dir, "X1.yaml")+":10:41: error: check X1") {
		t.Errorf("with the report in a file: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

func TestBadCustomizationNamesTheConfigLine(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "plumb.yaml")
	if err := os.WriteFile(cfg, []byte("checks:\n  customizations:\n    E10001:\n      min_replicas: lots\n    D10003:\n      x: 1\n  select: [E10001, NOPE]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, errOut, _ := plumb(t, "check", "--config", cfg, "--root", "../..", "../../fixtures/demo")
	if code != 2 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"plumb.yaml:4:21: error: checks.customizations: value min_replicas of check E10001 is an integer (default 1), so the custom value must be an integer too, not a string lots",
		"plumb.yaml:6:10: error: checks.customizations: check D10003 is not customizable (customization_disabled: true)",
		`plumb.yaml:7:20: error: select: there is no check "NOPE" in the catalog (see plumb checks list)`,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

func TestEnvDrivesValues(t *testing.T) {
	_, out, _ := plumb(t, "check", "--root", "../..", "../../fixtures/demo", "--select", "E10001", "--env", "environment=prod")
	want := "fixtures/demo/api/deployment.yaml:9:3: error: runs 2 replica(s) but prod needs at least 3 [check/E10001]"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, "web/deployment.yaml:9:3: error: runs 3") {
		t.Errorf("3 replicas reported in prod:\n%s", out)
	}
	// Without the env the minimum is 1.
	if _, out, _ := plumb(t, "check", "--root", "../..", "../../fixtures/demo", "--select", "E10001"); strings.Contains(out, "[check/E10001]") {
		t.Errorf("reported without env:\n%s", out)
	}
}

func TestChecksListShowLint(t *testing.T) {
	code, out, _ := plumb(t, "checks", "list")
	if code != 0 || !strings.Contains(out, "C10001  critical  Deployment,StatefulSet,DaemonSet,+6              Images") || !strings.Contains(out, "41 checks.") {
		t.Errorf("list: exit %d\n%s", code, out)
	}
	_, out, _ = plumb(t, "checks", "list", "--group", "kubevirt")
	if !strings.Contains(out, "K10003") || strings.Contains(out, "C10001") || !strings.Contains(out, "4 checks.") {
		t.Errorf("list --group:\n%s", out)
	}
	// Wanda's catalog filter: metadata must match the env.
	_, out, _ = plumb(t, "checks", "list", "--env", "target_type=group", "--env", "environment=prod")
	if !strings.Contains(out, "H10001") || strings.Contains(out, "C10001") {
		t.Errorf("list --env target_type=group:\n%s", out)
	}
	_, out, _ = plumb(t, "checks", "list", "--format", "json")
	var entries []struct {
		ID           string `json:"id"`
		Customizable bool   `json:"customizable"`
	}
	if err := json.Unmarshal([]byte(out), &entries); err != nil || len(entries) != 41 {
		t.Errorf("list json: %v %d", err, len(entries))
	}
	code, out, _ = plumb(t, "checks", "show", "E10001")
	for _, want := range []string{"E10001  Enough replicas for the environment", "Remediation", "min_replicas = 1 (customizable)", `3 when env.environment in ["production", "prod"]`, "enough_replicas (expect)"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	// A group check's expect_same says it compares within applications.
	if code, out, _ := plumb(t, "checks", "show", "H10001"); code != 0 || !strings.Contains(out, "\n  same_workloads (expect_same, within each application (env.application))\n") {
		t.Errorf("show H10001:\n%s", out)
	}
	if code, _, errOut := plumb(t, "checks", "show", "NOPE"); code != 2 || !strings.Contains(errOut, `there is no check "NOPE"`) {
		t.Errorf("show NOPE: exit %d %s", code, errOut)
	}
	if code, out, _ := plumb(t, "checks", "gatherers"); code != 0 || !strings.Contains(out, "manifest@v1 (object checks)") || !strings.Contains(out, "objects@v1 (object and group checks)") {
		t.Errorf("gatherers: exit %d\n%s", code, out)
	}
	if code, out, _ := plumb(t, "checks", "lint"); code != 0 || !strings.Contains(out, "41 checks: 0 with errors; 0 errors, 0 warnings") {
		t.Errorf("lint: exit %d\n%s", code, out)
	}
	// A check that does not lint is not listed, and list says so; show
	// prints its problems. Both exit 2.
	broken := "../../internal/checks/testdata/eval/broken"
	code, out, errOut := plumb(t, "checks", "list", "--checks", broken)
	if code != 2 || strings.Contains(out, "illegal_expression_check") || !strings.Contains(out, "41 checks.") ||
		!strings.Contains(errOut, "illegal_expression_check.yaml:13:32: error: expectations[0].expect: Syntax error") {
		t.Errorf("list with a broken catalog: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = plumb(t, "checks", "show", "illegal_expression_check", "--checks", broken)
	// File names are relative to the repository root: the git top level.
	if code != 2 || !strings.Contains(out, "Problems (the check does not run until they are fixed)\n  internal/checks/testdata/eval/broken/illegal_expression_check.yaml:13:32: error: expectations[0].expect: Syntax error") {
		t.Errorf("show of a broken check: exit %d\n%s", code, out)
	}
	code, out, _ = plumb(t, "checks", "lint", broken)
	if code != 2 || !strings.Contains(out, "illegal_expression_check.yaml:13:32: error: expectations[0].expect: Syntax error") {
		t.Errorf("lint broken: exit %d\n%s", code, out)
	}
}

func TestChecksEval(t *testing.T) {
	base := "../../internal/checks/testdata/eval/"
	code, out, errOut := plumb(t, "checks", "eval", "--catalog", base+"checks", "--facts", base+"scenarios/E02_expect_not_all_agents.yaml")
	if code != 1 || !strings.Contains(out, `"result": "critical"`) {
		t.Errorf("eval: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = plumb(t, "checks", "eval", "--catalog", base+"checks", "--facts", base+"scenarios/E09_severity_warning.yaml", "--format", "text")
	if code != 0 || !strings.Contains(out, "expect_warning_check warning") || !strings.Contains(out, "agent_1: some_expectation = false — Expectation not met") {
		t.Errorf("eval text: exit %d\n%s", code, out)
	}
	if code, _, _ := plumb(t, "checks", "eval", "--catalog", base+"checks", "--facts", base+"scenarios/E09_severity_warning.yaml", "--fail-on", "warning"); code != 1 {
		t.Errorf("--fail-on warning: exit %d", code)
	}
	// --env wins over the file's env.
	_, out, _ = plumb(t, "checks", "eval", "--catalog", base+"checks", "--facts", base+"scenarios/E17_env_second_condition.yaml", "--env", "some_env=whoa")
	if !strings.Contains(out, `"value": 10`) {
		t.Errorf("--env did not win:\n%s", out)
	}
	// Problems with the facts file name the line.
	dir := t.TempDir()
	facts := filepath.Join(dir, "facts.yaml")
	if err := os.WriteFile(facts, []byte("targets: {a1: agent_1}\nfacts:\n  expect_check:\n    some_fact: {a2: 1}\n  nope_check:\n    f: {a1: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = plumb(t, "checks", "eval", "--catalog", base+"checks", "--facts", facts)
	for _, want := range []string{`facts.yaml:4:17: error: fact some_fact of check expect_check: no target "a2"`} {
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("exit %d, stderr lacks %q:\n%s", code, want, errOut)
		}
	}
	if code, _, errOut := plumb(t, "checks", "eval", "--facts", filepath.Join(dir, "missing.yaml")); code != 2 || !strings.Contains(errOut, "no such file") {
		t.Errorf("missing facts: exit %d %s", code, errOut)
	}
	if code, _, _ := plumb(t, "checks", "eval"); code != 2 {
		t.Errorf("no --facts: exit %d", code)
	}
}

// The default catalog's environment checks take fake facts of the shape
// objects@v1 gathers (each object's metadata.name is then the name written
// in its manifest): an author can unit-test a difference between
// environments without rendering anything.
func TestChecksEvalEnvironmentChecks(t *testing.T) {
	facts := filepath.Join(t.TempDir(), "facts.yaml")
	if err := os.WriteFile(facts, []byte(`targets: {dev: overlays/dev, staging: overlays/staging, prod: overlays/prod}
env: {environment: any}
facts:
  H10001:
    workloads:
      dev: [{kind: Deployment, metadata: {name: cart}}]
      staging: [{kind: Deployment, metadata: {name: cart}}]
      prod: [{kind: Deployment, metadata: {name: cart}}, {kind: CronJob, metadata: {name: report}}]
  H10002:
    configmaps:
      dev: [{kind: ConfigMap, metadata: {name: settings}, data: {A: "1"}}]
      staging: [{kind: ConfigMap, metadata: {name: settings-5f6g7h8k9m}, data: {A: "2"}}]
      prod: [{kind: ConfigMap, metadata: {name: settings}, data: {A: "3"}}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := plumb(t, "checks", "eval", "--facts", facts, "--format", "text")
	for _, want := range []string{
		"H10001 warning",
		`overlays/prod: same_workloads = ["CronJob/report","Deployment/cart"]`,
		`overlays/dev: same_workloads = ["Deployment/cart"]`,
		"H10002 passing",
		`overlays/staging: same_keys = ["settings:A"]`,
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("eval: exit %d, output lacks %q:\n%s%s", code, want, out, errOut)
		}
	}
}
