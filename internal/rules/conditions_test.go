package rules

import (
	"strings"
	"testing"
)

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

// Ironic ironic/common/inspection_rules/operators.py (EmptyCondition): a
// value is empty when its string form is "", "None", "[]" or "{}"; so
// null, empty strings, lists and mappings, and the strings "None", "[]"
// and "{}" are empty; 0, '16', ['16'], {'test': '16'} are not (test
// test_empty in ironic/tests/unit/common/test_inspection_rule.py).
func TestIsEmpty(t *testing.T) {
	for value, want := range map[string]bool{
		"null": true, `""`: true, "[]": true, "{}": true,
		"0": false, `"16"`: false, `["16"]`: false, `{test: "16"}`: false,
		`"None"`: true, `"[]"`: true, `"{{}}"`: true, `"none"`: false, `" "`: false, "false": false,
	} {
		if got := mustCondition(t, `{op: is-empty, args: {value: `+value+`}}`); got != want {
			t.Errorf("is-empty %s = %v, want %v", value, got, want)
		}
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
// numbers; two strings compare as strings; other mixed types are an error
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
		// Ironic operators.py (LtCondition, GtCondition): Python compares
		// two strings as strings, numeric or not.
		`{op: lt, args: {values: ["9", "10"]}}`:                                false,
		`{op: gt, args: {values: ["9", "10"]}}`:                                true,
		`{op: lt, args: {values: [9, 10]}}`:                                    true,
		`{op: lt, args: {values: ["9", 10]}}`:                                  true, // D2: a number and a numeric string
		`{op: gt, args: {values: [10.5, 10]}}`:                                 true,
		`{op: lt, args: {values: ["9", "10"], force_strings: true}}`:           false,
		`{op: lt, args: {values: [abc, abd]}}`:                                 true,
		`{op: eq, args: {values: [1, "1"], force_strings: true}}`:              true,
		`{op: gt, args: {values: ["{inventory[memory][total]}", 4096]}}`:       true,
		`{op: eq, args: {values: ["{inventory[nope]}", "{inventory[nope]}"]}}`: true, // D7: kept literally on both sides
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

// D5: "! eq" with a space is accepted and means !eq.
func TestInversionWithSpace(t *testing.T) {
	for _, op := range []string{`"!eq"`, `"! eq"`, `" !eq "`} {
		if !mustCondition(t, `{op: `+op+`, args: {values: [1, 2]}}`) {
			t.Errorf("%s [1, 2] should hold", op)
		}
	}
}

// is-none is true for null only: a field that resolves to null is none; a
// field that does not resolve is kept as written (a string, D7), so it is
// not none — write is-empty to test for a missing field.
func TestIsNone(t *testing.T) {
	node := ironicNode()
	node["spec"] = map[string]any{"nothing": nil, "zero": int64(0)}
	for cond, want := range map[string]bool{
		`{op: is-none, args: {value: null}}`:                   true,
		`{op: is-none, args: {value: "{node.spec.nothing}"}}`:  true,
		`{op: is-none, args: {value: "{node.spec.zero}"}}`:     false,
		`{op: is-none, args: {value: "{node.spec.missing}"}}`:  false,
		`{op: is-none, args: {value: ""}}`:                     false,
		`{op: "!is-none", args: {value: "{node.spec.zero}"}}`:  true,
		`{op: is-empty, args: {value: "{node.spec.missing}"}}`: true,
	} {
		got, err := conditionOn(t, cond, node, ironicInventory(), nil)
		if err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", cond, got, err, want)
		}
	}
}

// in-net with interpolated arguments; host bits in the subnet are allowed
// (Ironic), and IPv4-mapped IPv6 addresses count as IPv4.
func TestInNetInterpolated(t *testing.T) {
	for cond, want := range map[string]bool{
		`{op: in-net, args: {address: "{inventory[bmc_address]}", subnet: 192.168.1.1/24}}`: true,
		`{op: in-net, args: {address: "{inventory[bmc_address]}", subnet: 10.0.0.0/8}}`:     false,
		`{op: in-net, args: {address: "::ffff:192.168.1.7", subnet: 192.168.1.0/24}}`:       true,
		`{op: "! in-net", args: {address: "{inventory[bmc_address]}", subnet: 10.0.0.0/8}}`: true,
	} {
		if got := mustCondition(t, cond); got != want {
			t.Errorf("%s = %v, want %v", cond, got, want)
		}
	}
}
