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
	return reportOf(t, res), res
}

// reportOf writes a result's report in every format that carries findings.
func reportOf(t *testing.T, res *Result) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, sink := range []report.Sink{report.JSON{}, report.SARIF{}, report.Text{}, report.Markdown{}} {
		if err := sink.Write(&out, res.Report); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// sameReport runs the pipeline and fails the test when its report is not
// want; what names the difference the run made.
func sameReport(t *testing.T, cfg *config.Config, want []byte, what string) *Result {
	t.Helper()
	got, res := reportBytes(t, cfg)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s changed the report:\n%s", what, firstDifference(got, want))
	}
	return res
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
	repos := map[string]cacheRepo{
		"demo":  {dir: "../../fixtures/demo"},
		"bench": tinyBenchRepo(t),
		// Secret values in every form (their builds are sealed in the
		// cache: cmd/plumb's TestCacheHoldsNoSecretValues).
		"cache-secrets": {dir: "../../fixtures/cache-secrets", args: []string{"--set", "password=PLANTED-HELM-SET-8"}},
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

// tinyBench is the benchmark corpus's layout at 240 objects: overlays of
// two bases, a Template, a reference and inspection rules.
var tinyBench = bench.Spec{Seed: 1, Overlays: 6, Bases: 2, ObjectsPerBase: 40, Templates: 1, ReferenceTemplates: 30, Rules: 20}

// tinyBenchRepo writes tinyBench to a new directory.
func tinyBenchRepo(t *testing.T) cacheRepo {
	dir := t.TempDir()
	c, err := bench.Generate(dir, tinyBench)
	if err != nil {
		t.Fatal(err)
	}
	return cacheRepo{dir: dir, args: []string{"--reference", c.Reference, "--rules", c.RulesFile}}
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
			coldRes := sameReport(t, withCache(cfg, cacheDir), want, "filling the cache")
			warmRes := sameReport(t, withCache(cfg, cacheDir), want, "the warm cache")
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
	if _, res := reportBytes(t, withCache(testConfig(t, r.Dir, nil), cacheDir)); res.CacheStats.Writes != 7 {
		t.Fatalf("the base branch's run wrote %+v, want its 3 overlays' builds and checks, and its findings", res.CacheStats)
	}
	r.Write(map[string]string{"overlays/prod/patch.yaml": strings.Replace(
		r.Git("show", "HEAD:overlays/prod/patch.yaml")+"\n", "nginx:1.25.3", "nginx:latest", 1)})
	cfg := testConfig(t, r.Dir, nil, "--base-ref", base)
	want, _ := reportBytes(t, withCache(cfg, ""))
	res := sameReport(t, withCache(cfg, cacheDir), want, "the base branch's cache")
	// The base's three overlays' builds are found, and its findings, so
	// that it is not checked again; at the head, prod is built and
	// checked (the other two builds are shared with the base, their
	// checks found).
	if st := res.CacheStats; st.Hits != 6 || st.Misses != 2 || st.Writes != 2 {
		t.Errorf("pull request run %+v, want 6 hits, and prod built and checked", st)
	}
	res = sameReport(t, withCache(cfg, cacheDir), want, "the warm cache")
	if st := res.CacheStats; st.Writes != 0 || st.Misses != 0 {
		t.Errorf("warm pull request run %+v, want everything found", st)
	}
}

// TestAnalysisCacheFollowsItsInputs: a change to anything an analysis
// depends on — a rules file, a reference template, the check environment,
// the check catalog selection, an overlay — gives the report a run
// without a cache gives, taking from the cache only what the change left
// alone.
func TestAnalysisCacheFollowsItsInputs(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(t *testing.T, dir string)
		args []string
		// file is the .plumb.yaml of the second run.
		file string
		// hits is how many entries the run finds (of 2 per overlay:
		// its build and its checks; 2 for the comparison of the two
		// plain targets; 6 for the overlays' comparisons; 1 for the
		// revision's findings, which any change misses).
		hits int
	}{
		{name: "nothing", hits: 12 + 6 + 2 + 1},
		{name: "a rules file", edit: appendTo(".plumb/rules.yaml", "- uuid: extra\n  phase: preprocess\n  conditions: []\n  actions:\n    - {op: add-trait, args: {name: extra}}\n"), hits: 6},
		{name: "a reference template", edit: replaceIn("reference/metadata.yaml", "parts:", "# changed\nparts:"), hits: 6},
		{name: "the environment", args: []string{"--env", "environment=prod"}, hits: 6},
		{name: "the checks selected", args: []string{"--select", "C10001"}, hits: 6},
		{name: "the Kubernetes version", args: []string{"--kubernetes-version", "1.20"}, hits: 6},
		// The schema analyzer runs afresh on every run: its settings
		// leave every entry valid.
		{name: "the schema settings", file: "schema:\n  skip_kinds: [ConfigMap]\n", hits: 12 + 6 + 2},
		{name: "an overlay", edit: replaceIn("sites/s000/overlays/test/kustomization.yaml", "count: 1", "count: 4"), hits: 12 + 6 + 2 - 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo := tinyBenchRepo(t)
			cacheDir := t.TempDir()
			reportBytes(t, withCache(testConfig(t, repo.dir, nil, repo.args...), cacheDir))
			if c.edit != nil {
				c.edit(t, repo.dir)
			}
			var file *config.File
			if c.file != "" {
				var err error
				if file, err = config.ParseFile(".plumb.yaml", []byte(c.file)); err != nil {
					t.Fatal(err)
				}
			}
			cfg := testConfig(t, repo.dir, file, append(repo.args, c.args...)...)
			want, _ := reportBytes(t, withCache(cfg, ""))
			res := sameReport(t, withCache(cfg, cacheDir), want, "the cache")
			if res.CacheStats.Hits != c.hits {
				t.Errorf("%+v, want %d hits", res.CacheStats, c.hits)
			}
		})
	}
}

func appendTo(name, text string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, name)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, append(data, text...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func replaceIn(name, old, new string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		p := filepath.Join(dir, name)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte(old)) {
			t.Fatalf("%s has no %q", name, old)
		}
		if err := os.WriteFile(p, bytes.Replace(data, []byte(old), []byte(new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
