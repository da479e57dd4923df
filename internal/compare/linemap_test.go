package compare

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// sameLinePaths checks quickLinePaths against yaml.v3's reading of a
// printed text; it returns whether the quick reading took the text.
func sameLinePaths(t *testing.T, name, text string) bool {
	t.Helper()
	quick, ok := quickLinePaths(text)
	if !ok {
		return false
	}
	want := nodeLinePaths(text)
	if !reflect.DeepEqual(quick.spans, want.spans) || !samePaths(quick.line, want.line) {
		t.Errorf("%s: the line map differs from yaml.v3's\nquick %v\n      %v\nwant  %v\n      %v\nof:\n%s", name, quick.spans, quick.line, want.spans, want.line, text)
	}
	return true
}

// samePaths compares line maps, nil and empty paths alike.
func samePaths(a, b []manifest.Path) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) {
			return false
		}
	}
	return true
}

func TestQuickLinePathsOnGeneratedTrees(t *testing.T) {
	took := 0
	for seed := 1; seed < 1000; seed++ {
		v := map[string]any{"root": genTree(0, seed), "z": map[string]any{"long": strings.Repeat("folded words ", 12),
			"block": "line one\n\nline three\n", "list": []any{"a\nb\n", map[string]any{}, []any{}, "x"}}}
		if sameLinePaths(t, "generated", kubectlYAML(v)) {
			took++
		}
	}
	// genTree's keys are the words goyaml.v2 must quote: most texts are
	// yaml.v3's to read.
	if took < 200 {
		t.Errorf("the quick reading took %d of 999 texts", took)
	}
}

// testObjects calls visit with every object (a non-empty mapping) of the
// YAML files of the test data and, unless -short, of the shared corpus.
func testObjects(t *testing.T, visit func(path string, m map[string]any)) {
	t.Helper()
	dirs := []string{"..", filepath.Join("..", "..", "fixtures")}
	if !testing.Short() {
		dirs = append(dirs, testcorpus.Dir(t))
	}
	testcorpus.WalkYAML(t, dirs, func(path string, data []byte) {
		docs, _ := manifest.Parse(path, data, manifest.Limits{})
		for _, doc := range docs {
			if m, ok := doc.Value.(map[string]any); ok && len(m) > 0 {
				visit(path, m)
			}
		}
	})
}

// TestQuickLinePathsOnManifests prints every object of the test data and
// of the shared corpus as the differ does and compares the two readings;
// the quick one must take most of them.
func TestQuickLinePathsOnManifests(t *testing.T) {
	objects, took := 0, 0
	testObjects(t, func(path string, m map[string]any) {
		objects++
		if sameLinePaths(t, path, kubectlYAML(m)) {
			took++
		}
	})
	t.Logf("the quick reading took %d of %d printed objects", took, objects)
	if took*10 < objects*8 {
		t.Errorf("the quick reading took only %d of %d printed objects", took, objects)
	}
}

func TestQuickLinePathsLeavesToYAMLv3(t *testing.T) {
	for _, text := range []string{
		"",
		"{}\n",
		"\"on\": x\n",         // a quoted key
		"a:\n- - x\n",         // a list in a list
		"a: x\r\n",            // a line break yaml.v3 counts apart
		"a: \"x\ry\"\n",       //
		"a:\n  b: 1\n c: 2\n", // not what goyaml.v2 prints
		"- a\n",
	} {
		if _, ok := quickLinePaths(text); ok {
			t.Errorf("took %q", text)
		}
	}
}
