package pipeline

import (
	"context"
	"io"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/plumb-ci/plumb/internal/bench"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/internal/report"
	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// TestRenderedContentIsNotModified holds every stage after rendering —
// preprocess and main rules, every analyzer, suppressions, the fix stage,
// the reports — to never change a rendered object's content in place. The
// render shares identical parts between objects and targets (package
// render, intern.go), so a change made in place to one object would change
// others that merely look alike. It runs the whole check over repositories
// that use every stage: the benchmark corpus (inspection rules that edit
// objects, a reference), the demo with its reference, and the realworld
// repositories when the shared corpus is present.
func TestRenderedContentIsNotModified(t *testing.T) {
	gen := t.TempDir()
	c, err := bench.Generate(gen, bench.Spec{Seed: 7, Overlays: 8, Bases: 2, ObjectsPerBase: 6})
	if err != nil {
		t.Fatal(err)
	}
	top, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	type repo struct {
		name, root string
		args       []string
		// warm runs the check once before, so that the objects come
		// from the persistent cache.
		warm bool
	}
	repos := []repo{
		{"benchmark corpus", c.Dir, []string{"--no-cache", "--reference", c.Reference, "--rules", c.RulesFile}, false},
		{"benchmark corpus, warm cache", c.Dir, []string{"--cache-dir", t.TempDir(), "--reference", c.Reference, "--rules", c.RulesFile}, true},
		{"demo", top, []string{"--reference", filepath.Join(top, "fixtures/reference"), filepath.Join(top, "fixtures/demo"), "--no-cache"}, false},
	}
	for _, name := range realWorldRepos {
		repos = append(repos, repo{name: name, args: []string{"--no-cache"}})
	}
	for _, repo := range repos {
		t.Run(repo.name, func(t *testing.T) {
			if repo.root == "" {
				repo.root = testcorpus.Dir(t, "realworld", repo.name)
			}
			cfg := testConfig(t, repo.root, nil, append([]string{"--fail-on", "never"}, repo.args...)...)
			if repo.warm {
				if _, err := Check(context.Background(), cfg); err != nil {
					t.Fatal(err)
				}
			}
			var seen []renderedContent
			testHookRendered = func(res *render.Result) {
				for _, tg := range res.Targets {
					for _, o := range tg.Objects {
						seen = append(seen, renderedContent{target: tg.Name, id: o.ID, content: o.Content,
							copy: manifest.DeepCopy(o.Content)})
					}
				}
			}
			defer func() { testHookRendered = nil }()
			res, err := Check(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if repo.warm && (res.CacheStats.Hits == 0 || res.CacheStats.Misses > 0) {
				t.Fatalf("the second run did not come from the cache: %+v", res.CacheStats)
			}
			for _, s := range []report.Sink{report.Text{}, report.JSON{}, report.SARIF{}} {
				if err := s.Write(io.Discard, res.Report); err != nil {
					t.Fatal(err)
				}
			}
			if len(seen) == 0 {
				t.Fatal("nothing was rendered")
			}
			for _, s := range seen {
				if !reflect.DeepEqual(any(s.content), s.copy) {
					t.Errorf("target %s, %s: its rendered content was changed in place", s.target, s.id)
				}
			}
		})
	}
}

// renderedContent is an object's content as rendered, and a copy of it.
type renderedContent struct {
	target  string
	id      manifest.ObjectID
	content map[string]any
	copy    any
}
