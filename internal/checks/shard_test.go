package checks

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
)

// expect_same values of a check over objects that differ merge only when one
// shard saw all of the differing targets; the base revision's values
// (pull-request mode) are held to the same rule, since its findings come
// back as fixed ones. A check over render targets always merges: merge
// decides its findings.
func TestObjectSameAcrossShards(t *testing.T) {
	vals := func(shard int, id string, m map[string]string) sameShard {
		return sameShard{shard, SameValues{CheckID: id, Expectation: "same", Values: m}}
	}
	sp := &shardParts{infos: map[string]ShardInfo{"O1": {TargetType: TargetObject}, "G1": {TargetType: TargetGroup}}}
	for _, c := range []struct {
		name  string
		in    []sameShard
		where string
		want  string
	}{
		{"equal everywhere", []sameShard{vals(0, "O1", map[string]string{"a": "x"}), vals(1, "O1", map[string]string{"b": "x"})}, "", ""},
		{"differ within one shard", []sameShard{vals(0, "O1", map[string]string{"a": "x", "b": "y"}), vals(1, "O1", map[string]string{})}, "", ""},
		{"differ across shards", []sameShard{vals(0, "O1", map[string]string{"a": "x"}), vals(1, "O1", map[string]string{"b": "y"})}, "",
			"check O1: expect_same same returns different values on objects of render targets in different shards; its findings are on objects"},
		{"base differs across shards", []sameShard{vals(0, "O1", map[string]string{"a": "x"}), vals(2, "O1", map[string]string{"b": "y"})}, "at the base revision ",
			"check O1: expect_same same returns different values at the base revision on objects of render targets in different shards"},
		{"render targets differ across shards", []sameShard{vals(0, "G1", map[string]string{"a": "x"}), vals(1, "G1", map[string]string{"b": "y"})}, "", ""},
	} {
		k := sameKey(c.in[0].values.CheckID, "same")
		err := sp.objectSameAcrossShards(map[string][]sameShard{k: c.in}, c.where)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

// decideSame reports the targets outside the majority with the pending
// finding their shard wrote, the message counting every shard's values, and
// the configured suppressions those findings select.
func TestDecideSame(t *testing.T) {
	raw := "The environments differ"
	c := &Check{ID: "G1", Expectations: []*Expectation{{Name: "same", Type: ExpectSame, FailureMessage: &Message{Raw: raw}}}}
	pending := pendingIndex{}
	for i, target := range []string{"dev", "prod", "qa", "staging"} {
		f := finding.Finding{RuleID: "check/G1", Object: finding.ObjectID{Target: target}, Fingerprint: target}
		if err := pending.add(i, []SameFinding{{CheckID: "G1", Expectation: "same", Target: target, Value: `"` + target + `-value"`,
			Finding: f, ConfigSuppressions: []int{i}}}); err != nil {
			t.Fatal(err)
		}
	}
	// dev and qa return what prod and staging do not; staging's value
	// prints like prod's (equal keys are equal values).
	values := map[string]string{"prod": "k1", "staging": "k1", "dev": "k2", "qa": "k3"}
	fs, uses, err := decideSame(c, c.Expectations[0], values, nil, pending)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.Object.Target+": "+f.Message)
	}
	want := []string{
		`dev: The environments differ: "dev-value" here, but "prod-value" (2 of 4), "qa-value" (1 of 4) elsewhere`,
		`qa: The environments differ: "qa-value" here, but "prod-value" (2 of 4), "dev-value" (1 of 4) elsewhere`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s", strings.Join(got, "\n"))
	}
	if !slices.Equal(uses, []int{0, 2}) {
		t.Errorf("suppression uses %v, want dev's and qa's", uses)
	}

	// A value without its pending finding is a broken shard report.
	values["web"] = "k1"
	if _, _, err := decideSame(c, c.Expectations[0], values, nil, pending); err == nil ||
		err.Error() != "check G1: expect_same same: target web has a value but no pending finding in its shard report" {
		t.Errorf("missing pending finding: %v", err)
	}
	// The same target pending in two shards: not shards of one run.
	if err := pending.add(5, []SameFinding{{CheckID: "G1", Expectation: "same", Target: "qa"}}); err == nil ||
		err.Error() != "shard 6: check G1: target qa has a pending expect_same finding in two shards" {
		t.Errorf("duplicate: %v", err)
	}
}

// Within applications, merge compares the environments of each application
// alone: web's agree (though they differ from api's), api's qa is outside
// api's majority, and a target without an application is compared with the
// others without one.
func TestDecideSameWithinApplications(t *testing.T) {
	c := &Check{ID: "G1", TargetType: TargetGroup, Expectations: []*Expectation{{Name: "same", Type: ExpectSame, FailureMessage: &Message{Raw: "Differ"}}}}
	pending := pendingIndex{}
	values := map[string]string{}
	apps := map[string]string{}
	for i, tv := range [][3]string{
		{"apps/api/overlays/dev", "apps/api", "a"}, {"apps/api/overlays/prod", "apps/api", "a"}, {"apps/api/overlays/qa", "apps/api", "b"},
		{"apps/web/overlays/dev", "apps/web", "w"}, {"apps/web/overlays/prod", "apps/web", "w"},
		{"legacy", "", "l"},
	} {
		target := tv[0]
		values[target] = tv[2]
		if tv[1] != "" {
			apps[target] = tv[1]
		}
		if err := pending.add(i, []SameFinding{{CheckID: "G1", Expectation: "same", Target: target, Value: tv[2],
			Finding: finding.Finding{RuleID: "check/G1", Object: finding.ObjectID{Target: target}}, ConfigSuppressions: []int{i}}}); err != nil {
			t.Fatal(err)
		}
	}
	fs, uses, err := decideSame(c, c.Expectations[0], values, apps, pending)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Object.Target != "apps/api/overlays/qa" ||
		fs[0].Message != `Differ: b here, but a (2 of 3) elsewhere in application "apps/api"` || !slices.Equal(uses, []int{2}) {
		t.Errorf("findings %+v, uses %v", fs, uses)
	}
	// Without applications, every environment is compared with every
	// other: no value has a majority and all six are reported.
	if fs, _, _ := decideSame(c, c.Expectations[0], values, nil, pending); len(fs) != 6 {
		t.Errorf("without applications: %d findings", len(fs))
	}
}

// The entry merge rewrites without facts is byte for byte the one an
// unsharded run writes after dropping them.
func TestWithoutFactsMatchesDroppedFacts(t *testing.T) {
	src := "exclude: x"
	for _, a := range []AgentResult{
		{AgentID: "overlays/dev", Status: StatusExecuted,
			Facts:       []FactResult{{CheckID: "G1", Name: "workloads", Value: []any{map[string]any{"kind": "Deployment"}}}},
			Values:      []ResolvedValue{{Name: "n", Value: int64(2)}},
			Evaluations: []Evaluation{{Name: "same", Type: ExpectSame, ReturnValue: []any{"Deployment/web"}}}},
		{AgentID: "overlays/prod", Status: StatusExecuted, ExcludeExpression: &src,
			Facts: []FactResult{{CheckID: "G1", Name: "workloads", Value: nil}}},
	} {
		with, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		got, err := withoutFacts(with)
		if err != nil {
			t.Fatal(err)
		}
		a.Facts = nil
		want, _ := json.Marshal(a)
		if string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

// Merging decides each application's environments over the shards: a's
// dev (shard 1) and prod (shard 2) differ, b's only environment agrees
// with itself, though its value is neither of a's.
func TestMergeShardsWithinApplications(t *testing.T) {
	info := `"checks":{"G1":{"severity":"warning","target_type":"group","expectations":[{"name":"same","type":"expect_same","failure_message":"Differ"}]}}`
	agent := func(id, v string) string {
		return `{"agent_id":"` + id + `","status":"executed","facts":[],"values":[],"expectation_evaluations":[{"name":"same","type":"expect_same","return_value":"` + v + `"}]}`
	}
	pending := func(id, v string) string {
		return `{"check_id":"G1","expectation":"same","target":"` + id + `","value":"` + v + `","finding":{"rule_id":"check/G1","object":{"target":"` + id + `"}}}`
	}
	one := `{"result":{"check_results":[{"check_id":"G1","agents_check_results":[` + agent("a/overlays/dev", "x") + `,` + agent("b/overlays/dev", "y") + `]}],"timeout":[]},` +
		`"merge":{"targets":["a/overlays/dev","b/overlays/dev"],"check_ids":["G1"],` + info + `,` +
		`"same":[{"check_id":"G1","expectation":"same","values":{"a/overlays/dev":"sx","b/overlays/dev":"sy"},"applications":{"a/overlays/dev":"a","b/overlays/dev":"b"}}],` +
		`"pending":[` + pending("a/overlays/dev", "x") + `,` + pending("b/overlays/dev", "y") + `]}}`
	two := `{"result":{"check_results":[{"check_id":"G1","agents_check_results":[` + agent("a/overlays/prod", "z") + `]}],"timeout":[]},` +
		`"merge":{"targets":["a/overlays/prod"],"check_ids":["G1"],` + info + `,` +
		`"same":[{"check_id":"G1","expectation":"same","values":{"a/overlays/prod":"sz"},"applications":{"a/overlays/prod":"a"}}],` +
		`"pending":[` + pending("a/overlays/prod", "z") + `]}}`
	out, err := ShardSection{}.MergeShards([]json.RawMessage{json.RawMessage(one), json.RawMessage(two)})
	if err != nil {
		t.Fatal(err)
	}
	m := out.(*mergedResult)
	var got []string
	for _, f := range m.MergedFindings().Head {
		got = append(got, f.Object.Target+": "+f.Message)
	}
	want := []string{
		`a/overlays/dev: Differ: x here, but z (1 of 2) elsewhere in application "a"`,
		`a/overlays/prod: Differ: z here, but x (1 of 2) elsewhere in application "a"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("merged findings:\n%s", strings.Join(got, "\n"))
	}
	if m.Result != Warning || m.CheckResults[0].ExpectationResults[0].Result != false {
		t.Errorf("merged result %s, expectations %+v", m.Result, m.CheckResults[0].ExpectationResults)
	}
}
