package policy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// renderDir loads and renders a directory as plumb check does (problems
// with the content are other engines' findings).
func renderDir(t *testing.T, dir string) []*render.Target {
	t.Helper()
	fsys := manifest.ContentFS(os.DirFS(dir))
	set := manifest.Load(fsys, []string{"."}, manifest.LoadOptions{})
	return render.Render(context.Background(), fsys, set, render.Options{}).Targets
}

// The real-world repositories hold no admission policies: the analyzer
// reports nothing on them. With the twenty typical policies given as the
// workflow's, every finding is a verdict of a validation (no expression
// that fails to evaluate: the policies are written for rendered, not
// defaulted, objects), and they are logged for reading. The same for
// Kyverno's policies (testdata/kyverno-policies.yaml, whose actions are
// Audit and Warn: no finding is an error).
func TestRealWorldCorpus(t *testing.T) {
	root := testcorpus.Dir(t, "realworld")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	given, problems := Load([]manifest.Source{{Path: "testdata/typical-policies.yaml", Display: "typical-policies.yaml"}}, manifest.DefaultLimits)
	if len(problems) > 0 || len(given) != 40 {
		t.Fatalf("%d policy objects, problems %+v", len(given), problems)
	}
	kyverno, problems := Load([]manifest.Source{{Path: "testdata/kyverno-policies.yaml", Display: "kyverno-policies.yaml"}}, manifest.DefaultLimits)
	if len(problems) > 0 || len(kyverno) != 5 {
		t.Fatalf("%d Kyverno policies, problems %+v", len(kyverno), problems)
	}
	total, totalKyverno := 0, 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		targets := renderDir(t, filepath.Join(root, e.Name()))
		out, err := (&Analyzer{}).Analyze(context.Background(), &analyzer.Input{Targets: targets})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range out.Findings {
			t.Errorf("%s: without policies: %s", e.Name(), f.String())
		}
		out, err = (&Analyzer{WorkflowPolicies: given}).Analyze(context.Background(), &analyzer.Input{Targets: targets})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range out.Findings {
			if strings.Contains(f.Message, "could not be evaluated") || f.Location.File == "" {
				t.Errorf("%s: %s", e.Name(), f.String())
			}
			t.Logf("%s: %s %s path=%s", e.Name(), f.Level, f.RuleID, f.Path)
		}
		total += len(out.Findings)
		out, err = (&Analyzer{WorkflowPolicies: kyverno}).Analyze(context.Background(), &analyzer.Input{Targets: targets})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range out.Findings {
			if strings.Contains(f.Message, "could not be evaluated") || f.Location.File == "" || f.Level == finding.Error {
				t.Errorf("%s: Kyverno: %s", e.Name(), f.String())
			}
			t.Logf("%s: Kyverno: %s path=%s", e.Name(), f.String(), f.Path)
		}
		totalKyverno += len(out.Findings)
	}
	t.Logf("%d findings with the typical policies, %d with the Kyverno policies", total, totalKyverno)
}
