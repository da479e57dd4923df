package render

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// fuzzLimits are small limits, so that a fuzzed input reaches them fast.
var fuzzLimits = manifest.Limits{MaxFileBytes: 1 << 20, MaxDepth: 100, MaxAliasNodes: 10_000,
	MaxTargetBytes: 8 << 20, MaxTargetTime: 5 * time.Second}

// FuzzKustomizeInputs builds a kustomization over the files a build reads
// — the kustomization itself, a resource, a patch, a generator's env file
// and data file — all of them fuzzed. Whatever they hold, the build
// finishes (no panic, no hang: the inputs are held to the loader's limits
// before krusty reads them, and the build to its budget), and every
// problem names a file of the repository and, when it names a line, a
// line of that file. Seeds are the inputs that crashed or spun kustomize
// (issue 18).
func FuzzKustomizeInputs(f *testing.F) {
	const kust = "resources: [res.yaml]\npatches:\n  - path: patch.yaml\nconfigMapGenerator:\n  - name: g\n    envs: [app.env]\n    files: [data.txt]\n" +
		"secretGenerator:\n  - name: s\n    literals: [a=b]\n"
	const res = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: x\ndata:\n  k: v\n"
	const patch = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: x\ndata:\n  p: q\n"
	for _, s := range [][4]string{
		{kust, res, patch, "A=1\n"},
		// Aliases inside themselves: a stack overflow after 3.4 GB, or
		// minutes of spinning.
		{kust, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: x\ndata: &A\n  b: *A\n", patch, "A=1\n"},
		{kust, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: x\nspec: &A\n  a: 1\n  c:\n    <<: *A\n", patch, "A=1\n"},
		{kust, res, "apiVersion: v1\nkind: ConfigMap\nmetadata: &m\n  name: c\n  namespace: x\n  x: *m\n", "A=1\n"},
		// A billion laughs and deep nesting in a resource.
		{kust, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\na1: &a1 [*a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0, *a0]\n" +
			"a2: &a2 [*a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1, *a1]\na3: [*a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2, *a2]\n", patch, "A=1\n"},
		{kust, "a: " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + "\n", patch, "A=1\n"},
		// Generator inputs with a secret's content in an error.
		{kust, res, patch, "MODE=x\nDB_PASSWORD=secret-\xff\n"},
		{strings.Replace(kust, "literals: [a=b]", "literals: [\"password Hunter2\"]", 1), res, patch, "A=1\n"},
		// NaN and infinities.
		{kust, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: x\n  labels: {t: .inf}\nspec:\n  replicas: .nan\n", patch, "A=1\n"},
		// A var substituted many times, a replacement copying a Secret.
		{"resources: [res.yaml]\nvars:\n  - name: V\n    objref: {apiVersion: v1, kind: ConfigMap, name: c}\n    fieldref: {fieldpath: data.k}\n",
			res + "  u: $(V)$(V)$(V)$(V)\n", patch, ""},
		{"resources: [res.yaml]\nreplacements:\n  - source: {kind: Secret, name: s, fieldPath: stringData.p}\n    targets:\n" +
			"      - select: {kind: ConfigMap}\n        fieldPaths: [data.k]\n",
			res + "---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: x\nstringData:\n  p: hunter2\n", patch, ""},
		{"", "", "", ""},
		{"resources: [res.yaml, res.yaml, ../x, /etc/passwd]\n", res, patch, ""},
	} {
		f.Add(s[0], s[1], s[2], s[3])
	}
	f.Fuzz(func(t *testing.T, kustomization, resource, patchText, env string) {
		begin := time.Now()
		defer func() {
			if elapsed := time.Since(begin); elapsed > 3*fuzzLimits.MaxTargetTime {
				t.Fatalf("loading and rendering took %v, past three times the build's time budget", elapsed)
			}
		}()
		files := map[string]string{
			"k/kustomization.yaml": kustomization,
			"k/res.yaml":           resource,
			"k/patch.yaml":         patchText,
			"k/app.env":            env,
			"k/data.txt":           resource,
		}
		fsys := fstest.MapFS{}
		for name, content := range files {
			fsys[name] = &fstest.MapFile{Data: []byte(content), Mode: 0o644}
		}
		set := manifest.Load(fsys, []string{"k"}, manifest.LoadOptions{Limits: fuzzLimits})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		start := time.Now()
		res := Render(ctx, fsys, set, Options{Limits: fuzzLimits, Workers: 1})
		if elapsed := time.Since(start); elapsed > 3*fuzzLimits.MaxTargetTime {
			t.Fatalf("rendering took %v, past three times the build's time budget", elapsed)
		}
		for _, p := range append(set.Problems, res.Problems...) {
			content, known := files[p.Location.File]
			if !known {
				if p.Location.File != "" {
					t.Fatalf("a problem in %q, which is not a file of the repository: %s", p.Location.File, p.Error())
				}
				continue
			}
			if p.Message == "" {
				t.Fatalf("a problem without a message at %s", manifest.FormatLocation(p.Location))
			}
			if lines := manifest.CountLines([]byte(content)); p.Location.Line > lines {
				t.Fatalf("problem at line %d of %s, which has %d lines: %s", p.Location.Line, p.Location.File, lines, p.Error())
			}
		}
	})
}
