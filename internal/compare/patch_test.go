package compare

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/value"
)

func TestMergePatch(t *testing.T) {
	target := map[string]any{"a": map[string]any{"b": int64(1), "c": int64(2)}, "list": []any{int64(1), int64(2)}, "gone": "x"}
	patch := map[string]any{"a": map[string]any{"b": int64(9)}, "list": []any{int64(3)}, "gone": nil, "new": "y"}
	got := mergePatch(target, patch)
	want := map[string]any{"a": map[string]any{"b": int64(9), "c": int64(2)}, "list": []any{int64(3)}, "new": "y"}
	if !value.Equal(got, want) {
		t.Errorf("mergePatch = %v, want %v", got, want)
	}
	from := map[string]any{"a": map[string]any{"b": int64(1), "keep": true}, "drop": "x", "l": []any{"a"}}
	to := map[string]any{"a": map[string]any{"b": int64(2), "keep": true}, "l": []any{"a", "b"}, "add": int64(1)}
	p := createMergePatch(from, to)
	if !value.Equal(mergePatch(copyMap(from), p), to) {
		t.Errorf("createMergePatch %v does not turn from into to", p)
	}
	if _, ok := p["a"].(map[string]any)["keep"]; ok {
		t.Error("unchanged keys are not in the patch")
	}
}

func TestJSONPatch(t *testing.T) {
	doc := map[string]any{"spec": map[string]any{"list": []any{"a", "b"}, "x": int64(1)}, "a/b": "slash"}
	ops, err := parseJSONPatch(mustJSON(t, `[
		{"op": "add", "path": "/spec/list/1", "value": "inserted"},
		{"op": "add", "path": "/spec/list/-", "value": "last"},
		{"op": "remove", "path": "/spec/x"},
		{"op": "replace", "path": "/a~1b", "value": "replaced"},
		{"op": "copy", "from": "/spec/list/0", "path": "/first"},
		{"op": "move", "from": "/first", "path": "/moved"},
		{"op": "test", "path": "/moved", "value": "a"}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := applyJSONPatch(doc, ops)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"spec": map[string]any{"list": []any{"a", "inserted", "b", "last"}}, "a/b": "replaced", "moved": "a"}
	if !value.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if !value.Equal(doc["spec"].(map[string]any)["x"], int64(1)) {
		t.Error("the patched document is a copy")
	}
	// Null values and integers beyond float64's precision survive.
	ops, err = parseJSONPatch(mustJSON(t, `[{"op": "add", "path": "/n", "value": null}, {"op": "add", "path": "/big", "value": 9007199254740993}]`))
	if err != nil {
		t.Fatal(err)
	}
	if got, err = applyJSONPatch(map[string]any{}, ops); err != nil || !value.Equal(got, map[string]any{"n": nil, "big": int64(9007199254740993)}) {
		t.Errorf("got %#v, %v", got, err)
	}
	for bad, msg := range map[string]string{
		`[{"op": "test", "path": "/moved", "value": "z"}]`:    "testing value /moved failed",
		`[{"op": "remove", "path": "/nope"}]`:                 "Unable to remove nonexistent key: nope",
		`[{"op": "add", "path": "/spec/list/9", "value": 1}]`: "Unable to access invalid index: 9",
	} {
		ops, err := parseJSONPatch(mustJSON(t, bad))
		if err == nil {
			_, err = applyJSONPatch(copyMap(want), ops)
		}
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: got %v, want %q", bad, err, msg)
		}
	}
	for bad, msg := range map[string]string{
		`{"op":"add"}`:                   "an rfc6902 patch is a JSON array of operations",
		`[1]`:                            "operation 0 is not an object",
		`[{"op": "frob", "path": "/"}]`:  `operation 0: unknown op "frob"`,
		`[{"op": "add", "value": 1}]`:    "operation 0 has no path",
		`[{"op": "add", "path": "/x"}]`:  "operation 0 (add) has no value",
		`[{"op": "move", "path": "/x"}]`: "operation 0 (move) has no from",
	} {
		if _, err := parseJSONPatch(mustJSON(t, bad)); err == nil || err.Error() != msg {
			t.Errorf("%s: got %v, want %q", bad, err, msg)
		}
	}
}

func mustJSON(t *testing.T, s string) any {
	t.Helper()
	v, err := decodeJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestOverrides(t *testing.T) {
	ref := mustLoad(t, v2Ref("anyOf", map[string]string{
		"cm.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '{{ .metadata.name }}'\n  namespace: ns\ndata:\n  level: info\n  list: [a, b]\n",
		"other.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n",
	}, "cm.yaml", "other.yaml"))
	inputs := `
apiVersion: v1
kind: ConfigMap
metadata: {name: merge, namespace: ns}
data: {level: debug, list: [a, b]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: json, namespace: ns}
data: {level: info, list: [a, b, c]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: tmpl, namespace: ns}
data: {level: warn, list: [a, b]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: wrongtemplate, namespace: ns}
data: {level: debug, list: [a, b]}
`
	ov, ps := ParseOverrides("ov.yaml", []byte(`
- exactMatch: v1_ConfigMap_ns_merge
  type: mergepatch
  patch: '{"data":{"level":"debug"}}'
  reason: merge
- kind: ConfigMap
  name: json
  type: rfc6902
  patch: '[{"op":"add","path":"/data/list/-","value":"c"}]'
  reason: json
- kind: ConfigMap
  name: tmpl
  namespace: ns
  type: go-template
  patch: |
    type: mergepatch
    patch: '{"data":{"level":"{{ .data.level }}"}}'
  reason: template
- kind: ConfigMap
  name: wrongtemplate
  templatePath: other.yaml
  type: mergepatch
  patch: '{"data":{"level":"debug"}}'
  reason: never applies to cm.yaml
`))
	if ov == nil {
		t.Fatal(ps)
	}
	res := compareInputs(t, ref, inputs, Options{Overrides: ov})
	for id, reason := range map[string]string{"v1_ConfigMap_ns_merge": "merge", "v1_ConfigMap_ns_json": "json", "v1_ConfigMap_ns_tmpl": "template"} {
		c := compared(t, res, id)
		if c.HasDiff || len(c.Overrides) != 1 || c.Overrides[0].Reason != reason {
			t.Errorf("%s: diff %v overrides %d\n%s", id, c.HasDiff, len(c.Overrides), c.DiffOutput())
		}
	}
	if c := compared(t, res, "v1_ConfigMap_ns_wrongtemplate"); !c.HasDiff || len(c.Overrides) != 0 {
		t.Error("an override for another template must not apply")
	}
	if res.PatchedCRs != 3 {
		t.Errorf("patchedCRs %d", res.PatchedCRs)
	}

	_, ps = ParseOverrides("ov.yaml", []byte("- kind: A\n  type: mergepatch\n  patch: '{'\n  reason: r\n- kind: A\n  type: strategic\n  reason: r\n- type: mergepatch\n  patch: '{}'\n  reason: r\n  extra: 1\n"))
	mustContain(t, ps.Error(), "ov.yaml:1:3: failed to load user overrides: overrides[0]: the mergepatch patch is not JSON",
		`ov.yaml:5:3: failed to load user overrides: overrides[1]: unknown type "strategic"`,
		`ov.yaml:11:3: overrides[2]: unknown key "extra"`,
		"ov.yaml:8:3: overrides[2] has neither kind nor exactMatch, so it can never apply")
}

func TestGeneratedOverrideShape(t *testing.T) {
	o := generatedOverride(identity{APIVersion: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "n"}, "cm.yaml", "why",
		map[string]any{"data": map[string]any{"a": "1", "gone": "x"}}, map[string]any{"data": map[string]any{"a": "2"}}, nil)
	text := yamlText(o)
	want := "apiVersion: v1\nkind: ConfigMap\nname: \"n\"\nnamespace: ns\npatch: '{\"data\":{\"a\":\"2\",\"gone\":null}}'\nreason: why\ntemplatePath: cm.yaml\ntype: mergepatch\n"
	if text != want {
		t.Errorf("got\n%s\nwant\n%s", text, want)
	}
	if !strings.Contains(text, "gone\":null") {
		t.Error("removed fields are null in a merge patch")
	}
}

// TestMergeOntoIsMergePatch checks mergeOnto against mergePatch over a
// copy of the input, on generated trees: the same result, the input left
// as it was, and nothing of the input shared with the result.
func TestMergeOntoIsMergePatch(t *testing.T) {
	for seed := 1; seed < 400; seed++ {
		live, _ := genTree(0, seed).(map[string]any)
		rendered, _ := genTree(0, seed*7+3).(map[string]any)
		if live == nil || rendered == nil {
			continue
		}
		// Overlapping keys, nulls that delete, a mapping over a scalar.
		live["shared"] = map[string]any{"a": int64(1), "b": map[string]any{"c": "x", "n": nil}, "l": []any{"p", map[string]any{"q": "r"}}}
		rendered["shared"] = map[string]any{"a": nil, "b": map[string]any{"d": "y"}, "l": []any{"s"}, "new": map[string]any{"z": nil, "w": "v"}}
		live["scalar"] = "s"
		rendered["scalar"] = map[string]any{"now": "a map", "gone": nil}
		want := mergePatch(copyMap(live), deepCopy(rendered))
		before := deepCopy(live)
		got := mergeOnto(live, deepCopy(rendered).(map[string]any))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("seed %d: mergeOnto gave\n%v\nmergePatch gives\n%v", seed, got, want)
		}
		scramble(got)
		if !reflect.DeepEqual(live, before) {
			t.Fatalf("seed %d: the input changed with the result", seed)
		}
	}
}

// scramble changes every mapping and list of a tree in place.
func scramble(v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Collect(maps.Keys(x)) {
			scramble(x[k])
			x[k+"~"] = "scrambled"
		}
	case []any:
		for i, e := range x {
			scramble(e)
			x[i] = "scrambled"
		}
	}
}
