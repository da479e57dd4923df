package rules

import (
	"reflect"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
)

func findingsOf(s *subject) []finding.Finding {
	var out []finding.Finding
	for _, f := range s.findings {
		out = append(out, f.Finding)
	}
	return out
}

func errorsOf(s *subject) []string {
	var out []string
	for _, f := range s.findings {
		if f.InputError {
			out = append(out, f.Message)
		}
	}
	return out
}

// Ironic test_log_action and test_fail_action; D6: fail's msg is
// interpolated like log's.
func TestLogAndFail(t *testing.T) {
	s := runOn(t, `
- uuid: logger
  description: Log things
  actions:
    - {op: log, args: {msg: "driver {node.driver}"}}
    - {op: log, args: {msg: debug, level: DEBUG}}
    - {op: log, args: {msg: careful, level: warning}}
    - {op: log, args: {msg: bad, level: error}}
    - {op: log, args: {msg: worse, level: critical, path: driver_info.ipmi_address}}
- uuid: failer
  priority: 0
  actions:
    - {op: fail, args: {msg: "inspection failed on {node.driver}"}}
    - {op: log, args: {msg: never}}
- uuid: after
  actions: [{op: log, args: {msg: never either}}]
`, Options{}, ironicNode(), nil, nil)
	fs := findingsOf(s)
	want := []struct {
		level finding.Level
		msg   string
	}{
		{finding.Note, "driver fake-hardware"},
		{finding.Note, "debug"},
		{finding.Warning, "careful"},
		{finding.Error, "bad"},
		{finding.Error, "worse"},
		{finding.Error, "inspection failed on fake-hardware"},
	}
	if len(fs) != len(want) {
		t.Fatalf("findings:\n%s", messages(fs))
	}
	for i, w := range want {
		if fs[i].Level != w.level || fs[i].Message != w.msg || fs[i].Source != finding.SourceRule {
			t.Errorf("finding %d: %v %q", i, fs[i].Level, fs[i].Message)
		}
	}
	if fs[0].RuleID != "rule/logger" || fs[0].Title != "Log things" || fs[5].RuleID != "rule/failer" {
		t.Errorf("rule ids %s %s", fs[0].RuleID, fs[5].RuleID)
	}
	if fs[4].Path.String() != "driver_info.ipmi_address" {
		t.Errorf("log path %v", fs[4].Path)
	}
	if !s.stopped || !strings.Contains(s.stoppedBy, "failer") {
		t.Error("fail did not stop the subject")
	}
	if len(fs[5].Related) != 1 || fs[5].Related[0].Location.Line == 0 {
		t.Errorf("fail has no related location of the rule: %v", fs[5].Related)
	}
}

// Ironic test_action_path_dot_slash_notation, test_set_attribute_action,
// test_extend_attribute_action, test_del_attribute_action.
func TestAttributeActions(t *testing.T) {
	node := ironicNode()
	node["tags"] = []any{"existing"}
	node["extra"] = map[string]any{"to_delete": "x", "keep": "y"}
	s := runOn(t, `
- actions:
    - {op: set-attribute, args: {path: driver_info/new, value: {new_key: new_value}}}
    - {op: set-attribute, args: {path: driver_info.next.nested.deeper, value: {next_key: next_value}}}
    - {op: set-attribute, args: {path: /driver, value: ipmi}}
    - {op: extend-attribute, args: {path: tags, value: new_tag}}
    - {op: extend-attribute, args: {path: tags, value: new_tag, unique: true}}
    - {op: extend-attribute, args: {path: /fresh/list, value: 1}}
    - {op: del-attribute, args: {path: extra/to_delete}}
    - {op: del-attribute, args: {path: extra.nonexistent_key}}
    - {op: del-attribute, args: {path: /nowhere/at/all}}
`, Options{}, node, nil, nil)
	if errs := errorsOf(s); len(errs) > 0 {
		t.Fatal(errs)
	}
	want := map[string]any{
		"driver": "ipmi",
		"driver_info": map[string]any{
			"ipmi_address": "10.0.0.1",
			"new":          map[string]any{"new_key": "new_value"},
			"next":         map[string]any{"nested": map[string]any{"deeper": map[string]any{"next_key": "next_value"}}},
		},
		"extra":      map[string]any{"keep": "y"},
		"properties": map[string]any{},
		"tags":       []any{"existing", "new_tag"},
		"fresh":      map[string]any{"list": []any{int64(1)}},
	}
	if !reflect.DeepEqual(s.content, want) {
		t.Errorf("content:\n%#v\nwant\n%#v", s.content, want)
	}
	// The original content is untouched: objects may share it.
	if node["driver"] != "fake-hardware" || len(node["tags"].([]any)) != 1 || node["extra"].(map[string]any)["to_delete"] != "x" {
		t.Errorf("the shared content was modified: %v", node)
	}
	var ops []string
	for _, p := range s.patch {
		ops = append(ops, p.Op+" "+p.Path)
	}
	wantOps := "add /driver_info/new,add /driver_info/next,replace /driver,add /tags/1,add /fresh,remove /extra/to_delete"
	if strings.Join(ops, ",") != wantOps {
		t.Errorf("patch %v\nwant %s", ops, wantOps)
	}
}

// Lists inside objects: JSON-pointer indexes, "-" to append, ~1 for "/".
func TestAttributePathsIntoLists(t *testing.T) {
	node := map[string]any{
		"metadata": map[string]any{"name": "web", "labels": map[string]any{}},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "a", "image": "nginx:1"}, map[string]any{"name": "b"}}},
	}
	s := runOn(t, `
- actions:
    - {op: set-attribute, args: {path: /spec/containers/0/image, value: "nginx:2"}}
    - {op: set-attribute, args: {path: /spec/containers/-, value: {name: c}}}
    - {op: del-attribute, args: {path: /spec/containers/1}}
    - {op: set-attribute, args: {path: /metadata/labels/app.kubernetes.io~1name, value: shop}}
`, Options{}, node, nil, nil)
	if errs := errorsOf(s); len(errs) > 0 {
		t.Fatal(errs)
	}
	containers := s.content["spec"].(map[string]any)["containers"].([]any)
	if len(containers) != 2 || containers[0].(map[string]any)["image"] != "nginx:2" || containers[1].(map[string]any)["name"] != "c" {
		t.Errorf("containers %v", containers)
	}
	if s.content["metadata"].(map[string]any)["labels"].(map[string]any)["app.kubernetes.io/name"] != "shop" {
		t.Errorf("labels %v", s.content["metadata"])
	}
	for _, bad := range []struct{ path, want string }{
		{"/spec/containers/7/image", "index 7 is out of range: /spec/containers has 2 items"},
		{"/spec/containers/x/image", `/spec/containers is a list: "x" is not an index`},
		{"/metadata/name/x", "/metadata/name is a string, not a mapping"},
	} {
		s := runOn(t, "- actions: [{op: set-attribute, args: {path: '"+bad.path+"', value: 1}}]\n", Options{}, deepCopy(node).(map[string]any), nil, nil)
		if errs := errorsOf(s); len(errs) != 1 || !strings.Contains(errs[0], bad.want) {
			t.Errorf("%s: %v", bad.path, errs)
		}
	}
}

// Ironic test_action_error_cases. Difference (named, D9): deleting a
// missing sub-key is not an error.
func TestActionErrorCases(t *testing.T) {
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

// Ironic test_apply_rules_ironic_exception: an error stops the remaining
// actions and rules of the subject; the error is a finding naming the rule,
// the condition or action and the cause.
func TestRuleErrorStopsTheSubject(t *testing.T) {
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
	if len(fs) != 1 || !fs[0].InputError || fs[0].Level != finding.Error || fs[0].RuleID != "rule/broken" ||
		!strings.Contains(fs[0].Message, "inspection rule broken could not be applied to") ||
		!strings.Contains(fs[0].Message, "actions[1] (set-attribute): cannot set /driver/x") ||
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

// Ironic test_set_/extend_/unset_plugin_data_action; D8: unset removes the
// key and an emptied parent mapping (one level).
func TestPluginDataActions(t *testing.T) {
	s := runOn(t, `
- actions:
    - {op: set-plugin-data, args: {path: test_key, value: test_value}}
    - {op: extend-plugin-data, args: {path: test_list, value: item2}}
    - {op: extend-plugin-data, args: {path: test_list, value: item2, unique: true}}
    - {op: extend-plugin-data, args: {path: fresh, value: 1}}
    - {op: extend-plugin-data, args: {path: falsy, value: 1}}
    - {op: set-plugin-data, args: {path: a.b.c, value: "{inventory[cpu]}"}}
    - {op: unset-plugin-data, args: {path: to_remove}}
    - {op: unset-plugin-data, args: {path: nested.only}}
    - {op: unset-plugin-data, args: {path: missing.path}}
    - {op: set-plugin-data, args: {path: slash/key, value: 1}}
`, Options{}, ironicNode(), ironicInventory(), map[string]any{
		"existing": "data", "test_list": []any{"item1"}, "to_remove": 1, "keep": "value",
		"falsy": "", "nested": map[string]any{"only": 1},
	})
	want := map[string]any{
		"existing":  "data",
		"test_key":  "test_value",
		"test_list": []any{"item1", "item2"},
		"fresh":     []any{int64(1)},
		"falsy":     []any{int64(1)},
		"a":         map[string]any{"b": map[string]any{"c": map[string]any{"count": int64(4), "architecture": "x86_64"}}},
		"keep":      "value",
		"slash/key": int64(1),
	}
	if !reflect.DeepEqual(s.pluginData, want) {
		t.Errorf("plugin data\n%#v\nwant\n%#v", s.pluginData, want)
	}
	// Values are copied: changing plugin data does not change inventory.
	s.pluginData["a"].(map[string]any)["b"].(map[string]any)["c"].(map[string]any)["count"] = int64(99)
	if s.inventory["cpu"].(map[string]any)["count"] != int64(4) {
		t.Error("plugin data aliases inventory")
	}
}

// Ironic test_add_trait_action / test_remove_trait_action (a missing trait
// is tolerated).
func TestTraits(t *testing.T) {
	s := runOn(t, `
- actions:
    - {op: add-trait, args: {name: CUSTOM_B}}
    - {op: add-trait, args: {name: CUSTOM_AWESOME_TRAIT}}
    - {op: add-trait, args: {name: CUSTOM_B}}
    - {op: remove-trait, args: {name: CUSTOM_B}}
    - {op: remove-trait, args: {name: CUSTOM_MISSING}}
    - {op: add-trait, args: {name: CUSTOM_A}}
`, Options{}, ironicNode(), nil, nil)
	if strings.Join(s.traits, ",") != "CUSTOM_A,CUSTOM_AWESOME_TRAIT" || len(errorsOf(s)) > 0 {
		t.Errorf("traits %v %v", s.traits, errorsOf(s))
	}
}

// Ironic test_action_with_list_loop and test_action_with_dict_loop: the
// item's templates are formatted in a second pass (D20).
func TestActionLoops(t *testing.T) {
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
		t.Errorf("list loop: %v %v", di, errorsOf(s))
	}
	s = runOn(t, `
- actions:
    - op: set-attribute
      args: {path: "{item[path]}", value: "{item[value]}"}
      loop: {path: driver_info/ipmi_address, value: "{inventory[bmc_address]}"}
`, Options{}, ironicNode(), ironicInventory(), nil)
	if s.content["driver_info"].(map[string]any)["ipmi_address"] != "192.168.1.100" {
		t.Errorf("dict loop: %v", s.content)
	}
	// An error in one iteration stops the remaining iterations.
	s = runOn(t, `
- actions:
    - op: extend-plugin-data
      args: {path: "{item[p]}", value: "{item[v]}"}
      loop: [{p: seen, v: 1}, {p: plugin, v: 2}, {p: seen, v: 3}]
`, Options{}, ironicNode(), nil, ironicPluginData())
	if l := s.pluginData["seen"].([]any); len(l) != 1 || len(errorsOf(s)) != 1 {
		t.Errorf("loop went on after an error: %v %v", l, errorsOf(s))
	}
	// A loop over a field of the object (D18).
	node := map[string]any{"kind": "Deployment", "spec": map[string]any{"template": map[string]any{"spec": map[string]any{
		"containers": []any{map[string]any{"name": "a", "image": "a:1"}, map[string]any{"name": "b", "image": "b:1"}}}}}}
	s = runOn(t, `
- actions:
    - op: log
      args: {msg: "container {item[name]} runs {item[image]}"}
      loop: "{node.spec.template.spec.containers}"
`, Options{}, node, nil, nil)
	if fs := findingsOf(s); len(fs) != 2 || fs[1].Message != "container b runs b:1" || fs[0].Key == fs[1].Key {
		t.Errorf("findings %v", messages(fs))
	}
}

// D7: a field in an action that does not resolve is used as written, and
// the subject gets a warning.
func TestUnresolvedFieldInActionWarns(t *testing.T) {
	s := runOn(t, `
- uuid: enrich
  actions:
    - {op: set-plugin-data, args: {path: team, value: "{node.metadata.labels[team]}"}}
`, Options{}, ironicNode(), nil, nil)
	fs := findingsOf(s)
	if s.pluginData["team"] != "{node.metadata.labels[team]}" || len(fs) != 1 || fs[0].Level != finding.Warning ||
		!strings.Contains(fs[0].Message, "with {node.metadata.labels[team]} unresolved, so the text was used as written") {
		t.Errorf("%v\n%s", s.pluginData, messages(fs))
	}
}

// Ironic TestApplyRules: rules whose conditions fail are skipped; those
// that pass run their actions.
func TestApplyRulesConditions(t *testing.T) {
	s := runOn(t, `
- uuid: a
  priority: 100
  conditions: [{op: eq, args: {values: ["{node.driver}", fake-hardware]}}]
  actions: [{op: set-plugin-data, args: {path: a, value: 1}}]
- uuid: b
  priority: 50
  conditions:
    - {op: eq, args: {values: ["{node.driver}", fake-hardware]}}
    - {op: is-true, args: {value: "{plugin_data[nope]}"}}
  actions: [{op: set-plugin-data, args: {path: b, value: 1}}]
- uuid: c
  actions: [{op: set-plugin-data, args: {path: c, value: 1}}]
`, Options{}, ironicNode(), nil, nil)
	if s.pluginData["a"] == nil || s.pluginData["b"] != nil || s.pluginData["c"] == nil {
		t.Errorf("plugin data %v", s.pluginData)
	}
	var applied []string
	for _, a := range s.applied {
		applied = append(applied, a.rule.UUID)
	}
	if strings.Join(applied, ",") != "a,c" {
		t.Errorf("applied %v", applied)
	}
}
