package rules

import (
	"strings"
	"testing"
)

// Ironic TestOperators.test_rule_operators: for every operator a case that
// is true and one that is false (ne, le and ge are not registered in Ironic
// and not accepted here: see TestUnregisteredOperators).
func TestOperatorTruthTable(t *testing.T) {
	cases := []struct {
		name, cond string
		want       bool
	}{
		{"eq true", `{op: eq, args: {values: [1, 1, 1]}}`, true},
		{"eq false", `{op: eq, args: {values: [1, 2]}}`, false},
		{"eq one value", `{op: eq, args: {values: [1]}}`, true},
		{"lt true", `{op: lt, args: {values: [1, 2, 3]}}`, true},
		{"lt false", `{op: lt, args: {values: [1, 3, 2]}}`, false},
		{"gt true", `{op: gt, args: {values: [3, 2, 1]}}`, true},
		{"gt false", `{op: gt, args: {values: [3, 3]}}`, false},
		{"!eq is ne", `{op: "!eq", args: {values: [1, 2]}}`, true},
		{"!gt is le", `{op: "!gt", args: {values: [2, 2]}}`, true},
		{"!lt is ge", `{op: "!lt", args: {values: [1, 2]}}`, false},
		{"is-empty true", `{op: is-empty, args: {value: ""}}`, true},
		{"is-empty false", `{op: is-empty, args: {value: "16"}}`, false},
		{"in-net true", `{op: in-net, args: {address: 192.0.2.4, subnet: 192.0.2.1/24}}`, true},
		{"in-net false", `{op: in-net, args: {address: 192.1.2.4, subnet: 192.0.2.1/24}}`, false},
		{"in-net ipv6", `{op: in-net, args: {address: "2001:db8::1", subnet: "2001:db8::/32"}}`, true},
		{"matches true", `{op: matches, args: {value: foo, regex: ".*"}}`, true},
		{"matches false", `{op: matches, args: {value: foo, regex: fo}}`, false},
		{"contains true", `{op: contains, args: {value: foo, regex: "o{1,2}"}}`, true},
		{"contains false", `{op: contains, args: {value: foo, regex: bar}}`, false},
		{"one-of true", `{op: one-of, args: {value: a, values: [a, b]}}`, true},
		{"one-of false", `{op: one-of, args: {value: c, values: [a, b]}}`, false},
		{"is-none true", `{op: is-none, args: {value: null}}`, true},
		{"is-none false", `{op: is-none, args: {value: 0}}`, false},
		{"is-true true", `{op: is-true, args: {value: true}}`, true},
		{"is-true false", `{op: is-true, args: {value: false}}`, false},
		{"is-false true", `{op: is-false, args: {value: false}}`, true},
		{"is-false false", `{op: is-false, args: {value: true}}`, false},
	}
	for _, c := range cases {
		if got := mustCondition(t, c.cond); got != c.want {
			t.Errorf("%s: %s = %v, want %v", c.name, c.cond, got, c.want)
		}
	}
}

// Inspector's matches and contains tables (test_plugins_rules.py), with
// matches as a full match.
func TestMatchesAndContainsTables(t *testing.T) {
	for _, c := range []struct {
		op, value, regex string
		want             bool
	}{
		{"matches", "foo", ".*", true},
		{"matches", "foo", "fo{1,2}", true},
		{"matches", "foo", "o{1,2}", false},
		{"matches", "42", "[1-9]*", true},
		{"matches", "foo", "^(foo|bar)$", true},
		{"matches", "foo", "fo", false},
		{"contains", "foo", "o{1,2}", true},
		{"contains", "foo", "bar", false},
		{"contains", "Dell Inc.", "(?i)dell", true},
	} {
		cond := `{op: ` + c.op + `, args: {value: "` + c.value + `", regex: "` + c.regex + `"}}`
		if got := mustCondition(t, cond); got != c.want {
			t.Errorf("%s %q %q = %v, want %v", c.op, c.value, c.regex, got, c.want)
		}
	}
}

// D17: matches is a full match of the whole expression. Ironic appends "$"
// to the regex, so "a|b" becomes "a|b$" and matches "ax": plumb does not.
func TestMatchesAnchorsTheWholeAlternation(t *testing.T) {
	if mustCondition(t, `{op: matches, args: {value: ax, regex: "a|b"}}`) {
		t.Error(`"ax" matches "a|b" (Ironic's quirk; D17 says full match)`)
	}
	if !mustCondition(t, `{op: matches, args: {value: b, regex: "a|b"}}`) {
		t.Error(`"b" does not match "a|b"`)
	}
}

// Ironic test_is_true_false_operators_edge_cases.
func TestIsTrueIsFalseEdgeCases(t *testing.T) {
	for _, c := range []struct {
		value           string
		isTrue, isFalse bool
	}{
		{"yes", true, false},
		{"TRUE", true, false},
		{"no", false, true},
		{"FALSE", false, true},
		{"1", true, false}, // a YAML integer
		{"0.1", true, false},
		{"0", false, true},
		{"null", false, true},
		{"{}", false, false},
		{"[]", false, false},
		{`"1"`, false, false}, // the string "1" is neither (Ironic)
		{`"0"`, false, false},
		{"random", false, false}, // both false on purpose (spec note)
	} {
		if got := mustCondition(t, `{op: is-true, args: {value: `+c.value+`}}`); got != c.isTrue {
			t.Errorf("is-true %s = %v", c.value, got)
		}
		if got := mustCondition(t, `{op: is-false, args: {value: `+c.value+`}}`); got != c.isFalse {
			t.Errorf("is-false %s = %v", c.value, got)
		}
	}
}

// Inspector's is-empty table: None, ”, [], {} are empty; 0, '16', ['16'],
// {'test': '16'} are not. Difference (named): Ironic compares the string
// form, so the literal strings "None", "[]" and "{}" are empty there; with
// typed values (D1) they are ordinary strings here.
func TestIsEmpty(t *testing.T) {
	for value, want := range map[string]bool{
		"null": true, `""`: true, "[]": true, "{}": true,
		"0": false, `"16"`: false, `["16"]`: false, `{test: "16"}`: false,
		`"None"`: false, `"[]"`: false,
	} {
		if got := mustCondition(t, `{op: is-empty, args: {value: `+value+`}}`); got != want {
			t.Errorf("is-empty %s = %v, want %v", value, got, want)
		}
	}
}

// Ironic test_is_empty_with_missing_field: a field that does not resolve is
// empty (D7: any unresolvable reference, not only a missing key).
func TestIsEmptyWithMissingField(t *testing.T) {
	for cond, want := range map[string]bool{
		`{op: is-empty, args: {value: "{inventory[i.do.not.exist]}"}}`:   true,
		`{op: is-empty, args: {value: "{inventory[bmc_address]}"}}`:      false,
		`{op: is-empty, args: {value: "{inventory[empty_field]}"}}`:      true,
		`{op: is-empty, args: {value: "{inventory[interfaces][9]}"}}`:    true, // Ironic: IndexError keeps the literal (not empty)
		`{op: is-empty, args: {value: "x{inventory[nope]}"}}`:            true,
		`{op: is-empty, args: {value: "{inventory[cpu][count][deep]}"}}`: true,
	} {
		if got := mustCondition(t, cond); got != want {
			t.Errorf("%s = %v, want %v", cond, got, want)
		}
	}
}

// Ironic test_oneofoperator_edge_cases.
func TestOneOfEdgeCases(t *testing.T) {
	for cond, want := range map[string]bool{
		`{op: one-of, args: {value: test, values: []}}`:     false,
		`{op: one-of, args: {value: null, values: [a, b]}}`: false,
		`{op: one-of, args: {value: a, values: [a, b]}}`:    true,
		`{op: one-of, args: {value: test}}`:                 false, // values defaults to []
		// plumb interpolates values outside loops too (typed, D1):
		`{op: one-of, args: {value: eth1, values: ["{inventory[interfaces][0][name]}", "{inventory[interfaces][1][name]}"]}}`: true,
		`{op: one-of, args: {value: 4, values: ["4"]}}`:                                                                       true, // D2: a number equals its numeric string
	} {
		if got := mustCondition(t, cond); got != want {
			t.Errorf("%s = %v, want %v", cond, got, want)
		}
	}
}

// Ironic test_simple_operator_interpolates_values.
func TestSimpleOperatorInterpolatesValues(t *testing.T) {
	if !mustCondition(t, `{op: eq, args: {values: ["{node.driver}", fake-hardware]}}`) {
		t.Error("node.driver is not fake-hardware")
	}
	if mustCondition(t, `{op: eq, args: {values: ["{node.driver}", other]}}`) {
		t.Error("node.driver equals other")
	}
}

// Ironic test_operator_with_loop, with D4: "first" is the first iteration
// only. The three loops of the Ironic test give the same results (their
// first items match); the last case is the one where Ironic's "first"
// (which behaves like "any") would say true.
func TestOperatorWithLoop(t *testing.T) {
	conds := []string{
		`{op: eq, args: {values: [1, "{item}"]}, loop: [1, 2, 3, 4], multiple: %s}`,
		`{op: contains, args: {value: "{item}", regex: "4"}, loop: [test4, value5, string6], multiple: %s}`,
		`{op: one-of, args: {value: "{inventory[cpu][architecture]}", values: ["{item}"]}, loop: [x86_64, aarch64, ppc64le], multiple: %s}`,
	}
	want := map[string]bool{"any": true, "all": false, "first": true, "last": false}
	for _, c := range conds {
		for mode, w := range want {
			cond := strings.Replace(c, "%s", mode, 1)
			if got := mustCondition(t, cond); got != w {
				t.Errorf("%s = %v, want %v", cond, got, w)
			}
		}
	}
	// D4 (named difference): Ironic gives true here.
	if mustCondition(t, `{op: eq, args: {values: [1, "{item}"]}, loop: [2, 1], multiple: first}`) {
		t.Error("first looked past the first iteration")
	}
	// last is the last iteration; all/any of an empty loop.
	if !mustCondition(t, `{op: eq, args: {values: [1, "{item}"]}, loop: [2, 1], multiple: last}`) {
		t.Error("last is not the last iteration")
	}
	// A mapping loop is one iteration with the whole mapping as item.
	if !mustCondition(t, `{op: eq, args: {values: ["{item[a]}", 1]}, loop: {a: 1, b: 2}, multiple: all}`) {
		t.Error("mapping loop")
	}
	// Inversion applies per iteration, before joining (Ironic).
	if !mustCondition(t, `{op: "!eq", args: {values: [1, "{item}"]}, loop: [1, 2], multiple: any}`) {
		t.Error("!eq over [1,2] with any should hold (2 != 1)")
	}
	if mustCondition(t, `{op: "!eq", args: {values: [1, "{item}"]}, loop: [1, 2], multiple: all}`) {
		t.Error("!eq over [1,2] with all should not hold")
	}
}

// D3: loops do not force strings; typing makes "9" < "10" numeric.
func TestLoopsDoNotForceStrings(t *testing.T) {
	if !mustCondition(t, `{op: lt, args: {values: ["{item}", 10]}, loop: [9], multiple: all}`) {
		t.Error("9 < 10 in a loop is false (Ironic compares strings in loops; D3 does not)")
	}
}

// D18: a loop over a field.
func TestLoopOverField(t *testing.T) {
	if !mustCondition(t, `{op: matches, args: {value: "{item[mac_address]}", regex: "2a:03:.*"}, loop: "{inventory[interfaces]}", multiple: all}`) {
		t.Error("loop over inventory interfaces")
	}
	if mustCondition(t, `{op: eq, args: {values: ["{item[size]}", 1000000]}, loop: "{inventory[disks]}", multiple: all}`) {
		t.Error("all disks are not 1000000")
	}
	// A field that does not resolve gives no iterations (any → false, all → true).
	if mustCondition(t, `{op: eq, args: {values: [1, 1]}, loop: "{inventory[nothing]}", multiple: any}`) {
		t.Error("any over nothing")
	}
	if !mustCondition(t, `{op: eq, args: {values: [1, 2]}, loop: "{inventory[nothing]}", multiple: all}`) {
		t.Error("all over nothing")
	}
	// A scalar is an error.
	if _, err := condition(t, `{op: eq, args: {values: [1, 1]}, loop: "{inventory[bmc_address]}"}`); err == nil || !strings.Contains(err.Error(), "not a list or mapping") {
		t.Errorf("loop over a string: %v", err)
	}
}

// D2: comparisons are typed; a number and a numeric string compare as
// numbers; strings compare lexicographically; mixed types are an error
// (Ironic: Python TypeError aborts). force_strings keeps Ironic's meaning.
func TestTypedComparisons(t *testing.T) {
	for cond, want := range map[string]bool{
		`{op: eq, args: {values: ["42", 42]}}`:                                             true,
		`{op: eq, args: {values: ["4.2", 4.2]}}`:                                           true,
		`{op: eq, args: {values: [4, 4.0]}}`:                                               true,
		`{op: eq, args: {values: ["1", "1.0"]}}`:                                           false, // both strings
		`{op: eq, args: {values: [true, "true"]}}`:                                         false,
		`{op: eq, args: {values: [[1, 2], [1, 2]]}}`:                                       true,
		`{op: eq, args: {values: ["{inventory[cpu][count]}", 4]}}`:                         true, // D1: typed
		`{op: eq, args: {values: ["{inventory[cpu]}", {count: 4, architecture: x86_64}]}}`: true,
		`{op: lt, args: {values: ["9", "10"]}}`:                                            true, // numeric strings compare as numbers
		`{op: lt, args: {values: ["9", "10"], force_strings: true}}`:                       false,
		`{op: lt, args: {values: [abc, abd]}}`:                                             true,
		`{op: eq, args: {values: [1, "1"], force_strings: true}}`:                          true,
		`{op: gt, args: {values: ["{inventory[memory][total]}", 4096]}}`:                   true,
		`{op: eq, args: {values: ["{inventory[nope]}", "{inventory[nope]}"]}}`:             true, // D7: kept literally on both sides
	} {
		if got := mustCondition(t, cond); got != want {
			t.Errorf("%s = %v, want %v", cond, got, want)
		}
	}
	if _, err := condition(t, `{op: lt, args: {values: [abc, 3]}}`); err == nil || !strings.Contains(err.Error(), `cannot order string "abc" and number 3`) {
		t.Errorf("lt string vs number: %v", err)
	}
	if _, err := condition(t, `{op: gt, args: {values: [[1], [2]]}}`); err == nil {
		t.Error("gt on lists should be an error")
	}
}

// Ironic test_operator_exceptions: a bad subnet, a bad regex and a values
// argument that is not a list. Differences (named): plumb checks literal
// arguments when the rule loads (TestValidationErrors), so here they come
// from interpolated values, at run time.
func TestOperatorRunTimeErrors(t *testing.T) {
	inv := ironicInventory()
	inv["subnet"] = "not-a-subnet"
	inv["regex"] = "[unclosed"
	inv["words"] = "not-a-list"
	for cond, want := range map[string]string{
		`{op: in-net, args: {address: 192.0.2.1, subnet: "{inventory[subnet]}"}}`:               `invalid value for subnet "not-a-subnet"`,
		`{op: in-net, args: {address: "{inventory[interfaces][0][name]}", subnet: 10.0.0.0/8}}`: `invalid value for address "eth0"`,
		`{op: in-net, args: {address: "{inventory[cpu][count]}", subnet: 10.0.0.0/8}}`:          "expected a string",
		`{op: matches, args: {value: x, regex: "{item}"}, loop: ["[unclosed"]}`:                 "invalid regular expression",
		`{op: contains, args: {value: x, regex: "{item}"}, loop: ["(?<=x)"]}`:                   "RE2 syntax",
		`{op: eq, args: {values: "{inventory[words]}"}}`:                                        "expected a list for \"values\"",
		`{op: eq, args: {values: [1, 2], force_strings: "{item}"}, loop: [maybe]}`:              "expected true or false",
	} {
		_, err := conditionOn(t, cond, ironicNode(), inv, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", cond, err, want)
		}
	}
}

// Ironic test_list_style_args_deprecated: list-form args still work, with a
// warning (D15).
func TestListStyleArgsDeprecated(t *testing.T) {
	if !mustCondition(t, `{op: contains, args: [testvalue, test]}`) {
		t.Error("list-form contains")
	}
	if !mustCondition(t, `{op: contains, args: {value: testvalue, regex: test}}`) {
		t.Error("dict-form contains")
	}
	list := problems("- conditions: [{op: contains, args: [testvalue, test]}]\n  actions: [{op: log, args: {msg: x}}]\n")
	dict := problems("- conditions: [{op: contains, args: {value: testvalue, regex: test}}]\n  actions: [{op: log, args: {msg: x}}]\n")
	if len(list) != 1 || !strings.Contains(list[0], "warning: conditions[0] (contains): list-form args are deprecated") {
		t.Errorf("list form: %v", list)
	}
	if len(dict) != 0 {
		t.Errorf("dict form: %v", dict)
	}
}

// D5: "! eq" with a space is accepted and means !eq.
func TestInversionWithSpace(t *testing.T) {
	for _, op := range []string{`"!eq"`, `"! eq"`, `" !eq "`} {
		if !mustCondition(t, `{op: `+op+`, args: {values: [1, 2]}}`) {
			t.Errorf("%s [1, 2] should hold", op)
		}
	}
}
