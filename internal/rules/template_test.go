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
