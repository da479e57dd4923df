package rules

// The unit scenarios of Ironic's ironic/tests/unit/common/test_inspection_rule.py
// (research §7.1), one test each, named TestIronic<test>. Where plumb
// differs on purpose (research §9, D1–D20, and the mapping of §10) the test
// says so in a "Difference" comment; docs/rules.md lists the same
// differences.

import (
	"reflect"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// runSet runs every phase of a loaded set on one subject.
func runSet(t *testing.T, set *Set, opts Options, node, inv, pd map[string]any) *subject {
	t.Helper()
	e := NewEngine(set, opts)
	s := newTestSubject(e, node, inv, pd)
	for _, p := range Phases {
		e.runPhase(s, p, e.Rules(p))
	}
	return s
}

func appliedRules(s *subject) string {
	var out []string
	for _, a := range s.applied {
		out = append(out, a.rule.UUID)
	}
	return strings.Join(out, ",")
}

// explanation is what --explain recorded for the subject.
func explanation(s *subject) string { return strings.Join(s.explain, "\n") }

// TestLoadRules

// Ironic test_load_rules_not_list: a rules file holds a list. Difference:
// Ironic raises and stops; plumb reports the file at file:line and goes on
// with the other files (a built-in file that is not a list is a bug in
// plumb, flagged as such).
func TestIronicLoadRulesNotList(t *testing.T) {
	set := Load([]Source{
		{Name: "rules.yaml", Data: []byte("uuid: x\nactions: []\n")},
		{Name: "more.yaml", Data: []byte("- {uuid: ok, actions: [{op: log, args: {msg: x}}]}\n")},
	}, manifest.Limits{})
	if len(set.Problems) != 1 || set.Problems[0].Error() != "rules.yaml:1:1: error: a rules file holds a YAML list of rules, found mapping" {
		t.Errorf("problems %v", set.Problems)
	}
	if len(set.Rules) != 1 || set.Rules[0].UUID != "ok" {
		t.Errorf("the other file's rule did not load: %v", set.Rules)
	}
	set = Load([]Source{{Name: "reference/rules/x.yaml", BuiltIn: true, Data: []byte("{}\n")}}, manifest.Limits{})
	if len(set.Problems) != 1 || !set.Problems[0].BuiltIn {
		t.Errorf("built-in problems %v", set.Problems)
	}
}

// TestApplyRules

// Ironic test_apply_rules_success: a user rule (priority 100) and a
// built-in rule (priority 50) both match: both are checked and applied,
// the higher priority first.
func TestIronicApplyRulesSuccess(t *testing.T) {
	set := Load([]Source{
		{Name: "reference/rules/b.yaml", BuiltIn: true, Data: []byte(`
- uuid: built-in
  priority: 50
  conditions: [{op: eq, args: {values: ["{node.driver}", fake-hardware]}}]
  actions: [{op: extend-plugin-data, args: {path: order, value: built-in}}]
`)},
		{Name: "rules.yaml", Data: []byte(`
- uuid: user
  priority: 100
  conditions: [{op: eq, args: {values: ["{inventory[cpu][architecture]}", x86_64]}}]
  actions: [{op: extend-plugin-data, args: {path: order, value: user}}]
`)},
	}, manifest.Limits{})
	// Difference: plumb's inventory has fixed entries, so the fixture's
	// inventory[cpu] (a node's hardware) gets a validation warning; the rule
	// still loads and, over the Ironic fixture, still matches.
	if len(set.Problems) != 1 || !set.Problems[0].Warning || !strings.Contains(set.Problems[0].Message, `no entry "cpu"`) {
		t.Fatal(set.Problems)
	}
	s := runSet(t, set, Options{}, ironicNode(), ironicInventory(), ironicPluginData())
	if appliedRules(s) != "user,built-in" || compactJSON(s.pluginData["order"]) != `["user","built-in"]` {
		t.Errorf("applied %s, plugin data %v", appliedRules(s), s.pluginData)
	}
}

// Ironic test_apply_rules_some_conditions_pass: the first rule's
// conditions fail, the second's pass: both are checked, one is applied.
func TestIronicApplyRulesSomeConditionsPass(t *testing.T) {
	s := runOn(t, `
- uuid: first
  priority: 100
  conditions: [{op: eq, args: {values: ["{node.driver}", ipmi]}}]
  actions: [{op: set-plugin-data, args: {path: first, value: 1}}]
- uuid: second
  priority: 50
  conditions: [{op: eq, args: {values: ["{node.driver}", fake-hardware]}}]
  actions: [{op: set-plugin-data, args: {path: second, value: 1}}]
`, Options{Explain: true}, ironicNode(), nil, nil)
	if appliedRules(s) != "second" || s.pluginData["first"] != nil || s.pluginData["second"] != int64(1) {
		t.Errorf("applied %s, plugin data %v", appliedRules(s), s.pluginData)
	}
	ex := explanation(s)
	if !strings.Contains(ex, "[SKIP] rule first") || !strings.Contains(ex, "[MATCH] rule second") {
		t.Errorf("both rules were not checked:\n%s", ex)
	}
}

// Ironic test_apply_rules_all_conditions_fail: both rules are checked,
// none is applied.
func TestIronicApplyRulesAllConditionsFail(t *testing.T) {
	s := runOn(t, `
- uuid: first
  conditions: [{op: eq, args: {values: ["{node.driver}", ipmi]}}]
  actions: [{op: set-plugin-data, args: {path: first, value: 1}}]
- uuid: second
  conditions: [{op: is-true, args: {value: "{plugin_data[nope]}"}}]
  actions: [{op: set-plugin-data, args: {path: second, value: 1}}]
`, Options{Explain: true}, ironicNode(), nil, nil)
	if appliedRules(s) != "" || len(s.pluginData) != 0 || len(s.findings) != 0 {
		t.Errorf("applied %q, plugin data %v", appliedRules(s), s.pluginData)
	}
	if ex := explanation(s); strings.Count(ex, "[SKIP]") != 2 {
		t.Errorf("explanation:\n%s", ex)
	}
}

// TestCheckRule

// Ironic test_check_rule_conditions_pass: the conditions hold, and they
// read inventory and plugin data through the mask.
func TestIronicCheckRuleConditionsPass(t *testing.T) {
	s := runOn(t, `
- uuid: masked
  conditions:
    - {op: eq, args: {values: ["{inventory[bmc_password]}", "***"]}}
    - {op: eq, args: {values: ["{plugin_data[password]}", "***"]}}
    - {op: eq, args: {values: ["{plugin_data[plugin]}", data]}}
  actions: [{op: add-trait, args: {name: checked}}]
`, Options{}, ironicNode(), ironicInventory(), ironicPluginData())
	if appliedRules(s) != "masked" || strings.Join(s.traits, ",") != "checked" {
		t.Errorf("applied %q", appliedRules(s))
	}
}

// Ironic test_check_rule_conditions_fail: a false condition skips the rule
// (nothing runs, nothing is reported), and evaluation stops at it.
func TestIronicCheckRuleConditionsFail(t *testing.T) {
	s := runOn(t, `
- uuid: skipped
  conditions:
    - {op: is-false, args: {value: "{node.driver}"}}
    - {op: eq, args: {values: [1, 1]}}
  actions: [{op: fail, args: {msg: never}}]
`, Options{Explain: true}, ironicNode(), ironicInventory(), ironicPluginData())
	ex := explanation(s)
	if appliedRules(s) != "" || len(s.findings) != 0 || s.stopped {
		t.Errorf("applied %q, findings %v", appliedRules(s), messages(findingsOf(s)))
	}
	if !strings.Contains(ex, `conditions[0] is-false value="fake-hardware": FAILED`) || strings.Contains(ex, "conditions[1]") {
		t.Errorf("explanation:\n%s", ex)
	}
}

// maskCase runs a rule reading inventory[bmc_password] under a mode and
// says whether it read "***".
func maskCase(t *testing.T, mode MaskMode, sensitive bool) bool {
	t.Helper()
	set := loadRules(t, `
- uuid: reader
  sensitive: `+map[bool]string{true: "true", false: "false"}[sensitive]+`
  actions: [{op: set-plugin-data, args: {path: seen, value: "{inventory[bmc_password]}"}}]
`)
	s := runSet(t, set, Options{Mask: mode}, ironicNode(), ironicInventory(), nil)
	switch s.pluginData["seen"] {
	case Masked:
		return true
	case "secret":
		return false
	}
	t.Fatalf("read %v", s.pluginData["seen"])
	return false
}

// Ironic test_check_rule_mask_always: a rule that is not sensitive reads
// masked data.
func TestIronicCheckRuleMaskAlways(t *testing.T) {
	if !maskCase(t, MaskAlways, false) || !maskCase(t, MaskAlways, true) {
		t.Error("always did not mask")
	}
}

// Ironic test_check_rule_mask_never.
func TestIronicCheckRuleMaskNever(t *testing.T) {
	if maskCase(t, MaskNever, false) || maskCase(t, MaskNever, true) {
		t.Error("never masked")
	}
}

// Ironic test_check_rule_mask_sensitive_non_sensitive_rule.
func TestIronicCheckRuleMaskSensitiveNonSensitiveRule(t *testing.T) {
	if !maskCase(t, MaskSensitive, false) {
		t.Error("sensitive mode did not mask a rule that is not sensitive")
	}
}

// Ironic test_check_rule_mask_sensitive_sensitive_rule.
func TestIronicCheckRuleMaskSensitiveSensitiveRule(t *testing.T) {
	if maskCase(t, MaskSensitive, true) {
		t.Error("sensitive mode masked a sensitive rule")
	}
}

// TestActions

// Ironic test_log_action: log reports the message (interpolated) at info
// level. Difference (§10.1): the log is a finding (info is a note), at the
// object, with the rule as related location.
func TestIronicLogAction(t *testing.T) {
	s := runOn(t, `
- uuid: logger
  description: Log things
  actions: [{op: log, args: {msg: "driver {node.driver}"}}]
`, Options{}, ironicNode(), nil, nil)
	fs := findingsOf(s)
	if len(fs) != 1 || fs[0].Level != finding.Note || fs[0].Message != "driver fake-hardware" || fs[0].RuleID != "rule/logger" ||
		fs[0].Title != "Log things" || fs[0].Source != finding.SourceRule || len(fs[0].Related) != 1 || fs[0].Related[0].Location.Line != 2 {
		t.Errorf("findings:\n%s%+v", messages(fs), fs)
	}
	if s.stopped {
		t.Error("log stopped the subject")
	}
}

// Ironic test_fail_action: fail ends the inspection. Difference (§10.1): the
// failure is an error finding at the object and stops only this object's
// remaining rules; D6: msg is interpolated outside loops too.
func TestIronicFailAction(t *testing.T) {
	s := runOn(t, `
- uuid: failer
  priority: 10
  actions:
    - {op: fail, args: {msg: "inspection failed on {node.driver}"}}
    - {op: log, args: {msg: never}}
- uuid: after
  actions: [{op: log, args: {msg: never either}}]
`, Options{}, ironicNode(), nil, nil)
	fs := findingsOf(s)
	if len(fs) != 1 || fs[0].Level != finding.Error || fs[0].Message != "inspection failed on fake-hardware" || fs[0].RuleID != "rule/failer" || fs[0].InputError {
		t.Fatalf("findings:\n%s", messages(fs))
	}
	if !s.stopped || !strings.Contains(s.stoppedBy, "failer") || appliedRules(s) != "failer" {
		t.Errorf("stopped %v by %q, applied %s", s.stopped, s.stoppedBy, appliedRules(s))
	}
	if len(fs[0].Related) != 1 || fs[0].Related[0].Location != (manifest.Location{File: "rules.yaml", Line: 2, Column: 3}) {
		t.Errorf("related %v", fs[0].Related)
	}
}

// Ironic test_action_path_dot_slash_notation: a path with '/' is split on
// '/', one without on '.'; intermediate mappings are created.
func TestIronicActionPathDotSlashNotation(t *testing.T) {
	s := runOn(t, `
- actions:
    - {op: set-attribute, args: {path: driver_info/new, value: {new_key: new_value}}}
    - {op: set-attribute, args: {path: driver_info.next.nested.deeper, value: {next_key: next_value}}}
`, Options{}, ironicNode(), nil, nil)
	want := map[string]any{
		"ipmi_address": "10.0.0.1",
		"new":          map[string]any{"new_key": "new_value"},
		"next":         map[string]any{"nested": map[string]any{"deeper": map[string]any{"next_key": "next_value"}}},
	}
	if !reflect.DeepEqual(s.content["driver_info"], want) || len(errorsOf(s)) > 0 {
		t.Errorf("driver_info %#v %v", s.content["driver_info"], errorsOf(s))
	}
	var ops []string
	for _, p := range s.patch {
		ops = append(ops, p.Op+" "+p.Path)
	}
	if strings.Join(ops, ",") != "add /driver_info/new,add /driver_info/next" {
		t.Errorf("patch %v", ops)
	}
}

// Ironic test_set_attribute_action. Difference (§10.1): the object is a
// private copy (the rendered original is shared and left alone) and the
// change is reported as an RFC 6902 operation.
func TestIronicSetAttributeAction(t *testing.T) {
	node := ironicNode()
	s := runOn(t, "- actions: [{op: set-attribute, args: {path: /driver, value: ipmi}}]\n", Options{}, node, nil, nil)
	if s.content["driver"] != "ipmi" || node["driver"] != "fake-hardware" {
		t.Errorf("driver %v, original %v", s.content["driver"], node["driver"])
	}
	if len(s.patch) != 1 || s.patch[0].Op != "replace" || s.patch[0].Path != "/driver" || s.patch[0].Value != "ipmi" {
		t.Errorf("patch %+v", s.patch)
	}
}

// Ironic test_extend_attribute_action: [existing] + new_tag; unique does not
// append a value already there; a missing list is created.
func TestIronicExtendAttributeAction(t *testing.T) {
	node := ironicNode()
	node["tags"] = []any{"existing"}
	s := runOn(t, `
- actions:
    - {op: extend-attribute, args: {path: tags, value: new_tag}}
    - {op: extend-attribute, args: {path: tags, value: new_tag, unique: true}}
    - {op: extend-attribute, args: {path: /fresh/list, value: 1}}
`, Options{}, node, nil, nil)
	if compactJSON(s.content["tags"]) != `["existing","new_tag"]` || compactJSON(s.content["fresh"]) != `{"list":[1]}` {
		t.Errorf("tags %v fresh %v", s.content["tags"], s.content["fresh"])
	}
	if len(node["tags"].([]any)) != 1 {
		t.Error("the shared list was changed")
	}
}

// Ironic test_del_attribute_action: extra {to_delete} → extra {}.
// Difference (D9): deleting a field that is not there is not an error.
func TestIronicDelAttributeAction(t *testing.T) {
	node := ironicNode()
	node["extra"] = map[string]any{"to_delete": "x"}
	s := runOn(t, `
- actions:
    - {op: del-attribute, args: {path: extra/to_delete}}
    - {op: del-attribute, args: {path: extra.nonexistent_key}}
    - {op: del-attribute, args: {path: /nowhere/at/all}}
`, Options{}, node, nil, nil)
	if !reflect.DeepEqual(s.content["extra"], map[string]any{}) || len(errorsOf(s)) > 0 {
		t.Errorf("extra %v %v", s.content["extra"], errorsOf(s))
	}
	if len(s.patch) != 1 || s.patch[0].Op != "remove" || s.patch[0].Path != "/extra/to_delete" {
		t.Errorf("patch %+v", s.patch)
	}
}

// Ironic test_add_trait_action. Difference (§10.1): traits are tags on the
// object's report entry and findings, not node traits.
func TestIronicAddTraitAction(t *testing.T) {
	s := runOn(t, `
- actions:
    - {op: add-trait, args: {name: CUSTOM_AWESOME_TRAIT}}
    - {op: add-trait, args: {name: CUSTOM_AWESOME_TRAIT}}
    - {op: add-trait, args: {name: CUSTOM_A}}
`, Options{}, ironicNode(), nil, nil)
	if strings.Join(s.traits, ",") != "CUSTOM_A,CUSTOM_AWESOME_TRAIT" {
		t.Errorf("traits %v", s.traits)
	}
}

// Ironic test_remove_trait_action; removing a trait that is not set is
// tolerated (Ironic logs a warning).
func TestIronicRemoveTraitAction(t *testing.T) {
	s := runOn(t, `
- actions:
    - {op: add-trait, args: {name: CUSTOM_AWESOME_TRAIT}}
    - {op: remove-trait, args: {name: CUSTOM_AWESOME_TRAIT}}
    - {op: remove-trait, args: {name: CUSTOM_MISSING}}
`, Options{}, ironicNode(), nil, nil)
	if len(s.traits) != 0 || len(errorsOf(s)) > 0 {
		t.Errorf("traits %v %v", s.traits, errorsOf(s))
	}
}

// unsupportedAction asserts that an Ironic action with no meaning for
// manifests is a validation error at its op, and the rule is left out.
func unsupportedAction(t *testing.T, action, want string) {
	t.Helper()
	set := Load([]Source{{Name: "rules.yaml", Data: []byte("- uuid: r\n  actions:\n    - " + action + "\n")}}, manifest.Limits{})
	if len(set.Rules) != 0 || len(set.Problems) != 1 || !strings.HasPrefix(set.Problems[0].Error(), "rules.yaml:3:8: error: actions[0]: action ") ||
		!strings.Contains(set.Problems[0].Message, want) {
		t.Errorf("problems %v", set.Problems)
	}
}

// Ironic test_set_capability_action. Difference (§10.1): objects have no
// capabilities; the action is rejected when the rule loads.
func TestIronicSetCapabilityAction(t *testing.T) {
	unsupportedAction(t, "{op: set-capability, args: {name: boot_mode, value: uefi}}", `"set-capability" is not supported by plumb`)
}

// Ironic test_unset_capability_action (difference as for set-capability).
func TestIronicUnsetCapabilityAction(t *testing.T) {
	unsupportedAction(t, "{op: unset-capability, args: {name: boot_mode}}", `"unset-capability" is not supported by plumb`)
}

// Ironic test_set_port_attribute_action. Difference (§10.1): objects have
// no ports; the action is rejected when the rule loads.
func TestIronicSetPortAttributeAction(t *testing.T) {
	unsupportedAction(t, "{op: set-port-attribute, args: {port_id: p, path: extra/a, value: 1}}", "objects have no ports")
}

// Ironic test_extend_port_attribute_action (difference as above).
func TestIronicExtendPortAttributeAction(t *testing.T) {
	unsupportedAction(t, "{op: extend-port-attribute, args: {port_id: p, path: extra/a, value: 1}}", "objects have no ports")
}

// Ironic test_del_port_attribute_action (difference as above).
func TestIronicDelPortAttributeAction(t *testing.T) {
	unsupportedAction(t, "{op: del-port-attribute, args: {port_id: p, path: extra/a}}", "objects have no ports")
}

// Ironic test_call_api_hook_action_success. Difference (§10.1): plumb makes
// no network calls while checking; api-call is rejected when the rule loads.
func TestIronicCallAPIHookAction(t *testing.T) {
	unsupportedAction(t, "{op: api-call, args: {url: 'http://example.com/hook'}}", "plumb makes no network calls")
}

// Ironic test_set_plugin_data_action: {existing: data} + test_key. Paths
// split on '.' only.
func TestIronicSetPluginDataAction(t *testing.T) {
	s := runOn(t, `
- actions:
    - {op: set-plugin-data, args: {path: test_key, value: test_value}}
    - {op: set-plugin-data, args: {path: a.b.c, value: "{inventory[cpu]}"}}
    - {op: set-plugin-data, args: {path: slash/key, value: 1}}
`, Options{}, ironicNode(), ironicInventory(), map[string]any{"existing": "data"})
	want := map[string]any{
		"existing":  "data",
		"test_key":  "test_value",
		"a":         map[string]any{"b": map[string]any{"c": map[string]any{"count": int64(4), "architecture": "x86_64"}}},
		"slash/key": int64(1),
	}
	if !reflect.DeepEqual(s.pluginData, want) {
		t.Errorf("plugin data\n%#v\nwant\n%#v", s.pluginData, want)
	}
	// Values are copied: changing plugin data does not change inventory.
	s.pluginData["a"].(map[string]any)["b"].(map[string]any)["c"].(map[string]any)["count"] = int64(99)
	if s.fixedInventory["cpu"].(map[string]any)["count"] != int64(4) {
		t.Error("plugin data aliases inventory")
	}
}

// Ironic test_extend_plugin_data_action: [item1] + item2; unique; a missing
// or empty (falsy) value starts a new list.
func TestIronicExtendPluginDataAction(t *testing.T) {
	s := runOn(t, `
- actions:
    - {op: extend-plugin-data, args: {path: test_list, value: item2}}
    - {op: extend-plugin-data, args: {path: test_list, value: item2, unique: true}}
    - {op: extend-plugin-data, args: {path: fresh, value: 1}}
    - {op: extend-plugin-data, args: {path: falsy, value: 1}}
`, Options{}, ironicNode(), nil, map[string]any{"test_list": []any{"item1"}, "falsy": ""})
	if compactJSON(s.pluginData) != `{"falsy":[1],"fresh":[1],"test_list":["item1","item2"]}` {
		t.Errorf("plugin data %s", compactJSON(s.pluginData))
	}
}

// Ironic test_unset_plugin_data_action: {to_remove, keep} − to_remove.
// Differences (D8): unsetting works through the engine too (Ironic's engine
// passes a masking wrapper that makes it a no-op), a parent mapping left
// empty is removed (one level), and a missing path is not an error.
func TestIronicUnsetPluginDataAction(t *testing.T) {
	s := runOn(t, `
- actions:
    - {op: unset-plugin-data, args: {path: to_remove}}
    - {op: unset-plugin-data, args: {path: nested.only}}
    - {op: unset-plugin-data, args: {path: missing.path}}
`, Options{}, ironicNode(), nil, map[string]any{"to_remove": 1, "keep": "value", "nested": map[string]any{"only": 1}})
	if compactJSON(s.pluginData) != `{"keep":"value"}` || len(errorsOf(s)) > 0 {
		t.Errorf("plugin data %s %v", compactJSON(s.pluginData), errorsOf(s))
	}
}

// Ironic test_action_with_list_loop: set-attribute over three items; the
// third item's value is itself a template, formatted in a second pass
// (D20).
func TestIronicActionWithListLoop(t *testing.T) {
	s := runOn(t, `
- actions:
    - op: set-attribute
      args: {path: "{item[path]}", value: "{item[value]}"}
      loop:
        - {path: driver_info/ipmi_username, value: cidadmin}
        - {path: driver_info/ipmi_password, value: cidpassword}
        - {path: driver_info/ipmi_address, value: "{inventory[bmc_address]}"}
`, Options{}, ironicNode(), ironicInventory(), nil)
	di := s.content["driver_info"].(map[string]any)
	if di["ipmi_username"] != "cidadmin" || di["ipmi_password"] != "cidpassword" || di["ipmi_address"] != "192.168.1.100" {
		t.Errorf("driver_info %v %v", di, errorsOf(s))
	}
}

// Ironic test_action_with_dict_loop: a mapping loop is one iteration with
// the whole mapping as item.
func TestIronicActionWithDictLoop(t *testing.T) {
	s := runOn(t, `
- actions:
    - op: set-attribute
      args: {path: "{item[path]}", value: "{item[value]}"}
      loop: {path: driver_info/ipmi_address, value: "{inventory[bmc_address]}"}
`, Options{}, ironicNode(), ironicInventory(), nil)
	if s.content["driver_info"].(map[string]any)["ipmi_address"] != "192.168.1.100" || len(s.patch) != 1 {
		t.Errorf("driver_info %v", s.content["driver_info"])
	}
}

// TestShallowMask: Ironic's masking view, as plumb applies it to what rules
// read (inventory and plugin data here; D10 adds the node:
// TestMaskedReads).

// shallowMaskInventory is inventory with secrets at several depths.
func shallowMaskInventory() map[string]any {
	inv := ironicInventory()
	inv["bmc"] = map[string]any{"auth_token": "tok-123", "user": "admin"}
	inv["creds"] = []any{map[string]any{"password": "pw-1", "name": "first"}, map[string]any{"name": "second"}}
	return inv
}

func shallowRead(t *testing.T, masked bool, tmpl string) (any, bool) {
	t.Helper()
	v, err := compileValue(tmpl, formatStrict)
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(&Set{}, Options{})
	s := newTestSubject(e, ironicNode(), shallowMaskInventory(), ironicPluginData())
	x := &evalCtx{e: e, s: s, rule: &Rule{}, mask: masked}
	return x.eval(v)
}

// Ironic TestShallowMask.test_toggling: the same data reads masked or clear
// depending on the rule's masking.
func TestIronicShallowMaskToggling(t *testing.T) {
	if got, _ := shallowRead(t, true, "{inventory[bmc_password]}"); got != Masked {
		t.Errorf("masked: %v", got)
	}
	if got, _ := shallowRead(t, false, "{inventory[bmc_password]}"); got != "secret" {
		t.Errorf("clear: %v", got)
	}
}

// Ironic TestShallowMask getitem of a masked key.
func TestIronicShallowMaskGetItemMasked(t *testing.T) {
	for _, tmpl := range []string{"{inventory[bmc_password]}", "{plugin_data[password]}"} {
		if got, _ := shallowRead(t, true, tmpl); got != Masked {
			t.Errorf("%s = %v", tmpl, got)
		}
	}
}

// Ironic TestShallowMask getitem of other keys: clear.
func TestIronicShallowMaskGetItemUnmasked(t *testing.T) {
	for tmpl, want := range map[string]any{"{inventory[bmc_address]}": "192.168.1.100", "{plugin_data[plugin]}": "data", "{inventory[cpu][count]}": int64(4)} {
		if got, _ := shallowRead(t, true, tmpl); got != want {
			t.Errorf("%s = %v", tmpl, got)
		}
	}
}

// Ironic TestShallowMask nested dict: masked keys at any depth.
func TestIronicShallowMaskNestedDict(t *testing.T) {
	if got, _ := shallowRead(t, true, "{inventory[bmc][auth_token]}"); got != Masked {
		t.Errorf("auth_token %v", got)
	}
	if got, _ := shallowRead(t, true, "{inventory[bmc][user]}"); got != "admin" {
		t.Errorf("user %v", got)
	}
	if got, _ := shallowRead(t, true, "{inventory[bmc]}"); compactJSON(got) != `{"auth_token":"***","user":"admin"}` {
		t.Errorf("bmc %v", got)
	}
}

// Ironic TestShallowMask list of dicts.
func TestIronicShallowMaskListOfDicts(t *testing.T) {
	if got, _ := shallowRead(t, true, "{inventory[creds][0][password]}"); got != Masked {
		t.Errorf("password %v", got)
	}
	if got, _ := shallowRead(t, true, "{inventory[creds]}"); compactJSON(got) != `[{"name":"first","password":"***"},{"name":"second"}]` {
		t.Errorf("creds %v", compactJSON(got))
	}
}

// Ironic TestShallowMask items(): a whole mapping read by a rule is masked.
func TestIronicShallowMaskItems(t *testing.T) {
	got, _ := shallowRead(t, true, "{plugin_data}")
	if !reflect.DeepEqual(got, map[string]any{"plugin": "data", "logs": "some logs", "password": Masked}) {
		t.Errorf("plugin_data %v", got)
	}
}

// Ironic TestShallowMask values(): a mapping printed into text is masked.
func TestIronicShallowMaskValues(t *testing.T) {
	got, _ := shallowRead(t, true, "all: {inventory}")
	text := got.(string)
	if strings.Contains(text, "secret") || strings.Contains(text, "tok-123") || strings.Contains(text, "pw-1") ||
		!strings.Contains(text, `"bmc_password":"***"`) || !strings.Contains(text, `"bmc_address":"192.168.1.100"`) {
		t.Errorf("text %s", text)
	}
}

// Ironic TestShallowMask get(): a missing key gives nothing (the field is
// kept as written, D7) and a masked key "***".
func TestIronicShallowMaskGet(t *testing.T) {
	if got, ok := shallowRead(t, true, "{inventory[bmc][missing]}"); ok || got != "{inventory[bmc][missing]}" {
		t.Errorf("missing %v %v", got, ok)
	}
	if got, ok := shallowRead(t, true, "{inventory[bmc][auth_token]}"); !ok || got != Masked {
		t.Errorf("present %v %v", got, ok)
	}
}

// TestValidation

// Ironic test_unsupported_operator_rejected: a condition "!unknown" and an
// action "noop" are both reported (file:line:col), and the rule is left out.
func TestIronicUnsupportedOperatorRejected(t *testing.T) {
	set := Load([]Source{{Name: "rules.yaml", Data: []byte(`- uuid: bad
  conditions:
    - {op: "!unknown", args: {value: 1}}
  actions:
    - {op: noop, args: {}}
`)}}, manifest.Limits{})
	var got []string
	for _, p := range set.Problems {
		got = append(got, p.Error())
	}
	if len(set.Rules) != 0 || len(got) != 2 ||
		!strings.HasPrefix(got[0], `rules.yaml:3:8: error: conditions[0]: unknown operator "unknown"`) ||
		!strings.HasPrefix(got[1], `rules.yaml:5:8: error: actions[0]: unknown action "noop"`) {
		t.Errorf("problems %q", got)
	}
}

// Ironic test_conditions_not_list_raises_invalid.
func TestIronicConditionsNotListRaisesInvalid(t *testing.T) {
	got := problems("- uuid: bad\n  conditions: {op: eq, args: {values: [1, 1]}}\n  actions: [{op: log, args: {msg: x}}]\n")
	if len(got) != 1 || got[0] != "rules.yaml:2:3: error: conditions must be a list, found mapping" {
		t.Errorf("problems %q", got)
	}
}

// Ironic test_missing_actions_key_raises_invalid.
func TestIronicMissingActionsKeyRaisesInvalid(t *testing.T) {
	got := problems("- uuid: bad\n  conditions: []\n")
	if len(got) != 1 || got[0] != "rules.yaml:1:3: error: the rule has no actions: every rule needs at least one" {
		t.Errorf("problems %q", got)
	}
}

// Moved from the plumb-specific test files: the scenarios they reproduce.

// Ironic TestLoadRules.test_load_rules: a full rule loads with every field.
func TestIronicLoadRules(t *testing.T) {
	set := loadRules(t, `
- uuid: full-rule
  description: A full rule
  priority: 42
  phase: preprocess
  scope: payments
  sensitive: true
  conditions:
    - op: "!is-empty"
      args: {value: "{node.metadata.name}"}
    - op: eq
      args: {values: ["{item}", 1]}
      loop: [1, 2]
      multiple: all
  actions:
    - op: set-plugin-data
      args: {path: a.b, value: 1}
    - op: log
      args: {msg: "item {item}", level: warning}
      loop: {x: 1}
`)
	if len(set.Rules) != 1 {
		t.Fatalf("%d rules", len(set.Rules))
	}
	r := set.Rules[0]
	if r.UUID != "full-rule" || r.Description != "A full rule" || r.Priority != 42 || r.Phase != PhasePreprocess ||
		r.Scope != "payments" || !r.Sensitive || r.BuiltIn || r.SyntheticUUID {
		t.Errorf("fields: %+v", r)
	}
	if r.Source != (manifest.Location{File: "rules.yaml", Line: 2, Column: 3}) {
		t.Errorf("source %v", r.Source)
	}
	if len(r.Conditions) != 2 || !r.Conditions[0].Invert || r.Conditions[0].Op != "is-empty" ||
		r.Conditions[1].Multiple != MultipleAll || !r.Conditions[1].HasLoop {
		t.Errorf("conditions: %+v %+v", r.Conditions[0], r.Conditions[1])
	}
	if len(r.Actions) != 2 || r.Actions[1].Op != "log" || !r.Actions[1].HasLoop || r.Actions[0].Args["path"] != "a.b" {
		t.Errorf("actions: %+v %+v", r.Actions[0], r.Actions[1])
	}
	if r.Actions[1].Location.Line != 18 {
		t.Errorf("action location %v", r.Actions[1].Location)
	}
	// Defaults (Ironic's loader): priority 0, phase main, not sensitive,
	// no conditions.
	d := loadRules(t, "- actions: [{op: log, args: {msg: hi}}]\n").Rules[0]
	if d.Priority != 0 || d.Phase != PhaseMain || d.Sensitive || len(d.Conditions) != 0 || d.Description != "" {
		t.Errorf("defaults: %+v", d)
	}
}

// Ironic test_load_rules_generate_missing_uuids: built-in rules without a
// uuid are numbered 00000000-0000-0000-0000-%012x by position among the
// uuid-less ones. User rules get stable name-based ids.
func TestIronicLoadRulesGenerateMissingUUIDs(t *testing.T) {
	builtIn := Source{Name: "reference/rules/x.yaml", BuiltIn: true, Data: []byte(`
- actions: [{op: log, args: {msg: a}}]
- uuid: named
  actions: [{op: log, args: {msg: b}}]
- actions: [{op: log, args: {msg: c}}]
`)}
	user := Source{Name: "site.yaml", Data: []byte("- actions: [{op: log, args: {msg: a}}]\n- actions: [{op: log, args: {msg: b}}]\n")}
	set := Load([]Source{user, builtIn}, manifest.Limits{})
	if len(set.Problems) != 0 {
		t.Fatal(set.Problems)
	}
	var ids []string
	for _, r := range set.Rules {
		ids = append(ids, r.UUID)
	}
	if ids[0] != "00000000-0000-0000-0000-000000000000" || ids[1] != "named" || ids[2] != "00000000-0000-0000-0000-000000000001" {
		t.Errorf("built-in ids %v", ids)
	}
	again := Load([]Source{user, builtIn}, manifest.Limits{})
	if again.Rules[3].UUID != ids[3] || again.Rules[4].UUID != ids[4] || ids[3] == ids[4] || len(ids[3]) != 36 {
		t.Errorf("user ids not stable or not distinct: %v / %s %s", ids, again.Rules[3].UUID, again.Rules[4].UUID)
	}
	if !set.Rules[3].SyntheticUUID || set.Rules[1].SyntheticUUID {
		t.Error("SyntheticUUID flag")
	}
}

// Ironic test_apply_rules_no_rules: without rules nothing is evaluated and
// nothing is reported.
func TestIronicApplyRulesNoRules(t *testing.T) {
	tg := target(t, "app", twoObjects)
	run := runAll(t, &Set{}, Options{Explain: true}, tg)
	sec := run.Section()
	if len(run.Findings()) != 0 || len(sec.Objects) != 0 || len(sec.Documents) != 0 || len(sec.Rules) != 0 || len(run.TargetEnv()) != 0 {
		t.Errorf("something happened: %+v", sec)
	}
	if tg.Objects[0].Node == nil {
		t.Error("an unchanged object lost its YAML node")
	}
}

// Ironic test_apply_rules_ironic_exception: an error stops the remaining
// actions and rules of the subject; the error is a finding naming the rule,
// the condition or action and the cause.
func TestIronicApplyRulesIronicException(t *testing.T) {
	s := runOn(t, `
- uuid: broken
  priority: 100
  actions:
    - {op: set-plugin-data, args: {path: reached, value: true}}
    - {op: set-attribute, args: {path: driver.x, value: 1}}
    - {op: set-plugin-data, args: {path: not-reached, value: true}}
- uuid: later
  actions: [{op: set-plugin-data, args: {path: later, value: true}}]
`, Options{}, ironicNode(), nil, nil)
	fs := findingsOf(s)
	// A rule that fails on the object's data is an error finding of the
	// rule on that object (ironic/common/inspection_rules/engine.py,
	// apply_rules: the rule's exception fails the node's inspection), not
	// an input error: the rules file loaded.
	if len(fs) != 1 || fs[0].InputError || fs[0].Level != finding.Error || fs[0].RuleID != "rule/broken" ||
		!strings.Contains(fs[0].Message, "inspection rule broken could not be applied to") ||
		!strings.Contains(fs[0].Message, "actions[1] (set-attribute) at rules.yaml:6:7: cannot set /driver/x") ||
		!strings.Contains(fs[0].Message, "the remaining rules were not run on it") {
		t.Fatalf("findings:\n%s", messages(fs))
	}
	if fs[0].Related[0].Location.Line != 6 {
		t.Errorf("related %v", fs[0].Related)
	}
	if s.pluginData["reached"] != true || s.pluginData["not-reached"] != nil || s.pluginData["later"] != nil {
		t.Errorf("plugin data %v", s.pluginData)
	}
}

// Ironic test_action_error_cases. Difference (named, D9): deleting a
// missing sub-key is not an error.
func TestIronicActionErrorCases(t *testing.T) {
	cases := map[string]string{
		"- actions: [{op: set-attribute, args: {path: driver.some_key, value: v}}]":      "cannot set /driver/some_key: /driver is a string, not a mapping",
		"- actions: [{op: extend-attribute, args: {path: driver, value: v}}]":            "cannot extend /driver: it is a string, not a list",
		"- actions: [{op: log, args: {msg: x, level: '{item}'}, loop: [invalid_level]}]": `invalid log level "invalid_level"`,
		"- actions: [{op: extend-plugin-data, args: {path: plugin, value: v}}]":          "cannot extend plugin_data.plugin: it is a string, not a list",
		"- actions: [{op: set-plugin-data, args: {path: plugin.x, value: v}}]":           "cannot set plugin_data.plugin.x: plugin_data.plugin is a string, not a mapping",
		"- actions: [{op: add-trait, args: {name: '{item}'}, loop: ['']}]":               "trait name is empty",
		"- actions: [{op: set-attribute, args: {path: '{item}', value: 1}, loop: [3]}]":  "argument path must be a string, got number 3",
		"- actions: [{op: fail, args: {msg: x, path: '{item}'}, loop: ['a..b']}]":        "empty key",
	}
	for rules, want := range cases {
		s := runOn(t, rules+"\n", Options{}, ironicNode(), nil, ironicPluginData())
		errs := errorsOf(s)
		if len(errs) != 1 || !strings.Contains(errs[0], want) {
			t.Errorf("%s:\n got %v\nwant %q", rules, errs, want)
		}
	}
	s := runOn(t, "- actions: [{op: del-attribute, args: {path: driver.nonexistent_key}}]\n", Options{}, ironicNode(), nil, nil)
	if errs := errorsOf(s); len(errs) != 0 || s.owned {
		t.Errorf("deleting a missing key: %v (copied: %v)", errs, s.owned)
	}
}

// Ironic TestOperators.test_rule_operators: for every operator a case that
// is true and one that is false (ne, le and ge are not registered in Ironic
// and not accepted here: see TestUnregisteredOperators).
func TestIronicRuleOperators(t *testing.T) {
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

// Ironic test_is_true_false_operators_edge_cases.
func TestIronicIsTrueFalseOperatorsEdgeCases(t *testing.T) {
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

// Ironic test_is_empty_with_missing_field: a field that does not resolve is
// empty (D7: any unresolvable reference, not only a missing key).
func TestIronicIsEmptyWithMissingField(t *testing.T) {
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
func TestIronicOneOfOperatorEdgeCases(t *testing.T) {
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
func TestIronicSimpleOperatorInterpolatesValues(t *testing.T) {
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
func TestIronicOperatorWithLoop(t *testing.T) {
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

// Ironic test_operator_exceptions: a bad subnet, a bad regex and a values
// argument that is not a list. Differences (named): plumb checks literal
// arguments when the rule loads (TestValidationErrors), so here they come
// from interpolated values, at run time.
func TestIronicOperatorExceptions(t *testing.T) {
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
func TestIronicListStyleArgsDeprecated(t *testing.T) {
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

// Ironic TestInterpolation.test_variable_interpolation, with typed
// whole-field values (D1): a string that is exactly one field keeps the
// field's type; text around fields renders scalars and compact JSON.
func TestIronicVariableInterpolation(t *testing.T) {
	cases := []struct {
		tmpl string
		want any
	}{
		{"{inventory[cpu][count]}", int64(4)}, // Ironic: "4"
		{"{inventory[cpu][architecture]}", "x86_64"},
		{"{node.driver}", "fake-hardware"},
		{"{node[driver]}", "fake-hardware"},
		{"{node.driver_info[ipmi_address]}", "10.0.0.1"},
		{"{inventory[interfaces][0][mac_address]}", "2a:03:9c:53:4e:46"},
		{"{inventory[interfaces][1].name}", "eth1"},
		{"{plugin_data[plugin]}", "data"},
		{"cpus: {inventory[cpu][count]}", "cpus: 4"},
		{"{inventory[cpu][count]}{inventory[cpu][count]}", "44"},
		{"{node.spec.replicas}", int64(3)},
		{"{node.metadata.labels[app.kubernetes.io/name]}", "shop"},
		{`{node.metadata.labels["app.kubernetes.io/name"]}`, "shop"},
		{"{inventory[cpu]}", map[string]any{"count": int64(4), "architecture": "x86_64"}},
		{"cpu {inventory[cpu]}", `cpu {"architecture":"x86_64","count":4}`},
		{"{node.spec.containers}", []any{map[string]any{"name": "a", "image": "nginx:1"}}},
		{"disks {inventory[disks][0][size]}", "disks 1000000"},
		{"{{literal}} {node.driver}", "{literal} fake-hardware"},
		{"{{not a field}}", "{not a field}"},
		{"no fields", "no fields"},
		// Missing fields keep the whole string as written (D7).
		{"{inventory[nope]}", "{inventory[nope]}"},
		{"{node.name}-{inventory[nope]}", "{node.name}-{inventory[nope]}"},
		{"{inventory[interfaces][5]}", "{inventory[interfaces][5]}"},
		{"{inventory[cpu][count][x]}", "{inventory[cpu][count][x]}"},
		{"{inventory.bmc_address}", "192.168.1.100"}, // Go maps: .x and [x] are the same lookup
	}
	for _, c := range cases {
		got, _ := interpolate(t, c.tmpl, nil, false)
		if !equal(got, c.want) || typeName(got) != typeName(c.want) {
			t.Errorf("%s = %#v, want %#v", c.tmpl, got, c.want)
		}
	}
	// Scalars in text: booleans true/false, null, floats shortest.
	for v, want := range map[any]string{true: "true", nil: "null", 2.5: "2.5", int64(-7): "-7", 1e21: "1e+21"} {
		got, _ := interpolate(t, "v={item}", v, true)
		if got != "v="+want {
			t.Errorf("%v in text = %q, want %q", v, got, "v="+want)
		}
	}
	if _, ok := interpolate(t, "{inventory[nope]}", nil, false); ok {
		t.Error("missing field reported as resolved")
	}
}

// Writes go through the mask (Ironic): a masked value copied by an action
// stores "***", and writing under a masked key stores the real value.
func TestIronicShallowMaskWritesThrough(t *testing.T) {
	s := runOn(t, `
- actions:
    - {op: set-plugin-data, args: {path: copied, value: "{inventory[bmc_password]}"}}
    - {op: set-plugin-data, args: {path: password, value: new-secret}}
`, Options{}, ironicNode(), ironicInventory(), ironicPluginData())
	if s.pluginData["copied"] != Masked || s.pluginData["password"] != "new-secret" {
		t.Errorf("plugin data %v", s.pluginData)
	}
}

// ironic/common/inspection_rules/operators.py (NetCondition): an address
// that is not one raises, and engine.py (apply_rules) fails the node with
// the rule's error. Here: an error finding of the rule on the object (not
// an input error), and the object's remaining rules are not run.
func TestConditionFailingOnTheObjectsData(t *testing.T) {
	node := ironicNode()
	node["metadata"] = map[string]any{"name": "web", "annotations": map[string]any{"ip": "not-an-address"}}
	s := runOn(t, `
- uuid: net
  priority: 10
  conditions: [{op: in-net, args: {address: "{node.metadata.annotations[ip]}", subnet: 10.0.0.0/8}}]
  actions: [{op: log, args: {msg: x}}]
- uuid: later
  actions: [{op: set-plugin-data, args: {path: later, value: true}}]
`, Options{}, node, nil, nil)
	errs := errorsOf(s)
	if len(errs) != 1 || !strings.Contains(errs[0], `conditions[0] (in-net) at rules.yaml:4:16: invalid value for address "not-an-address": not an IP address`) {
		t.Fatalf("errors %v", errs)
	}
	if fs := findingsOf(s); fs[0].RuleID != "rule/net" || fs[0].InputError {
		t.Errorf("finding %s input=%v", fs[0].RuleID, fs[0].InputError)
	}
	if s.pluginData["later"] != nil {
		t.Error("the later rule ran")
	}
}
