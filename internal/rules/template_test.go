package rules

import (
	"strings"
	"testing"
)

// interpolate resolves one template against the fixture (masking on, as by
// default), returning the value and whether every field resolved.
func interpolate(t *testing.T, tmpl string, item any, hasItem bool) (any, bool) {
	t.Helper()
	v, err := compileValue(tmpl, formatStrict)
	if err != nil {
		t.Fatalf("%s: %v", tmpl, err)
	}
	e := NewEngine(&Set{}, Options{})
	node := ironicNode()
	node["metadata"] = map[string]any{"name": "web", "labels": map[string]any{"app.kubernetes.io/name": "shop"}}
	node["spec"] = map[string]any{"replicas": int64(3), "containers": []any{map[string]any{"name": "a", "image": "nginx:1"}}}
	s := newTestSubject(e, node, ironicInventory(), ironicPluginData())
	x := &evalCtx{e: e, s: s, rule: &Rule{}, mask: true, item: item, hasItem: hasItem}
	return x.evalArg(v, hasItem)
}

// Ironic TestInterpolation.test_variable_interpolation, with typed
// whole-field values (D1): a string that is exactly one field keeps the
// field's type; text around fields renders scalars and compact JSON.
func TestInterpolation(t *testing.T) {
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

// D20 (Ironic test_action_with_list_loop): in a loop a top-level string
// argument is formatted twice, so an item may hold a template.
func TestSecondPassInLoops(t *testing.T) {
	got, ok := interpolate(t, "{item[value]}", map[string]any{"value": "{inventory[bmc_address]}"}, true)
	if got != "192.168.1.100" || !ok {
		t.Errorf("second pass = %v", got)
	}
	// Not outside loops, and never for values nested in lists or maps.
	v, _ := compileValue([]any{"{item}"}, formatStrict)
	e := NewEngine(&Set{}, Options{})
	s := newTestSubject(e, ironicNode(), ironicInventory(), nil)
	x := &evalCtx{e: e, s: s, rule: &Rule{}, item: "{inventory[bmc_address]}", hasItem: true}
	nested, _ := x.evalArg(v, true)
	if l := nested.([]any); l[0] != "{inventory[bmc_address]}" {
		t.Errorf("nested value formatted twice: %v", l)
	}
}

func TestTemplateSyntax(t *testing.T) {
	for src, want := range map[string]string{
		"{":               "has no name",
		"{node":           "unterminated field",
		"}":               "single '}'",
		"{}":              "empty field {}",
		"{ node}":         `unknown name " node"`,
		"{x}":             `unknown name "x"`,
		"{0}":             `unknown name "0"`,
		"{node.}":         "empty attribute name",
		"{node[}":         "unterminated '['",
		"{node[]}":        "empty key []",
		"{node.kind!r}":   "format specifications and conversions",
		"{node.kind:>10}": "format specifications and conversions",
		"{node[a]x}":      `unexpected 'x'`,
	} {
		_, _, err := parseTemplate(src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
	// Lenient parsing (arguments formatted only inside loops, such as a
	// regex with {1,2}) keeps malformed templates as written.
	v, err := compileValue("o{1,2}", formatLenient)
	if err != nil || v.kind != kindConst || v.c != "o{1,2}" {
		t.Errorf("lenient: %+v %v", v, err)
	}
}
