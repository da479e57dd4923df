package validation

import (
	"fmt"
	"strings"
	"testing"
)

// The validator's validation/rules_test.go ("Rules") and the parsing table
// of research §2.3.

func TestParseEmpty(t *testing.T) {
	for _, s := range []string{"", "null", "[]"} {
		a := ParseAnnotation(s)
		if a.Err != nil || len(a.Rules) != 0 || len(a.Problems) != 0 {
			t.Errorf("%q: %+v", s, a)
		}
	}
}

func TestParseSingleRuleWithoutLeadingDots(t *testing.T) {
	rs := mustRules(t, `[{
	  "name": "core-limits",
	  "valid": "jsonpath::spec.domain.cpu.cores",
	  "path": "jsonpath::spec.domain.cpu.cores",
	  "rule": "integer",
	  "message": "cpu cores must be limited",
	  "min": 1,
	  "max": 8
	}]`)
	r := rs[0]
	if r.Name != "core-limits" || r.Rule != TypeInteger || r.Path.Expr() != "spec.domain.cpu.cores" || r.Min.Int != 1 || r.Max.Int != 8 {
		t.Errorf("%+v", r)
	}
}

func TestParseMultipleRules(t *testing.T) {
	rs := mustRules(t, `[{
	  "name": "core-limits", "valid": "jsonpath::spec.domain.cpu.cores", "path": "jsonpath::spec.domain.cpu.cores",
	  "rule": "integer", "message": "cpu cores must be limited", "min": 1, "max": 8
	}, {
	  "name": "supported-bus", "path": "jsonpath::spec.devices.disks[*].type", "rule": "enum",
	  "message": "the disk bus type must be one of the supported values", "values": ["virtio", "scsi"]
	}]`)
	if len(rs) != 2 || rs[1].Rule != TypeEnum || len(rs[1].Values) != 2 || rs[1].Values[1].Str != "scsi" {
		t.Fatalf("%+v", rs)
	}
	if rs[1].Index != 1 || rs[1].Offset == 0 {
		t.Errorf("position %d@%d", rs[1].Index, rs[1].Offset)
	}
}

func TestRuleAppliesOnRelevantVM(t *testing.T) {
	res := Evaluate(mustRules(t, `[{"name": "r", "rule": "integer", "message": "m",
	  "valid": "jsonpath::.spec.domain.resources.requests.memory",
	  "path": "jsonpath::.spec.domain.resources.requests.memory", "min": 1}]`), cirrosVM(t))
	if res.Rules[0].Outcome != Satisfied {
		t.Errorf("%v", res.Rules[0].Outcome)
	}
	res = Evaluate(mustRules(t, `[{"name": "r", "rule": "integer", "message": "m",
	  "valid": "jsonpath::.spec.domain.resources.requests.cpu",
	  "path": "jsonpath::.spec.domain.resources.requests.memory", "min": 1}]`), cirrosVM(t))
	if res.Rules[0].Outcome != Skipped {
		t.Errorf("not relevant: %v", res.Rules[0].Outcome)
	}
}

func TestParseTable(t *testing.T) {
	for _, c := range []struct {
		text, err string
		problems  int
		rules     int
	}{
		{"   ", "unexpected end of JSON input", 1, 0},
		{`{"name": "a"}`, "json: cannot unmarshal object into Go value of type []validation.Rule", 1, 0},
		{`[1]`, "json: cannot unmarshal number into Go value of type validation.Rule", 1, 0},
		{`[{"name": "a",}]`, "invalid character '}' looking for beginning of object key string", 1, 0},
		{"[{\u201cname\u201d: 1}]", "invalid character '\u00e2' looking for beginning of object key string", 1, 0},
		{`[{"name": "a", "description": "ignored", "foo": 1}]`, "", 0, 1},
		{`[{"path": ".spec.domain.cpu.cores"}]`, "invalid JSONPath", 1, 0},
		{`[{"valid": ""}]`, "invalid JSONPath", 1, 0},
		{`[{"path": null}]`, "invalid JSONPath", 1, 0},
		{`[{"path": "jsonpath::.spec.domain["}]`, "unterminated array", 1, 0},
		{`[{"path": "jsonpath::.spec.bogus.field"}]`, "", 0, 1},
		{`[{"min": "1"}]`, "cannot unmarshall IntOrPath from JSON: invalid JSONPath", 1, 0},
		{`[{"max": "1Gi"}]`, "cannot unmarshall IntOrPath from JSON: invalid JSONPath", 1, 0},
		{`[{"min": null, "max": "jsonpath::.spec.domain.cpu.sockets"}]`, "", 0, 1},
		{`[{"values": [1]}]`, "json: cannot unmarshal number into Go struct field Rule.values of type string", 1, 0},
		{`[{"regex": 5}]`, "json: cannot unmarshal number into Go struct field Rule.regex of type string", 1, 0},
		{`[{"justWarning": "true"}]`, "json: cannot unmarshal string into Go struct field Rule.justWarning of type bool", 1, 0},
		{`[{"name": "good"}, {"name": "bad", "justWarning": "true"}, {"name": "bad2", "min": "x"}]`,
			// encoding/json records a type error and goes on, but stops at an
			// unmarshaler's error: the later entry's text wins.
			"cannot unmarshall IntOrPath from JSON: invalid JSONPath", 2, 1},
	} {
		a := ParseAnnotation(c.text)
		got := ""
		if a.Err != nil {
			got = a.Err.Error()
		}
		if got != c.err || len(a.Problems) != c.problems || len(a.Rules) != c.rules {
			t.Errorf("%s:\n got err %q, %d problems %v, %d rules\nwant err %q, %d problems, %d rules", c.text, got, len(a.Problems), a.Problems, len(a.Rules), c.err, c.problems, c.rules)
		}
	}
}

func TestParseKeysCaseInsensitiveLastWins(t *testing.T) {
	r := rule(t, `{"NAME": "a", "name": "b", "PATH": "jsonpath::.spec.domain.cpu.cores", "Max": 3, "Rule": "integer"}`)
	if r.Name != "b" || !r.Path.IsSet() || r.Max == nil || r.Max.Int != 3 || r.Rule != TypeInteger {
		t.Errorf("%+v", r)
	}
}

func TestRegexIsNeverAPath(t *testing.T) {
	r := rule(t, `{"name": "r", "rule": "regex", "message": "m", "path": "jsonpath::.spec.domain.machine.type", "regex": "jsonpath::.spec.domain.machine.type"}`)
	res := Evaluate([]*Rule{r}, cirrosVM(t))
	if res.Rules[0].Outcome != Unsatisfied {
		t.Errorf("%v %q", res.Rules[0].Outcome, res.Rules[0].Detail)
	}
}

func TestProblemOffsets(t *testing.T) {
	text := joinLines(
		`[`,
		`  {"name": "ok"},`,
		`  {"name": "bad",`,
		`   "justWarning": "yes"}`,
		`]`)
	a := ParseAnnotation(text)
	if len(a.Problems) != 1 {
		t.Fatalf("%+v", a.Problems)
	}
	p := a.Problems[0]
	if p.Rule != 1 || p.Name != "bad" || lineOf(text, p.Offset) != 4 {
		t.Errorf("problem %+v on line %d, want rule 1 'bad' on line 4", p, lineOf(text, p.Offset))
	}
	b := ParseAnnotation(joinLines(`[`, `  {"name": "a"},`, `  {"name": "b",}`, `]`))
	if lineOf(joinLines(`[`, `  {"name": "a"},`, `  {"name": "b",}`, `]`), b.Problems[0].Offset) != 3 {
		t.Errorf("syntax error offset %d", b.Problems[0].Offset)
	}
}

func lineOf(text string, off int) int {
	line := 1
	for i := 0; i < off && i < len(text); i++ {
		if text[i] == '\n' {
			line++
		}
	}
	return line
}

func TestLint(t *testing.T) {
	rs := mustRules(t, `[
	  {"name": "a", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "min": 1},
	  {"name": "a", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "min": 1},
	  {"rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores"},
	  {"name": "c", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores"},
	  {"name": "d", "rule": "value-set", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores"},
	  {"name": "e", "rule": "integer", "path": "jsonpath::.spec.domain.cpu.cores"},
	  {"name": "f", "rule": "integer", "message": "m"},
	  {"name": "g", "rule": "regex", "message": "m", "path": "jsonpath::.spec.domain.machine.type", "regex": "(?<=q)35"},
	  {"name": "h", "rule": "integer", "message": "m", "path": "jsonpath::.spec.domain.cpu.cores", "min": 1e100, "max": 9223372036854775807}
	]`)
	kinds := map[string]int{}
	for _, p := range Lint(rs) {
		kinds[p.Kind] = p.Rule
		// What Go's conversion yields depends on the processor.
		if p.Kind == "out-of-range" && !strings.HasPrefix(p.Message, "min 1e100 does not fit in a 64-bit integer: the validator converts it to ") {
			t.Errorf("out of range: %s", p.Message)
		}
	}
	want := map[string]int{"duplicate-name": 1, "missing-name": 2, "missing-rule": 3, "unknown-rule": 4, "missing-message": 5, "missing-path": 6, "regex": 7, "out-of-range": 8}
	for k, i := range want {
		if got, ok := kinds[k]; !ok || got != i {
			t.Errorf("%s: rule %d (present %v), want rule %d", k, got, ok, i)
		}
	}
	if len(kinds) != len(want) {
		t.Errorf("kinds %v", kinds)
	}
}

func TestElementOffsets(t *testing.T) {
	text := `  [ {"a": "x]}\"{"}, [1, {"b": [2]}] ,"s,t" , 12 ,true,null,{}]`
	got := elementOffsets([]byte(text))
	var want []int
	for _, s := range []string{`{"a"`, `[1,`, `"s,t"`, `12`, `true`, `null`, `{}]`} {
		want = append(want, strings.Index(text, s))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("offsets %v, want %v", got, want)
	}
	if elementOffsets([]byte(`[]`)) != nil || elementOffsets([]byte(`{}`)) != nil {
		t.Error("empty or not a list")
	}
}
