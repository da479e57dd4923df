package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/bench"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/policy"
	"github.com/plumb-ci/plumb/internal/render"
)

// BenchmarkTypicalPolicies evaluates the twenty typical policies on the
// benchmark's 1,000-object corpus (the whole pipeline's share is measured
// by internal/bench BenchmarkPolicyShare).
func BenchmarkTypicalPolicies(b *testing.B) {
	dir := b.TempDir()
	c, err := bench.Generate(dir, bench.Small)
	if err != nil {
		b.Fatal(err)
	}
	fsys := manifest.ContentFS(os.DirFS(c.Dir))
	set := manifest.Load(fsys, []string{"."}, manifest.LoadOptions{})
	targets := render.Render(context.Background(), fsys, set, render.Options{}).Targets
	given, problems := policy.Load([]manifest.Source{{Path: filepath.Join("testdata", "typical-policies.yaml"), Display: "typical-policies.yaml"}}, manifest.DefaultLimits)
	if len(problems) > 0 {
		b.Fatal(problems)
	}
	a := &policy.Analyzer{WorkflowPolicies: given}
	in := &analyzer.Input{Targets: targets}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := a.Analyze(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(c.Objects)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
}
