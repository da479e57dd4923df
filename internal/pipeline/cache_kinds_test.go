package pipeline

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
)

// mixedRepo is a repository with one render target of every kind the
// cache keeps analyses of: a kustomize overlay, a directory holding an
// OpenShift Template, a chart rendered with its defaults and with its
// values-prod.yaml, and a Flux HelmRelease rendering the same chart with
// inline values. Each has something the default checks report.
func mixedRepo(t *testing.T) (*gittest.Repo, string) {
	r := gittest.New(t)
	r.Write(map[string]string{
		"base/kustomization.yaml":         "resources:\n  - deployment.yaml\n",
		"base/deployment.yaml":            deployment("api", "registry.example.com/api:latest"),
		"overlays/dev/kustomization.yaml": "resources:\n  - ../../base\nnamespace: dev\n",
		"templates/app.yaml": `apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: app
parameters:
  - name: IMAGE
    value: registry.example.com/app:latest
objects:
  - apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: app
    spec:
      selector:
        matchLabels: {app: app}
      template:
        metadata:
          labels: {app: app}
        spec:
          containers:
            - name: app
              image: ${IMAGE}
`,
		"charts/web/Chart.yaml":       "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"charts/web/values.yaml":      "image: registry.example.com/web:latest\nreplicas: 1\n",
		"charts/web/values-prod.yaml": "image: registry.example.com/web:2.0\nreplicas: 3\n",
		"charts/web/templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: {{ .Values.image }}
`,
		"flux/release.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: web
  namespace: flux-system
spec:
  interval: 10m
  chart:
    spec:
      chart: ./charts/web
      sourceRef:
        kind: GitRepository
        name: self
  values:
    replicas: 2
    image: registry.example.com/web:latest
`,
	})
	return r, r.Commit("base")
}

// mixedTargets is how many analyses mixedRepo's run keeps (one checks
// entry per target the checks apply to: overlays/dev, templates, and the
// chart with its defaults, with values-prod.yaml and from the HelmRelease;
// no check applies to flux's HelmRelease itself) and how many builds (the
// overlay's). A run also keeps the revision's findings (revision.go).
const mixedTargets, mixedBuilds = 5, 1

// TestWarmCacheEveryTargetKind: the report with a warm cache is the cold
// one, and every kind of target's analyses are found; a change to one
// target's input misses the entries of the targets made from it only: a
// file of a chart (values-prod.yaml is one: templates can read it through
// .Files) every render of the chart, a HelmRelease's inline values the
// render it asks for, a Template its directory.
func TestWarmCacheEveryTargetKind(t *testing.T) {
	for _, c := range []struct {
		name   string
		edit   map[string]string
		misses int
	}{
		{name: "nothing"},
		{name: "a chart's values file", edit: map[string]string{"charts/web/values-prod.yaml": "image: registry.example.com/web:latest\nreplicas: 3\n"}, misses: 3},
		{name: "a chart's template", edit: map[string]string{"charts/web/templates/service.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n    - port: 80\n"}, misses: 3},
		{name: "a HelmRelease's values", edit: map[string]string{"flux/release.yaml": strings.Replace(mixedFile(t, "flux/release.yaml"), "replicas: 2", "replicas: 4", 1)}, misses: 1},
		{name: "a Template", edit: map[string]string{"templates/app.yaml": strings.Replace(mixedFile(t, "templates/app.yaml"), "app:latest", "app:1.0", 1)}, misses: 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, _ := mixedRepo(t)
			cacheDir := t.TempDir()
			cfg := testConfig(t, r.Dir, nil)
			_, cold := reportBytes(t, withCache(cfg, cacheDir))
			if st := cold.CacheStats; st.Writes != mixedTargets+mixedBuilds+1 || st.Hits != 0 {
				t.Fatalf("cold run %+v, want %d analyses, %d build and the revision written", st, mixedTargets, mixedBuilds)
			}
			// The revision is found when nothing changed, missed when
			// anything did.
			revisionMisses := 0
			if c.edit != nil {
				r.Write(c.edit)
				revisionMisses = 1
			}
			want, _ := reportBytes(t, withCache(cfg, ""))
			warm := sameReport(t, withCache(cfg, cacheDir), want, "the cache")
			if st := warm.CacheStats; st.Misses != c.misses+revisionMisses || st.Hits != mixedTargets+mixedBuilds+1-c.misses-revisionMisses {
				t.Errorf("warm run %+v, want %d misses and the rest found", st, c.misses+revisionMisses)
			}
		})
	}
}

// mixedFile is a file of mixedRepo as committed.
func mixedFile(t *testing.T, name string) string {
	r, _ := mixedRepo(t)
	data, err := os.ReadFile(filepath.Join(r.Dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestWarmCacheEveryTargetKindInPullRequestMode: a pull request changing
// the HelmRelease's values and the Template, checked with the cache
// its base branch's run left, reports what it reports without a cache;
// only what the change touched is analysed again.
func TestWarmCacheEveryTargetKindInPullRequestMode(t *testing.T) {
	r, base := mixedRepo(t)
	cacheDir := t.TempDir()
	reportBytes(t, withCache(testConfig(t, r.Dir, nil), cacheDir)) // the base branch's run
	r.Write(map[string]string{
		"flux/release.yaml":  strings.Replace(mixedFile(t, "flux/release.yaml"), "replicas: 2", "replicas: 4", 1),
		"templates/app.yaml": strings.Replace(mixedFile(t, "templates/app.yaml"), "app:latest", "app:1.0", 1),
	})
	cfg := testConfig(t, r.Dir, nil, "--base-ref", base)
	want, _ := reportBytes(t, withCache(cfg, ""))
	res := sameReport(t, withCache(cfg, cacheDir), want, "the base branch's cache")
	// The base revision is found whole: its build, and its findings
	// (which spare analysing it); at the head, the render the HelmRelease
	// asks for and the Template's directory are analysed, and the other
	// three analyses found (the overlay's build is shared with the base
	// revision, not looked up again).
	if st := res.CacheStats; st.Misses != 2 || st.Writes != 2 || st.Hits != mixedBuilds+1+mixedTargets-2 {
		t.Errorf("pull request run %+v, want the two changed targets analysed and everything else found", st)
	}
	res = sameReport(t, withCache(cfg, cacheDir), want, "the warm cache")
	if st := res.CacheStats; st.Misses != 0 || st.Writes != 0 {
		t.Errorf("warm pull request run %+v, want everything found", st)
	}
}

// TestAnalysisCacheMovesWithTheRepository: the same repository checked
// out in another directory (another runner's workspace) finds every
// analysis its first checkout's run stored, reference and rules included.
func TestAnalysisCacheMovesWithTheRepository(t *testing.T) {
	repo := tinyBenchRepo(t)
	cacheDir := t.TempDir()
	_, first := reportBytes(t, withCache(testConfig(t, repo.dir, nil, repo.args...), cacheDir))
	moved := filepath.Join(t.TempDir(), "elsewhere")
	if out, err := exec.Command("cp", "-a", repo.dir, moved).CombinedOutput(); err != nil {
		t.Fatalf("copying the repository: %v: %s", err, out)
	}
	args := make([]string, len(repo.args))
	for i, a := range repo.args {
		args[i] = strings.Replace(a, repo.dir, moved, 1)
	}
	cfg := testConfig(t, moved, nil, args...)
	want, _ := reportBytes(t, withCache(cfg, ""))
	res := sameReport(t, withCache(cfg, cacheDir), want, "the cache")
	if st := res.CacheStats; st.Hits != first.CacheStats.Writes || st.Misses != 0 {
		t.Errorf("run in the moved checkout %+v, want the %d entries of the first found", st, first.CacheStats.Writes)
	}
}
