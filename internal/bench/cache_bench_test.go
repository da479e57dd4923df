package bench_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/bench"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/pipeline"
	"github.com/plumb-ci/plumb/internal/report"
)

// runCheck runs `plumb check` with the configuration and writes the text
// report, as BenchmarkCheck does; it returns the wall and CPU time taken.
func runCheck(b *testing.B, cfg *config.Config, objects int) (wall, cpu time.Duration) {
	b.Helper()
	start, c := time.Now(), bench.CPUTime()
	res, err := pipeline.Check(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Report.Objects) < objects {
		b.Fatalf("%d objects reported, want at least %d", len(res.Report.Objects), objects)
	}
	if err := (report.Text{}).Write(io.Discard, res.Report); err != nil {
		b.Fatal(err)
	}
	return time.Since(start), bench.CPUTime() - c
}

// ratio accumulates two alternating runs and reports their times and
// ratio (wall and CPU): alternating them makes the ratio fair on a machine
// whose load changes.
type ratio struct {
	aWall, aCPU, bWall, bCPU time.Duration
}

// addA and addB add one run of each side.
func (r *ratio) addA(wall, cpu time.Duration) { r.aWall, r.aCPU = r.aWall+wall, r.aCPU+cpu }
func (r *ratio) addB(wall, cpu time.Duration) { r.bWall, r.bCPU = r.bWall+wall, r.bCPU+cpu }

// emptyCache is the configuration of a cold run that fills a cache of its
// own (iteration i's).
func emptyCache(b *testing.B, c *bench.Corpus, i int) *config.Config {
	return checkConfig(b, c, "--cache-dir", filepath.Join(b.TempDir(), fmt.Sprint(i)))
}

func (r *ratio) report(b *testing.B, a, bName string) {
	n := float64(b.N)
	b.ReportMetric(r.aWall.Seconds()/n, a+"-s")
	b.ReportMetric(r.aCPU.Seconds()/n, a+"-cpu-s")
	b.ReportMetric(r.bWall.Seconds()/n, bName+"-s")
	b.ReportMetric(r.bCPU.Seconds()/n, bName+"-cpu-s")
	b.ReportMetric(float64(r.bWall)/float64(r.aWall), bName+"-x-"+a)
	b.ReportMetric(float64(r.bCPU)/float64(r.aCPU), bName+"-x-"+a+"-cpu")
}

// BenchmarkCheckWarm is the warm-cache target: `plumb check` with
// nothing changed since the run that filled the cache, against the cold
// run (an empty cache, which it fills), alternated in each iteration.
func BenchmarkCheckWarm(b *testing.B) {
	for _, size := range sizes {
		b.Run(size.name, func(b *testing.B) {
			c := corpus(b, size.spec)
			warmDir := b.TempDir()
			warm := checkConfig(b, c, "--cache-dir", warmDir)
			runCheck(b, warm, c.Objects) // fills the warm cache
			var r ratio
			for i := 0; b.Loop(); i++ {
				r.addA(runCheck(b, emptyCache(b, c, i), c.Objects))
				r.addB(runCheck(b, warm, c.Objects))
			}
			r.report(b, "cold", "warm")
		})
	}
}

// BenchmarkCheckColdVsKrusty is the cold-run target: a cold
// `plumb check` (empty cache) against krusty alone building the same
// overlays (`kustomize build`: Run and AsYaml), in the same iterations.
func BenchmarkCheckColdVsKrusty(b *testing.B) {
	for _, size := range sizes {
		b.Run(size.name, func(b *testing.B) {
			c := corpus(b, size.spec)
			var r ratio
			for i := 0; b.Loop(); i++ {
				start, cpu := time.Now(), bench.CPUTime()
				krustyAll(b, c)
				r.addA(time.Since(start), bench.CPUTime()-cpu)
				r.addB(runCheck(b, emptyCache(b, c, i), c.Objects))
			}
			r.report(b, "krusty", "check")
		})
	}
}

// BenchmarkCheckFillingCache is what a cold run pays for filling the
// cache: `plumb check` without the cache against the same run writing
// every render and analysis to an empty cache, alternated.
func BenchmarkCheckFillingCache(b *testing.B) {
	for _, size := range sizes {
		b.Run(size.name, func(b *testing.B) {
			c := corpus(b, size.spec)
			var r ratio
			for i := 0; b.Loop(); i++ {
				r.addA(runCheck(b, checkConfig(b, c), c.Objects))
				r.addB(runCheck(b, emptyCache(b, c, i), c.Objects))
			}
			r.report(b, "nocache", "filling")
		})
	}
}

// BenchmarkPullRequestIncremental is the pull-request target: a
// pull request changing 5 of the 200 overlays, checked in pull-request
// mode with the cache its base branch's run left, against the same run
// without a cache. The corpus is committed to git; each iteration starts
// from a copy of the base branch's cache.
func BenchmarkPullRequestIncremental(b *testing.B) {
	c := corpus(b, bench.Default)
	repo := b.TempDir()
	git(b, "", "clone", "--quiet", "--no-hardlinks", gitCorpus(b, c), repo)
	base := strings.TrimSpace(git(b, repo, "rev-parse", "HEAD"))
	baseCache := b.TempDir()
	cc := *c
	cc.Dir = repo
	runCheck(b, checkConfig(b, &cc, "--cache-dir", baseCache), c.Objects) // the base branch's run
	for i := 0; i < 5; i++ {
		f := filepath.Join(repo, c.Overlays[i*len(c.Overlays)/5], "kustomization.yaml")
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(strings.Replace(string(data), "labels:\n  - pairs:\n", "labels:\n  - pairs:\n      changed: \"yes\"\n", 1)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var r ratio
	for i := 0; b.Loop(); i++ {
		r.addA(runCheck(b, checkConfig(b, &cc, "--base-ref", base), c.Objects))
		b.StopTimer()
		dir := filepath.Join(b.TempDir(), fmt.Sprint(i))
		if out, err := exec.Command("cp", "-a", baseCache, dir).CombinedOutput(); err != nil {
			b.Fatalf("copying the cache: %v: %s", err, out)
		}
		b.StartTimer()
		r.addB(runCheck(b, checkConfig(b, &cc, "--base-ref", base, "--cache-dir", dir), c.Objects))
	}
	r.report(b, "cold", "cached")
}

// gitCorpus commits a copy of the corpus in a repository of its own, once
// per test binary.
func gitCorpus(b *testing.B, c *bench.Corpus) string {
	corpora.Lock()
	defer corpora.Unlock()
	dir := c.Dir + ".git-repo"
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return dir
	}
	if out, err := exec.Command("cp", "-a", c.Dir, dir).CombinedOutput(); err != nil {
		b.Fatalf("copying the corpus: %v: %s", err, out)
	}
	corpora.dirs = append(corpora.dirs, dir)
	git(b, dir, "init", "--quiet")
	git(b, dir, "add", "-A")
	git(b, dir, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "--quiet", "-m", "corpus")
	return dir
}

func git(b *testing.B, dir string, args ...string) string {
	b.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// typicalPolicies are the twenty admission policies of the policy
// analyzer's tests: the Pod Security Standards as
// ValidatingAdmissionPolicies, image registries and tags, labels, limits.
var typicalPolicies = filepath.Join("..", "policy", "testdata", "typical-policies.yaml")

// BenchmarkPolicyShare is `plumb check` with twenty typical admission
// policies (--policies), and the policy analyzer's own cost on the same
// rendered objects: policy-share-% is its CPU time as a share of the
// whole run's.
func BenchmarkPolicyShare(b *testing.B) {
	policies, err := filepath.Abs(typicalPolicies)
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range sizes {
		b.Run(size.name, func(b *testing.B) {
			c := corpus(b, size.spec)
			cfg := checkConfig(b, c, "--policies", policies)
			rendered, err := pipeline.Load(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			in := &analyzer.Input{Targets: rendered.Render.Targets, Env: cfg.Checks.Env, TargetEnv: rendered.Rules.TargetEnv()}
			var engine analyzer.Analyzer
			engines, _ := pipeline.Analyzers(context.Background(), cfg, nil)
			for _, a := range engines {
				if a.Name() == "policy" {
					engine = a
				}
			}
			var checkCPU, policyCPU time.Duration
			findings := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_, cpu := runCheck(b, cfg, c.Objects)
				checkCPU += cpu
				start := bench.CPUTime()
				out, err := engine.Analyze(context.Background(), in)
				if err != nil {
					b.Fatal(err)
				}
				policyCPU += bench.CPUTime() - start
				findings = len(out.Findings)
			}
			b.StopTimer()
			b.ReportMetric(checkCPU.Seconds()/float64(b.N), "check-cpu-s")
			b.ReportMetric(policyCPU.Seconds()/float64(b.N), "policy-cpu-s")
			b.ReportMetric(100*policyCPU.Seconds()/checkCPU.Seconds(), "policy-share-%")
			b.ReportMetric(float64(findings), "policy-findings")
		})
	}
}
