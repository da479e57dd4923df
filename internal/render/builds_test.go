package render

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// kustomizeBomb writes layers of kustomizations that each include the next
// layer's two kustomizations (with their own name prefixes, so nothing
// collides): krusty would build the last layer 2^depth times.
func kustomizeBomb(t *testing.T, depth int) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, content string) { writeFiles(t, dir, map[string]string{name: content}) }
	write(fmt.Sprintf("L%d/kustomization.yaml", depth), "resources: [cm.yaml]\n")
	write(fmt.Sprintf("L%d/cm.yaml", depth), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n")
	for i := depth - 1; i >= 1; i-- {
		next := fmt.Sprintf("[../L%dA, ../L%dB]", i+1, i+1)
		if i+1 == depth {
			next = fmt.Sprintf("[../L%d]", depth)
		}
		for _, x := range []string{"A", "B"} {
			write(fmt.Sprintf("L%d%s/kustomization.yaml", i, x), fmt.Sprintf("namePrefix: %s%d-\nresources: %s\n", strings.ToLower(x), i, next))
		}
	}
	write("top/kustomization.yaml", "resources: [../L1A, ../L1B]\n")
	return dir
}

// A target that would take more kustomize builds than maxKustomizeBuilds is
// refused at once, at the layer where the count passes the limit.
func TestKustomizeBombIsRefused(t *testing.T) {
	dir := kustomizeBomb(t, 16) // 65,535 builds: minutes with krusty
	start := time.Now()
	res := renderRepo(t, dir, Options{}, "top")
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("render took %v", d)
	}
	if len(res.Objects()) != 0 {
		t.Errorf("%d objects rendered", len(res.Objects()))
	}
	var got []string
	for _, p := range res.Problems {
		got = append(got, p.Error())
	}
	want := []string{
		"L3A/kustomization.yaml:2:13: resources[0]: building L3A takes more than 10000 kustomize builds (kustomize builds a base once for every path that reaches it, " +
			"and this entry alone takes 6143): include each base once, or through fewer layers that include the same bases",
		"L3B/kustomization.yaml:2:13: resources[0]: building L3B takes more than 10000 kustomize builds",
	}
	joined := strings.Join(got, "\n")
	for _, w := range want {
		if !strings.Contains(joined, w) {
			t.Errorf("problems lack %q:\n%s", w, joined)
		}
	}
	if len(got) != 2 {
		t.Errorf("%d problems, want one per layer kustomization at the limit:\n%s", len(got), joined)
	}

	// Under the limit, the same shape builds.
	res = renderRepo(t, kustomizeBomb(t, 6), Options{}, "top")
	if len(res.Problems) != 0 || len(res.Objects()) != 1<<5 {
		t.Errorf("depth 6: %d objects, problems %v", len(res.Objects()), res.Problems)
	}
}

// JSON 6902 copy operations can double an object each: more than ten in
// the patches of one target are refused before krusty applies them.
func TestJSONPatchCopyBombIsRefused(t *testing.T) {
	ops := "      - op: add\n        path: /spec\n        value: {a: \"0123456789\"}\n"
	for i := 0; i < 26; i++ {
		ops += fmt.Sprintf("      - op: copy\n        from: /spec\n        path: /spec/k%d\n", i)
	}
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources: [cm.yaml]\npatches:\n  - target: {kind: ConfigMap, name: c}\n    patch: |-\n"+ops), 0o644))
	start := time.Now()
	res := renderRepo(t, dir, Options{})
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("render took %v", d)
	}
	if len(res.Objects()) != 0 || len(res.Problems) != 1 {
		t.Fatalf("objects %d, problems %v", len(res.Objects()), res.Problems)
	}
	want := "kustomization.yaml:8:9: more than 10 JSON patch copy operations apply to the objects built with kustomization.yaml (each can double an object: " +
		"thirty make it a billion times larger): copy fewer fields, or write the values where they belong"
	if got := res.Problems[0].Error(); got != want {
		t.Errorf("problem:\n%s\nwant:\n%s", got, want)
	}
}

// Replacements that read what earlier replacements wrote can double an
// object each: more than ten in one target are refused; ordinary ones
// (sources that nothing writes to) are not counted.
func TestReplacementFeedbackIsRefused(t *testing.T) {
	write := func(dir string, n int, feedback bool) {
		var reps strings.Builder
		for i := 0; i < n; i++ {
			src, dst := "a", "b"
			if feedback && i%2 == 1 {
				src, dst = "b", "a"
			}
			fmt.Fprintf(&reps, "  - source: {kind: ConfigMap, name: %s, fieldPath: data}\n    targets:\n      - select: {kind: ConfigMap, name: %s}\n"+
				"        fieldPaths: [data.r%d]\n        options: {create: true}\n", src, dst, i)
		}
		must(t, os.WriteFile(filepath.Join(dir, "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  s: x\n---\n"+
			"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  s: x\n"), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources: [cm.yaml]\nreplacements:\n"+reps.String()), 0o644))
	}
	dir := t.TempDir()
	write(dir, 30, true)
	res := renderRepo(t, dir, Options{})
	if len(res.Objects()) != 0 || len(res.Problems) != 1 {
		t.Fatalf("objects %d, problems %v", len(res.Objects()), res.Problems)
	}
	want := "kustomization.yaml:8:5: more than 10 replacements read an object that an earlier replacement wrote to, in the objects built with " +
		"kustomization.yaml (each can double an object: thirty took kustomize a minute and 5 GB): copy from the original sources instead"
	if got := res.Problems[0].Error(); got != want {
		t.Errorf("problem:\n%s\nwant:\n%s", got, want)
	}
	// Thirty replacements from one source: no feedback, built.
	dir = t.TempDir()
	write(dir, 30, false)
	if res := renderRepo(t, dir, Options{}); len(res.Problems) != 0 || len(res.Objects()) != 2 {
		t.Errorf("without feedback: objects %d, problems %v", len(res.Objects()), res.Problems)
	}
}
