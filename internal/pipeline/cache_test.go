package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/bench"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/report"
)

// reportBytes runs the pipeline and writes the report in every format that
// carries findings.
func reportBytes(t *testing.T, cfg *config.Config) ([]byte, *Result) {
	t.Helper()
	res, err := Check(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, sink := range []report.Sink{report.JSON{}, report.SARIF{}, report.Text{}, report.Markdown{}} {
		if err := sink.Write(&out, res.Report); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes(), res
}

// withCache returns the configuration with the persistent cache in dir
// ("" for none).
func withCache(cfg *config.Config, dir string) *config.Config {
	c := *cfg
	c.Cache = config.CacheSettings{Dir: dir, MaxBytes: 1 << 30}
	return &c
}

// cacheRepo is a repository the warm-cache tests run on, with the
// arguments of its run.
type cacheRepo struct {
	dir  string
	args []string
}

// cacheRepos are the repositories the warm-cache tests run on: kustomize
// overlays, OpenShift Templates, Helm charts (by convention and from Flux
// HelmReleases), KubeVirt VMs and plain files; and the benchmark corpus at
// 1,000 objects, with its reference and inspection rules.
func cacheRepos(t *testing.T) map[string]cacheRepo {
	bench1k := t.TempDir()
	c, err := bench.Generate(bench1k, bench.Small)
	if err != nil {
		t.Fatal(err)
	}
	repos := map[string]cacheRepo{
		"demo":  {dir: "../../fixtures/demo"},
		"bench": {dir: bench1k, args: []string{"--reference", c.Reference, "--rules", c.RulesFile}},
	}
	corpus, _ := filepath.Abs("../../../shared/corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Log("../shared/corpus is absent: the bundled demo and the benchmark corpus only")
		return repos
	}
	for _, r := range []string{"realworld/podinfo", "realworld/microservices-demo", "realworld/library",
		"realworld/flux2-kustomize-helm-example", "kubevirt-common-templates"} {
		repos[r] = cacheRepo{dir: filepath.Join(corpus, r)}
	}
	return repos
}

// TestWarmCacheGivesTheColdReport: a run that finds everything in the
// cache writes the same bytes, in every format, as the run that filled it
// and as a run without a cache.
func TestWarmCacheGivesTheColdReport(t *testing.T) {
	for name, repo := range cacheRepos(t) {
		t.Run(name, func(t *testing.T) {
			dir, _ := filepath.Abs(repo.dir)
			cfg := testConfig(t, dir, nil, repo.args...)
			want, _ := reportBytes(t, withCache(cfg, ""))
			cacheDir := t.TempDir()
			cold, coldRes := reportBytes(t, withCache(cfg, cacheDir))
			if !bytes.Equal(cold, want) {
				t.Fatalf("filling the cache changed the report:\n%s", firstDifference(cold, want))
			}
			warm, warmRes := reportBytes(t, withCache(cfg, cacheDir))
			if !bytes.Equal(warm, want) {
				t.Fatalf("the warm cache changed the report:\n%s", firstDifference(warm, want))
			}
			if coldRes.CacheStats.Writes != warmRes.CacheStats.Hits || warmRes.CacheStats.Writes != 0 || warmRes.CacheStats.Misses != 0 {
				t.Errorf("cold run %+v, warm run %+v: want every entry written cold found warm", coldRes.CacheStats, warmRes.CacheStats)
			}
		})
	}
}

// TestWarmCacheInPullRequestMode: in pull-request mode the report is the
// same without a cache, with the cache the base branch's run left (the
// pull request's base found, its change built), and with a warm cache.
func TestWarmCacheInPullRequestMode(t *testing.T) {
	r, base := kustomizeRepo(t)
	// The base branch's run fills the cache.
	cacheDir := t.TempDir()
	if _, res := reportBytes(t, withCache(testConfig(t, r.Dir, nil), cacheDir)); res.CacheStats.Writes != 3 {
		t.Fatalf("the base branch's run wrote %+v, want its 3 overlays", res.CacheStats)
	}
	r.Write(map[string]string{"overlays/prod/patch.yaml": strings.Replace(
		r.Git("show", "HEAD:overlays/prod/patch.yaml")+"\n", "nginx:1.25.3", "nginx:latest", 1)})
	cfg := testConfig(t, r.Dir, nil, "--base-ref", base)
	want, _ := reportBytes(t, withCache(cfg, ""))
	got, res := reportBytes(t, withCache(cfg, cacheDir))
	if !bytes.Equal(got, want) {
		t.Fatalf("the base branch's cache changed the report:\n%s", firstDifference(got, want))
	}
	// The base's three overlays are found; the head's prod is built (its
	// other two are shared with the base).
	if st := res.CacheStats; st.Hits != 3 || st.Writes != 1 {
		t.Errorf("pull request run %+v, want 3 hits and prod written", st)
	}
	got, res = reportBytes(t, withCache(cfg, cacheDir))
	if !bytes.Equal(got, want) {
		t.Fatalf("the warm cache changed the report:\n%s", firstDifference(got, want))
	}
	if st := res.CacheStats; st.Writes != 0 || st.Misses != 0 {
		t.Errorf("warm pull request run %+v, want everything found", st)
	}
}
