package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// The Ironic unit tests' shared fixture (research §7.1), as plumb sees it:
// the node is the object under inspection, inventory and plugin_data are
// maps.
func ironicNode() map[string]any {
	return map[string]any{
		"driver":      "fake-hardware",
		"driver_info": map[string]any{"ipmi_address": "10.0.0.1"},
		"extra":       map[string]any{},
		"properties":  map[string]any{},
	}
}

func ironicInventory() map[string]any {
	return map[string]any{
		"cpu":    map[string]any{"count": int64(4), "architecture": "x86_64"},
		"memory": map[string]any{"total": int64(8192), "physical_mb": int64(8192)},
		"interfaces": []any{
			map[string]any{"name": "eth0", "mac_address": "2a:03:9c:53:4e:46"},
			map[string]any{"name": "eth1", "mac_address": "2a:03:9c:53:4e:47"},
		},
		"disks": []any{
			map[string]any{"name": "sda", "size": int64(1000000)},
			map[string]any{"name": "sdb", "size": int64(2000000)},
		},
		"bmc_address":  "192.168.1.100",
		"bmc_password": "secret",
		"empty_field":  "",
	}
}

func ironicPluginData() map[string]any {
	return map[string]any{"plugin": "data", "logs": "some logs", "password": "plugin_secret"}
}

// newTestSubject makes a subject with given data, as if rendered.
func newTestSubject(e *Engine, node, inventory, pluginData map[string]any) *subject {
	run := e.NewRun()
	if pluginData == nil {
		pluginData = map[string]any{}
	}
	if inventory == nil {
		inventory = map[string]any{}
	}
	s := &subject{run: run, content: node, inventory: inventory, pluginData: pluginData}
	if node != nil {
		s.secret = manifest.IsSecret(node)
		s.id = manifest.IDOf(node, "t")
	}
	run.objOrder = append(run.objOrder, s)
	return s
}

// condition evaluates one condition (YAML of one list item, flow style) on
// the Ironic fixture.
func condition(t *testing.T, cond string) (bool, error) {
	t.Helper()
	return conditionOn(t, cond, ironicNode(), ironicInventory(), ironicPluginData())
}

func conditionOn(t *testing.T, cond string, node, inv, pd map[string]any) (bool, error) {
	t.Helper()
	set := loadRules(t, fmt.Sprintf("- conditions: [%s]\n  actions: [{op: log, args: {msg: x}}]\n", cond))
	e := NewEngine(set, Options{})
	s := newTestSubject(e, node, inv, pd)
	r := set.Rules[0]
	x := &evalCtx{e: e, s: s, rule: r, mask: e.opts.Mask.masks(r)}
	return x.condition(r.Conditions[0], 0)
}

func mustCondition(t *testing.T, cond string) bool {
	t.Helper()
	ok, err := condition(t, cond)
	if err != nil {
		t.Fatalf("%s: %v", cond, err)
	}
	return ok
}

// runOn loads rules (YAML) and runs every phase on one subject made of
// node, inventory and plugin data; it returns the subject.
func runOn(t *testing.T, rules string, opts Options, node, inv, pd map[string]any) *subject {
	t.Helper()
	set := loadRules(t, rules)
	e := NewEngine(set, opts)
	s := newTestSubject(e, node, inv, pd)
	for _, p := range Phases {
		e.runPhase(s, p, e.Rules(p))
	}
	return s
}

// hasProblem reports whether a problem contains all of the parts.
func hasProblem(got []string, parts ...string) bool {
	for _, g := range got {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(g, p)
		}
		if ok {
			return true
		}
	}
	return false
}
