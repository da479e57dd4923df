package checks

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/golden"
)

// evalRun is the outcome of one `plumb checks eval`.
type evalRun struct {
	code   int
	stdout string
	stderr string
	res    map[string]any
}

func runEval(t *testing.T, catalog, facts string, env map[string]any) evalRun {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := EvalCommand{Catalogs: []string{filepath.Join("testdata/eval", catalog)}, Facts: filepath.Join("testdata/eval/scenarios", facts), Env: env, FailOn: "never"}
	code := cmd.Run(context.Background(), &out, &errOut)
	r := evalRun{code: code, stdout: out.String(), stderr: errOut.String()}
	if out.Len() > 0 {
		if err := json.Unmarshal(out.Bytes(), &r.res); err != nil {
			t.Fatalf("eval output is not JSON: %v\n%s", err, out.String())
		}
	}
	return r
}

// JSON navigation helpers over the Result.
func checkResult(t *testing.T, res map[string]any, id string) map[string]any {
	t.Helper()
	for _, c := range res["check_results"].([]any) {
		if m := c.(map[string]any); m["check_id"] == id {
			return m
		}
	}
	t.Fatalf("no check result for %s in %v", id, res)
	return nil
}

func expectationResult(t *testing.T, cr map[string]any, name string) map[string]any {
	t.Helper()
	for _, e := range cr["expectation_results"].([]any) {
		if m := e.(map[string]any); m["name"] == name {
			return m
		}
	}
	t.Fatalf("no expectation result %s in %v", name, cr)
	return nil
}

func agent(t *testing.T, cr map[string]any, id string) map[string]any {
	t.Helper()
	for _, a := range cr["agents_check_results"].([]any) {
		if m := a.(map[string]any); m["agent_id"] == id {
			return m
		}
	}
	t.Fatalf("no agent %s in %v", id, cr)
	return nil
}

func evaluation(t *testing.T, a map[string]any, name string) map[string]any {
	t.Helper()
	for _, e := range a["expectation_evaluations"].([]any) {
		if m := e.(map[string]any); m["name"] == name {
			return m
		}
	}
	t.Fatalf("no evaluation %s in %v", name, a)
	return nil
}

func want(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

func agentIDs(cr map[string]any) []string {
	var out []string
	for _, a := range cr["agents_check_results"].([]any) {
		out = append(out, a.(map[string]any)["agent_id"].(string))
	}
	return out
}

// TestWandaEvaluationScenarios reproduces Wanda's evaluation suite
// (research §5.1, E1–E27) through `plumb checks eval`, with CEL
// expressions. The assertions are Wanda's expected outcomes; the golden
// files pin the full Result.
func TestWandaEvaluationScenarios(t *testing.T) {
	cases := []struct {
		facts   string
		catalog string
		code    int
		stderr  string
		check   func(t *testing.T, res map[string]any)
	}{
		{facts: "E01_expect_all_agents.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "expect_check")
			want(t, "execution result", res["result"], "passing")
			want(t, "check result", cr["result"], "passing")
			want(t, "ER", expectationResult(t, cr, "some_expectation")["result"], true)
			for _, a := range []string{"agent_1", "agent_2"} {
				want(t, a+" return value", evaluation(t, agent(t, cr, a), "some_expectation")["return_value"], true)
			}
		}},
		{facts: "E02_expect_not_all_agents.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "expect_check")
			ev := evaluation(t, agent(t, cr, "agent_1"), "some_expectation")
			want(t, "agent_1 return value", ev["return_value"], false)
			want(t, "agent_1 message", ev["failure_message"], DefaultFailureMessage)
			want(t, "ER", expectationResult(t, cr, "some_expectation")["result"], false)
			want(t, "check result", cr["result"], "critical")
			want(t, "execution result", res["result"], "critical")
		}},
		{facts: "E03_fact_gathering_error.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "expect_check")
			a2 := agent(t, cr, "agent_2")
			want(t, "agent_2 type", a2["type"], "fact_gathering_error")
			want(t, "agent_2 message", a2["message"], "Fact gathering error occurred during the execution")
			want(t, "agent_2 facts", a2["facts"], []any{map[string]any{"check_id": "expect_check", "name": "some_fact", "type": "sysctl-value-not-found", "message": "requested value not found"}})
			want(t, "agent_1 return value", evaluation(t, agent(t, cr, "agent_1"), "some_expectation")["return_value"], true)
			want(t, "ER", expectationResult(t, cr, "some_expectation")["result"], false)
			want(t, "check result", cr["result"], "critical")
		}},
		{facts: "E04_expect_same_passing.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "expect_same_check")
			want(t, "ER", expectationResult(t, cr, "some_expectation")["result"], true)
			want(t, "check result", cr["result"], "passing")
		}},
		{facts: "E05_expect_same_differing.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "expect_same_check")
			er := expectationResult(t, cr, "some_expectation")
			want(t, "ER", er["result"], false)
			want(t, "ER message", er["failure_message"], DefaultFailureMessage)
			want(t, "check result", cr["result"], "critical")
		}},
		{facts: "E06_fact_missing.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "expect_check")
			ev := evaluation(t, agent(t, cr, "agent_2"), "some_expectation")
			want(t, "agent_2 error type", ev["type"], "property_not_found")
			want(t, "ER", expectationResult(t, cr, "some_expectation")["result"], false)
			want(t, "check result", cr["result"], "critical")
		}},
		{facts: "E07_illegal_expression.yaml", catalog: "broken", code: 2, stderr: "illegal_expression_check.yaml:13:32: error: expectations[0].expect: Syntax error", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "illegal_expression_check")
			for _, a := range []string{"agent_1", "agent_2"} {
				want(t, a+" error type", evaluation(t, agent(t, cr, a), "some_expectation")["type"], "parsing")
			}
			want(t, "ER", expectationResult(t, cr, "some_expectation")["result"], false)
			want(t, "check result", cr["result"], "critical")
		}},
		{facts: "E08_timeout.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "expect_check")
			a3 := agent(t, cr, "agent_3")
			want(t, "agent_3 type", a3["type"], "timeout")
			want(t, "agent_3 message", a3["message"], "Agent timed out during the execution")
			want(t, "agent_3 facts", a3["facts"], nil)
			want(t, "timeout", res["timeout"], []any{"agent_3"})
			want(t, "ER", expectationResult(t, cr, "some_expectation")["result"], false)
			want(t, "check result", cr["result"], "critical")
		}},
		{facts: "E09_severity_warning.yaml", check: func(t *testing.T, res map[string]any) {
			want(t, "check result", checkResult(t, res, "expect_warning_check")["result"], "warning")
			want(t, "execution result", res["result"], "warning")
		}},
		{facts: "E10_timeout_severity_warning.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "timeout_warning_check")
			want(t, "agent_1 return value", evaluation(t, agent(t, cr, "agent_1"), "always_true")["return_value"], true)
			want(t, "check result", cr["result"], "critical")
			want(t, "timeout", res["timeout"], []any{"agent_2"})
		}},
		{facts: "E11a_expect_enum_weighting.yaml", check: enumCase("passing", "passing", "passing")},
		{facts: "E11b_expect_enum_weighting.yaml", check: enumCase("warning", "passing", "warning")},
		{facts: "E11c_expect_enum_weighting.yaml", check: enumCase("critical", "passing", "critical")},
		{facts: "E11d_expect_enum_weighting.yaml", check: enumCase("critical", "warning", "critical")},
		{facts: "E12_expect_enum_unknown.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "enum_unknown_check")
			ev := evaluation(t, agent(t, cr, "agent_1"), "some_expectation")
			want(t, "return value", ev["return_value"], "critical")
			want(t, "message", ev["failure_message"], DefaultFailureMessage)
			want(t, "ER", expectationResult(t, cr, "some_expectation")["result"], "critical")
			want(t, "check result", cr["result"], "critical")
		}},
		{facts: "E13_expect_enum_messages.yaml", check: func(t *testing.T, res map[string]any) {
			for _, c := range []struct{ check, warning, critical string }{
				{"enum_messages_both", "warning because w", "critical because c"},
				{"enum_messages_failure_only", DefaultFailureMessage, "critical because c"},
				{"enum_messages_warning_only", "warning because w", DefaultFailureMessage},
			} {
				cr := checkResult(t, res, c.check)
				w := evaluation(t, agent(t, cr, "agent_1"), "enum_expectation")
				want(t, c.check+" agent_1 outcome", w["return_value"], "warning")
				want(t, c.check+" warning message", w["failure_message"], c.warning)
				k := evaluation(t, agent(t, cr, "agent_2"), "enum_expectation")
				want(t, c.check+" agent_2 outcome", k["return_value"], "critical")
				want(t, c.check+" critical message", k["failure_message"], c.critical)
			}
		}},
		{facts: "E14_arrays.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "arrays_check")
			ers := cr["expectation_results"].([]any)
			want(t, "ER order", []any{ers[0].(map[string]any)["name"], ers[1].(map[string]any)["name"]}, []any{"filter_expectation", "some_expectation"})
			want(t, "filter ER", expectationResult(t, cr, "filter_expectation")["result"], true)
			want(t, "filter return", evaluation(t, agent(t, cr, "agent_1"), "filter_expectation")["return_value"], []any{"wanda"})
			want(t, "exists ER", expectationResult(t, cr, "some_expectation")["result"], true)
			want(t, "check result", cr["result"], "passing")
		}},
		{facts: "E15_maps.yaml", check: func(t *testing.T, res map[string]any) {
			want(t, "check result", checkResult(t, res, "maps_check")["result"], "passing")
		}},
		{facts: "E16_env_first_condition_whoa.yaml", check: envValueCase(10, "passing")},
		{facts: "E16_env_first_condition_yeah.yaml", check: envValueCase(10, "passing")},
		{facts: "E17_env_second_condition.yaml", check: envValueCase(15, "passing")},
		{facts: "E18_env_default_1.yaml", check: envValueCase(5, "passing")},
		{facts: "E18_env_default_2.yaml", check: envValueCase(5, "passing")},
		{facts: "E18_env_default_3.yaml", check: envValueCase(5, "passing")},
		{facts: "E18_env_default_4.yaml", check: envValueCase(5, "passing")},
		{facts: "E19_env_value_mismatch.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "env_check")
			want(t, "agent_1", evaluation(t, agent(t, cr, "agent_1"), "some_expectation")["return_value"], false)
			want(t, "check result", cr["result"], "critical")
		}},
		{facts: "E20_failure_message_interpolated.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "message_check")
			want(t, "failing agent message", evaluation(t, agent(t, cr, "agent_1"), "some_expectation")["failure_message"], "failure checking 11")
			if _, has := evaluation(t, agent(t, cr, "agent_2"), "some_expectation")["failure_message"]; has {
				t.Error("the passing agent has a failure message")
			}
		}},
		{facts: "E21_expect_same_message.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "same_message_check")
			want(t, "ER message", expectationResult(t, cr, "some_expectation")["failure_message"], "the values differ")
			if _, has := evaluation(t, agent(t, cr, "agent_1"), "some_expectation")["failure_message"]; has {
				t.Error("an expect_same evaluation has a failure message")
			}
		}},
		{facts: "E21b_expect_same_message_not_interpolated.yaml", catalog: "broken", code: 2, stderr: "String interpolation is not allowed here", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "same_interpolated_check")
			want(t, "ER message (raw)", expectationResult(t, cr, "some_expectation")["failure_message"], "values of ${facts.some_fact} differ")
		}},
		{facts: "E22_expect_same_default_message.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "same_default_check")
			for _, n := range []string{"first_expectation", "second_expectation"} {
				er := expectationResult(t, cr, n)
				want(t, n, er["result"], false)
				want(t, n+" message", er["failure_message"], DefaultFailureMessage)
			}
		}},
		{facts: "E23_interpolation_error.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "interpolation_runtime_check")
			want(t, "message", evaluation(t, agent(t, cr, "agent_1"), "some_expectation")["failure_message"], DefaultFailureMessage)
		}},
		{facts: "E23b_interpolation_undeclared.yaml", catalog: "broken", code: 2, stderr: "facts.kekw is not declared by this check", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "interpolation_undeclared_check")
			want(t, "message", evaluation(t, agent(t, cr, "agent_1"), "some_expectation")["failure_message"], DefaultFailureMessage)
		}},
		{facts: "E24_customizations_azure.yaml", check: customizationCase},
		{facts: "E24_customizations_aws.yaml", check: customizationCase},
		{facts: "E25_exclusion_ordering.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "exclude_check")
			want(t, "agents", agentIDs(cr), []string{"agent_1", "agent_2", "agent_3"})
			a3 := agent(t, cr, "agent_3")
			want(t, "agent_3 status", a3["status"], "excluded")
			want(t, "agent_3 expression", a3["exclude_expression"], "host.is_majority_maker == true")
			want(t, "agent_1 status", agent(t, cr, "agent_1")["status"], "executed")
			want(t, "check result", cr["result"], "passing")
		}},
		{facts: "E26_several_excluded.yaml", check: func(t *testing.T, res map[string]any) {
			all := checkResult(t, res, "exclude_all_check")
			// agent_4 has no "excluded" attribute: the error keeps the pair.
			want(t, "exclude_all agents", agentIDs(all), []string{"agent_1", "agent_4", "agent_2", "agent_3"})
			for _, a := range []string{"agent_2", "agent_3"} {
				want(t, a+" expression", agent(t, all, a)["exclude_expression"], "host.excluded")
			}
			one := checkResult(t, res, "exclude_check")
			want(t, "exclude agents", agentIDs(one), []string{"agent_1", "agent_2", "agent_3", "agent_4"})
			want(t, "agent_4 status", agent(t, one, "agent_4")["status"], "excluded")
		}},
		{facts: "E27_fully_excluded.yaml", check: func(t *testing.T, res map[string]any) {
			cr := checkResult(t, res, "exclude_all_check")
			want(t, "check result", cr["result"], "passing")
			want(t, "expectation results", cr["expectation_results"], []any{})
			want(t, "agents", agentIDs(cr), []string{"agent_1", "agent_2"})
			want(t, "execution result", res["result"], "passing")
		}},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.facts] = true
		t.Run(strings.TrimSuffix(c.facts, ".yaml"), func(t *testing.T) {
			catalog := c.catalog
			if catalog == "" {
				catalog = "checks"
			}
			r := runEval(t, catalog, c.facts, nil)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", r.code, c.code, r.stderr)
			}
			if c.stderr != "" && !strings.Contains(r.stderr, c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, r.stderr)
			}
			c.check(t, r.res)
			golden.AssertString(t, filepath.Join("testdata/eval/golden", strings.TrimSuffix(c.facts, ".yaml")+".json"), r.stdout)
		})
	}
	entries, _ := os.ReadDir("testdata/eval/scenarios")
	for _, e := range entries {
		if !seen[e.Name()] {
			t.Errorf("scenario %s has no test case", e.Name())
		}
	}
}

func enumCase(first, second, check string) func(*testing.T, map[string]any) {
	return func(t *testing.T, res map[string]any) {
		cr := checkResult(t, res, "expect_enum_check")
		want(t, "first ER", expectationResult(t, cr, "first_expectation")["result"], first)
		want(t, "second ER", expectationResult(t, cr, "second_expectation")["result"], second)
		want(t, "check result", cr["result"], check)
	}
}

func envValueCase(value float64, result string) func(*testing.T, map[string]any) {
	return func(t *testing.T, res map[string]any) {
		cr := checkResult(t, res, "env_check")
		for _, a := range cr["agents_check_results"].([]any) {
			want(t, "values", a.(map[string]any)["values"], []any{map[string]any{"name": "expected_value", "value": value, "customized": false}})
		}
		want(t, "check result", cr["result"], result)
		want(t, "timeout", res["timeout"], []any{})
	}
}

func customizationCase(t *testing.T, res map[string]any) {
	cr := checkResult(t, res, "customization_check")
	want(t, "customized", cr["customized"], true)
	a1 := agent(t, cr, "agent_1")
	want(t, "values", a1["values"], []any{
		map[string]any{"name": "expected_value", "value": 30.0, "customized": true},
		map[string]any{"name": "warning_value", "value": 2.0, "customized": true},
	})
	want(t, "expect message", evaluation(t, a1, "expect_expectation")["failure_message"], "expected 30")
	enum := evaluation(t, a1, "expect_enum_expectation")
	want(t, "enum outcome", enum["return_value"], "warning")
	want(t, "enum message", enum["failure_message"], "warning with 2")
	want(t, "expect ER", expectationResult(t, cr, "expect_expectation")["result"], false)
	want(t, "expect_same ER", expectationResult(t, cr, "expect_same_expectation")["result"], true)
	want(t, "expect_enum ER", expectationResult(t, cr, "expect_enum_expectation")["result"], "warning")
	want(t, "check result", cr["result"], "critical")
}

// Problems `checks eval` finds in a facts file only when it evaluates
// (unknown checks, undeclared facts, rejected customizations, checks the
// env filters out) name the line of the file that causes them.
func TestEvalProblemsNameTheLine(t *testing.T) {
	facts := `env: {some: other}
customizations:
  customization_check: {expected_value: "20", nope: 1}
  expect_check: {x: 1}
checks: [expect_check, with_metadata]
targets:
  a1: agent_1
  a2: {id: agent_2, checks: [missing_check]}
facts:
  expect_check:
    some_fact: {a1: 10}
    other_fact: {a1: 1, a2: 2}
  nope_check:
    f: {a1: 1}
`
	ff, diags := ParseFakeFacts("facts.yaml", []byte(facts))
	if len(diags) > 0 {
		t.Fatalf("parse: %v", diags)
	}
	_, diags, err := Eval(context.Background(), Load(Source{FS: os.DirFS("testdata/eval/checks"), Dir: ".", Display: "checks"}), ff, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range diags {
		got = append(got, d.String())
	}
	want := []string{
		`facts.yaml:3:25: error: customizations: value expected_value of check customization_check is an integer (default 10), so the custom value must be an integer too, not a string 20`,
		`facts.yaml:3:47: error: customizations: check customization_check has no value "nope" (values: expected_value, warning_value)`,
		`facts.yaml:4:3: error: customizations: check expect_check has no customizable value`,
		`facts.yaml:5:24: warning: check with_metadata does not apply in this env (its metadata or when filters it out), so it is not evaluated`,
		`facts.yaml:8:30: error: there is no check "missing_check" in the catalog`,
		`facts.yaml:12:5: error: check expect_check declares no fact "other_fact" (it declares some_fact)`,
		`facts.yaml:13:3: error: there is no check "nope_check" in the catalog`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
