package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/golden"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// realWorldRepos are the public repositories of ../shared/corpus/realworld
// (see its README for what each holds and its known problems).
var realWorldRepos = []string{"podinfo", "microservices-demo", "examples", "library", "flux2-kustomize-helm-example"}

// TestRealWorldRepositories runs plumb as a new user would on each public
// repository of the corpus: no panic; with --fail-on never, exit 0; no
// finding in a file that is not a Kubernetes object (patch files, tool
// configuration, files without objects); no duplicate-object
// error for alternative files of a plain directory; and every error exactly
// the ones listed, each checked by hand to be real, in
// testdata/realworld/REPO.errors (go test -run RealWorld -update rewrites
// them; review the diff).
func TestRealWorldRepositories(t *testing.T) {
	base := filepath.Join(testcorpus.Dir(t), "realworld")
	for _, repo := range realWorldRepos {
		t.Run(repo, func(t *testing.T) {
			root := filepath.Join(base, repo)
			cfg := configFor(t, root, nil, nil)
			cfg.FailOn = config.FailOnNever
			cfg.Reproducible = true
			res, err := Check(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if code := res.ExitCode(cfg.FailOn); code != ExitOK {
				t.Errorf("--fail-on never: exit %d", code)
			}
			rep := res.Report
			s := rep.Summarize()
			t.Logf("%s: %d errors, %d warnings, %d notes; exit %d with --fail-on error; %d files skipped",
				repo, s.Levels["error"], s.Levels["warning"], s.Levels["note"], res.ExitCode(config.FailOnError), s.SkippedFiles)

			notObjects := skippedPlaces(rep.Skipped)
			var errs []string
			for i := range rep.Findings {
				f := &rep.Findings[i]
				if why := notObjects(f.Location.File); why != "" && !(why == manifest.SkipKustomizePatch && f.RuleID == manifest.RuleYAMLSyntax) {
					t.Errorf("a finding in a file that is no Kubernetes object (%s): %s", why, f)
				}
				if f.RuleID == manifest.RuleDuplicateObject && f.Level == finding.Error && len(f.Related) > 0 &&
					f.Related[0].File != f.Location.File && !strings.Contains(f.Message, "is defined twice in target") {
					t.Errorf("a duplicate-object error across files: %s", f)
				}
				if f.Level == finding.Error {
					errs = append(errs, fmt.Sprintf("%s %s", manifest.FormatLocation(manifest.Location{File: f.Location.File, Line: f.Location.Line}), f.RuleID))
				}
			}
			slices.Sort(errs)
			compareErrors(t, filepath.Join("testdata", "realworld", repo+".errors"), errs)
		})
	}
}

// skippedPlaces returns a function that says why a file is not read as
// Kubernetes objects ("" when it is). Chart sources are not skipped: the
// charts are rendered, and findings on their objects point into them.
func skippedPlaces(skipped []manifest.Skipped) func(file string) manifest.SkipReason {
	files := map[string]manifest.SkipReason{}
	for _, s := range skipped {
		files[s.Path] = s.Reason
	}
	return func(file string) manifest.SkipReason { return files[file] }
}

// compareErrors checks the error findings against the expectations file:
// "file:line rule" per error, sorted; lines starting with # are comments.
func compareErrors(t *testing.T, name string, got []string) {
	t.Helper()
	data, err := os.ReadFile(name)
	var header []string
	var want []string
	if err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			switch {
			case strings.HasPrefix(line, "#"):
				header = append(header, line)
			case strings.TrimSpace(line) != "":
				want = append(want, line)
			}
		}
	}
	if golden.Updating() {
		out := strings.Join(append(header, got...), "\n") + "\n"
		if err := os.WriteFile(name, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil {
		t.Fatalf("%v (go test -run RealWorld -update writes it)", err)
	}
	if slices.Equal(got, want) {
		return
	}
	gotSet, wantSet := counts(got), counts(want)
	for k, n := range gotSet {
		if wantSet[k] < n {
			t.Errorf("an error not in %s: %s (%d, want %d)", name, k, n, wantSet[k])
		}
	}
	for k, n := range wantSet {
		if gotSet[k] < n {
			t.Errorf("an error of %s not reported: %s (%d, want %d)", name, k, gotSet[k], n)
		}
	}
}

func counts(lines []string) map[string]int {
	m := map[string]int{}
	for _, l := range lines {
		m[l]++
	}
	return m
}
