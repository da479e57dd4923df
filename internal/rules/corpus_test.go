package rules

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// corpusDir finds ../shared/corpus beside the repository root.
func corpusDir(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("no go.mod above the test directory")
		}
		dir = parent
	}
	corpus := filepath.Join(dir, "..", "shared", "corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("the corpus is absent (%s): skipping", corpus)
	}
	return corpus
}

// The built-in rules run over the real-world corpus (KubeVirt common
// templates, the telco RAN reference) without a finding: no false private
// keys, no rule errors.
func TestBuiltInRulesOnCorpus(t *testing.T) {
	fsys := os.DirFS(corpusDir(t))
	set := manifest.Load(fsys, []string{"."}, manifest.LoadOptions{})
	res := render.Render(context.Background(), fsys, set, render.Options{})
	engine := NewEngine(withBuiltIns(t, ""), Options{})
	run := engine.NewRun()
	run.Early(set.Documents)
	run.Preprocess(res.Targets)
	run.Main(res.Targets, nil)
	if fs := run.Findings(); len(fs) != 0 {
		t.Errorf("findings on the corpus:\n%s", messages(fs))
	}
	objects := len(res.Objects())
	if len(set.Documents) < 200 || objects < 150 {
		t.Errorf("the corpus loaded %d documents, %d objects", len(set.Documents), objects)
	}
	t.Logf("%d documents, %d objects, %d targets: no findings", len(set.Documents), objects, len(res.Targets))
}
