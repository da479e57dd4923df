package pipeline

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
)

// countingEngines is the product's engines, counting the revisions they
// are built for (pull-request mode builds them for both at once).
func countingEngines(n *atomic.Int32) engineFactory {
	return func(ctx context.Context, cfg *config.Config, fsys fs.FS) ([]analyzer.Analyzer, []finding.Finding) {
		n.Add(1)
		return Analyzers(ctx, cfg, fsys)
	}
}

// TestPullRequestTakesTheBaseFromTheCache: with the cache its base
// branch's run left, a pull request's base revision is not analysed again
// — its findings come from the cache — and the report is the one a run
// without a cache writes, new, unchanged and fixed findings alike, the
// suppressions included.
func TestPullRequestTakesTheBaseFromTheCache(t *testing.T) {
	r, base := kustomizeRepo(t)
	cacheDir := t.TempDir()
	file := &config.File{Suppressions: []config.Suppression{
		{Object: &config.ObjectSelector{Name: "web", Target: "overlays/dev"}, Reason: "a developer sandbox", Line: 2, Column: 5},
	}}
	reportBytes(t, withCache(testConfig(t, r.Dir, file), cacheDir)) // the base branch's run
	r.Write(map[string]string{
		// prod takes a floating tag (new); dev pins redis (fixed there).
		"overlays/prod/patch.yaml":        strings.Replace(r.Git("show", "HEAD:overlays/prod/patch.yaml")+"\n", "nginx:1.25.3", "nginx:latest", 1),
		"overlays/dev/kustomization.yaml": "resources:\n  - ../../base\nimages:\n  - name: redis\n    newTag: \"7.2\"\n",
	})
	cfg := testConfig(t, r.Dir, file, "--base-ref", base)

	var uncached, cached atomic.Int32
	res, err := check(context.Background(), withCache(cfg, ""), countingEngines(&uncached))
	if err != nil {
		t.Fatal(err)
	}
	want := reportOf(t, res)
	res, err = check(context.Background(), withCache(cfg, cacheDir), countingEngines(&cached))
	if err != nil {
		t.Fatal(err)
	}
	if got := reportOf(t, res); !bytes.Equal(got, want) {
		t.Fatalf("the base's findings from the cache changed the report:\n%s", firstDifference(got, want))
	}
	if uncached.Load() != 2 || cached.Load() != 1 {
		t.Errorf("engines built for %d revisions without the cache and %d with it, want 2 and 1 (the head only)", uncached.Load(), cached.Load())
	}
	seen := map[string]bool{}
	for _, f := range res.Report.Findings {
		seen[f.Status] = true
		if f.Status == finding.StatusFixed && f.Suppressed != nil {
			seen["fixed and suppressed"] = true
		}
	}
	for _, s := range []string{finding.StatusNew, finding.StatusUnchanged, finding.StatusFixed, "fixed and suppressed"} {
		if !seen[s] {
			t.Errorf("no %s finding: the test no longer shows that each kind survives the cache", s)
		}
	}
}

// TestRevisionKeyFollowsEverythingTheFindingsAreMadeOf: a revision's key
// is the same for the same files checked out anywhere, and changes with
// any input of its findings: a manifest no target reads, a CRD or a
// KubeVirt Template outside the repository, the input paths, the
// configuration. A run the revision cache cannot serve has no key.
func TestRevisionKeyFollowsEverythingTheFindingsAreMadeOf(t *testing.T) {
	r, _ := kustomizeRepo(t)
	r.Write(map[string]string{"loose/broken.yaml": "kind: [\n"})
	outside := t.TempDir()
	crd := filepath.Join(outside, "crd.yaml")
	templates := filepath.Join(outside, "templates")
	writeFile(t, crd, "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a.example.com\n")
	writeFile(t, filepath.Join(templates, "t.yaml"), "apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: t\n")
	args := []string{"--crds", crd, "--kubevirt-templates", templates}
	store, err := cache.Open(t.TempDir(), cache.Options{MaxBytes: 1 << 30, Identity: "test"})
	if err != nil {
		t.Fatal(err)
	}
	key := func(dir string, file *config.File, extra ...string) (cache.Key, bool) {
		t.Helper()
		cfg := testConfig(t, dir, file, append(append([]string{}, args...), extra...)...)
		rendered, err := load(context.Background(), cfg, store)
		if err != nil {
			t.Fatal(err)
		}
		return rendered.revision, rendered.revision != (cache.Key{})
	}
	first, ok := key(r.Dir, nil)
	if !ok {
		t.Fatal("the repository has no revision key")
	}
	moved := filepath.Join(t.TempDir(), "elsewhere")
	if out, err := exec.Command("cp", "-a", r.Dir, moved).CombinedOutput(); err != nil {
		t.Fatalf("copying the repository: %v: %s", err, out)
	}
	if k, _ := key(moved, nil); k != first {
		t.Error("the same files checked out elsewhere have another key")
	}
	changes := []struct {
		name string
		edit func()
		undo func()
		args []string
		file *config.File
	}{
		{name: "a manifest no target reads", edit: func() { r.Write(map[string]string{"loose/broken.yaml": "kind: [\n\n"}) },
			undo: func() { r.Write(map[string]string{"loose/broken.yaml": "kind: [\n"}) }},
		{name: "a CRD", edit: func() { appendFile(t, crd, "# changed\n") }, undo: func() { truncateFile(t, crd, "# changed\n") }},
		{name: "a KubeVirt Template", edit: func() { appendFile(t, filepath.Join(templates, "t.yaml"), "# changed\n") },
			undo: func() { truncateFile(t, filepath.Join(templates, "t.yaml"), "# changed\n") }},
		{name: "the input paths", args: []string{"overlays"}},
		{name: "the schema settings", file: &config.File{Schema: config.SchemaFile{SkipKinds: []string{"Secret"}}}},
		{name: "the check environment", args: []string{"--env", "environment=prod"}},
	}
	for _, c := range changes {
		if c.edit != nil {
			c.edit()
		}
		if k, ok := key(r.Dir, c.file, c.args...); !ok || k == first {
			t.Errorf("%s: the key did not change", c.name)
		}
		if c.undo != nil {
			c.undo()
			if k, _ := key(r.Dir, nil); k != first {
				t.Errorf("%s: undoing the change did not give the first key back", c.name)
			}
		}
	}
	for _, extra := range [][]string{{"--shard", "1/2"}, {"--changed", "overlays/dev/kustomization.yaml"}} {
		if _, ok := key(r.Dir, nil, extra...); ok {
			t.Errorf("%s: a run the revision cache cannot serve has a key", strings.Join(extra, " "))
		}
	}
	writeFile(t, filepath.Join(r.Dir, "rules.yaml"), "- not a rule\n")
	if _, ok := key(r.Dir, nil, "--rules", filepath.Join(r.Dir, "rules.yaml")); ok {
		t.Error("a revision whose rules files do not load has a key")
	}
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, name, text string) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, name, string(data)+text)
}

func truncateFile(t *testing.T, name, suffix string) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := strings.CutSuffix(string(data), suffix)
	if !ok {
		t.Fatalf("%s does not end with %q", name, suffix)
	}
	writeFile(t, name, s)
}
