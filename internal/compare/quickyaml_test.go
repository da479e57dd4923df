package compare

import (
	"strings"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
)

// sameAsV2 checks quickYAML against goyaml.v2 on a value tree; it returns
// whether quickYAML took it.
func sameAsV2(t *testing.T, name string, v any) bool {
	t.Helper()
	tree, ok := jsonTyped(v)
	if !ok {
		return false
	}
	got, ok := quickYAML(tree)
	if !ok {
		return false
	}
	want, err := yamlv2.Marshal(tree)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if got != string(want) {
		t.Errorf("%s: quickYAML printed\n%s\ngoyaml.v2 prints\n%s", name, got, want)
	}
	return true
}

func TestQuickYAMLOnGeneratedTrees(t *testing.T) {
	took := 0
	for seed := 1; seed < 3000; seed++ {
		v := map[string]any{"root": genTree(0, seed), "n": int64(seed), "f": float64(seed) / 7, "neg": -float64(seed) * 1e30,
			"s": strings.Repeat("ab/c-", seed%5+1) + "x", "v": "1." + strings.Repeat("2", seed%3) + "m",
			"text": strings.Repeat("line\n", seed%3) + "end" + strings.Repeat("\n", seed%2), "list": []any{"a", map[string]any{}, []any{}, nil, true}}
		if sameAsV2(t, "generated", v) {
			took++
		}
		// The same trees with only the keys and strings this printer takes.
		if sameAsV2(t, "generated plain", plainTree(genTree(0, seed))) {
			took++
		}
	}
	if took < 1000 {
		t.Errorf("quickYAML took %d of 5998 trees", took)
	}
}

// plainTree renames keys and strings to plain words.
func plainTree(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out["k"+strings.Map(keepAlnum, k)+"0x1"] = plainTree(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			if _, isList := e.([]any); isList {
				e = map[string]any{"l": e}
			}
			out[i] = plainTree(e)
		}
		return out
	case string:
		return "w" + strings.Map(keepAlnum, x)
	}
	return v
}

func keepAlnum(r rune) rune {
	if r < 0x80 && (r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
		return r
	}
	return -1
}

func TestQuickYAMLStrings(t *testing.T) {
	for _, s := range []string{
		"web", "/healthz", "_x", "registry.example.com/shop/app0-web:1.4.2", "100m", "128Mi", "--queue", "-1m", "1.4.2", "1e3",
		"0x1F", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "12:30", "1:20", "yes", "Yes", "on", "off", "y", "n", "null", "NULL",
		"true", "True", "a:", "a:b", "http://x:80/y", "-", "--", "-x", "1_000", "0b101", "0o17", "+1", ".5", ".inf", "~", "a b",
		"line\n", "line", "l1\nl2", "l1\n\nl2\n", " lead\n", "trail \nx", "x\n\n", "\nx", "tab\tx\n", "caf\u00e9\n", "z9",
		strings.Repeat("long", 40), strings.Repeat("k", 130),
	} {
		sameAsV2(t, s, map[string]any{"v": s, "l": []any{s}, "m": map[string]any{"k": s}})
		sameAsV2(t, "key "+s, map[string]any{s: int64(1)})
	}
	// What manifests hold most is taken.
	for _, s := range []string{"web", "/healthz", "registry.example.com/shop/app0-web:1.4.2", "100m", "128Mi", "--queue", "l1\nl2", "l1\n\nl2\n"} {
		if !sameAsV2(t, s, map[string]any{"v": s, "l": []any{s}}) {
			t.Errorf("%q was not taken", s)
		}
	}
}

// TestQuickYAMLOnManifests prints every object of the test data and the
// shared corpus both ways; quickYAML must take most.
func TestQuickYAMLOnManifests(t *testing.T) {
	objects, took := 0, 0
	testObjects(t, func(path string, m map[string]any) {
		objects++
		if sameAsV2(t, path, m) {
			took++
		}
	})
	t.Logf("quickYAML took %d of %d objects", took, objects)
	if took*2 < objects {
		t.Errorf("quickYAML took only %d of %d objects", took, objects)
	}
}
