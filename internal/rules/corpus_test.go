package rules

import (
	"context"
	"os"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// The built-in rules run over the real-world corpus (KubeVirt common
// templates, the telco RAN reference) without a finding: no false private
// keys, no rule errors.
func TestBuiltInRulesOnCorpus(t *testing.T) {
	fsys := os.DirFS(testcorpus.Dir(t))
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
