package render

import (
	"os"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render/helm"
	"github.com/plumb-ci/plumb/internal/source"
)

// umbrella is a chart of this repository that depends on podinfo from a
// chart repository, not vendored.
func umbrella(repoURL, constraint, lock string) map[string]string {
	files := map[string]string{
		"charts/shop/Chart.yaml":        "apiVersion: v2\nname: shop\nversion: 1.0.0\ndependencies:\n  - name: podinfo\n    version: \"" + constraint + "\"\n    repository: " + repoURL + "\n",
		"charts/shop/values.yaml":       "podinfo:\n  replicaCount: 4\n",
		"charts/shop/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shop\ndata:\n  k: v\n",
	}
	if lock != "" {
		files["charts/shop/Chart.lock"] = "dependencies:\n  - name: podinfo\n    repository: " + repoURL + "\n    version: " + lock + "\ndigest: sha256:0\ngenerated: \"2026-01-01T00:00:00Z\"\n"
	}
	return files
}

func shopRender(t *testing.T, files map[string]string, fetcher *source.Fetcher) *Result {
	dir := t.TempDir()
	writeTree(t, dir, files)
	opts := helmOpts()
	opts.Fetcher = fetcher
	return renderRepo(t, dir, opts, "charts")
}

// A dependency the repository does not vendor is fetched as `helm
// dependency build` would: Chart.lock's version exactly, else the highest
// the constraint allows; the subchart renders with the parent's values,
// and what it supplies is placed at the parent's Chart.yaml.
func TestChartDependenciesFetched(t *testing.T) {
	srv := chartRepo(t, "podinfo", podinfoCharts(t))
	for _, c := range []struct {
		name, constraint, lock, want string
	}{
		{"locked", ">=6.0.0-0", "6.6.0-rc.1", "6.6.0-rc.1"},
		{"constraint", "^6.0.0", "", "6.5.0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := fetcherFor(t, srv.URL)
			res := shopRender(t, umbrella(srv.URL, c.constraint, c.lock), f)
			for _, p := range res.Problems {
				t.Errorf("%s: %s", manifest.FormatLocation(p.Location), p.Message)
			}
			d := object(t, res, "charts/shop", "Deployment", "release-name")
			if r := d.Content["spec"].(map[string]any)["replicas"]; r != int64(4) {
				t.Errorf("replicas %#v, want the parent's values", r)
			}
			img := d.Content["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"]
			if img != "ghcr.io/stefanprodan/podinfo:"+c.want {
				t.Errorf("image %v, want podinfo %s", img, c.want)
			}
			if got := at(t, d, "spec.template.spec.containers[0].image"); !strings.HasPrefix(got, "charts/shop/Chart.yaml") {
				t.Errorf("image at %s, want the parent's Chart.yaml", got)
			}
			if got := at(t, d, "spec.replicas"); got != "charts/shop/values.yaml:2:3" {
				t.Errorf("replicas at %s, want the parent's values line", got)
			}
			if got := f.Fetched(); len(got) != 1 || got[0].Name != "podinfo" || got[0].Version != c.want {
				t.Errorf("fetched %+v", got)
			}
		})
	}
}

// Without fetching, or when the fetch fails, the dependency is missing as
// before: a warning at its Chart.yaml entry (the repository does not
// vendor its dependencies), saying why it was not fetched; an error when
// charts/ holds the other dependencies Chart.lock pins.
func TestChartDependenciesNotFetched(t *testing.T) {
	srv := chartRepo(t, "podinfo", podinfoCharts(t))
	build := "so the chart is not rendered and its objects are not checked: run `helm dependency build charts/shop` and commit charts/"
	vendoring := umbrella(srv.URL, "^6.0.0", "6.4.0")
	vendoring["charts/shop/Chart.yaml"] += "  - name: cache\n    version: 0.1.0\n    repository: https://charts.example.com\n"
	vendoring["charts/shop/Chart.lock"] = strings.Replace(vendoring["charts/shop/Chart.lock"], "digest:", "  - name: cache\n    repository: https://charts.example.com\n    version: 0.1.0\ndigest:", 1)
	archive, err := os.ReadFile("helm/testdata/repo/tgzdep/charts/cache-0.1.0.tgz")
	if err != nil {
		t.Fatal(err)
	}
	vendoring["charts/shop/charts/cache-0.1.0.tgz"] = string(archive)
	// podinfo is fetched, not vendored: the other pinned dependency that
	// cannot be fetched is not missing from a vendored charts/.
	fetchedOne := umbrella(srv.URL, ">=6.0.0-0", "6.6.0-rc.1")
	fetchedOne["charts/shop/Chart.yaml"] = strings.Replace(fetchedOne["charts/shop/Chart.yaml"], "dependencies:\n", "dependencies:\n  - name: cache\n    version: 0.1.0\n    repository: "+srv.URL+"\n", 1)
	fetchedOne["charts/shop/Chart.lock"] = strings.Replace(fetchedOne["charts/shop/Chart.lock"], "digest:", "  - name: cache\n    repository: "+srv.URL+"\n    version: 0.1.0\ndigest:", 1)
	for _, c := range []struct {
		name    string
		files   map[string]string
		fetcher *source.Fetcher
		level   string
		want    string
	}{
		{"off", umbrella(srv.URL, "^6.0.0", ""), nil, "warning",
			"dependency podinfo (" + srv.URL + ") is not vendored in charts/, " + build + ", or let plumb fetch it (allow " + strings.TrimPrefix(srv.URL, "http://") +
				" with --remote-host, the action input remote-hosts or remote.hosts in .plumb.yaml)"},
		{"lock not served", umbrella(srv.URL, "^6.0.0", "6.4.0"), fetcherFor(t, srv.URL), "warning",
			"dependency podinfo (" + srv.URL + ") is not vendored in charts/, " + build + " (plumb could not fetch it: chart repository " + srv.URL + ": no version of chart podinfo matches \"6.4.0\")"},
		{"oci host not allowed", umbrella("oci://registry.example/charts", "^6.0.0", ""), fetcherFor(t, srv.URL), "warning",
			"dependency podinfo (oci://registry.example/charts) is not vendored in charts/, " + build + " (plumb could not fetch it: registry.example is not an allowed remote host (allowed: " +
				strings.TrimPrefix(srv.URL, "http://") + "); add it with --remote-host registry.example, the action input remote-hosts, or remote.hosts in the base revision's .plumb.yaml)"},
		{"lock not served, the others vendored", vendoring, fetcherFor(t, srv.URL), "error",
			"dependency podinfo is pinned at 6.4.0 in Chart.lock but charts/ does not hold it, while it holds the other dependencies Chart.lock pins: " +
				"run `helm dependency build charts/shop` and commit charts/podinfo-6.4.0.tgz (plumb could not fetch it: chart repository " + srv.URL + ": no version of chart podinfo matches \"6.4.0\")"},
		{"one fetched, one not", fetchedOne, fetcherFor(t, srv.URL), "warning",
			"dependency cache (" + srv.URL + ") is not vendored in charts/, " + build + " (plumb could not fetch it: chart repository " + srv.URL + ": no chart cache in the index)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := shopRender(t, c.files, c.fetcher)
			var got []string
			for _, p := range res.Problems {
				if p.Rule == helm.RuleDependency {
					got = append(got, p.Level+" "+manifest.FormatLocation(p.Location)+": "+p.Message)
				}
			}
			if want := c.level + " charts/shop/Chart.yaml:5:5: " + c.want; len(got) != 1 || got[0] != want {
				t.Errorf("problems %q,\nwant %q", got, want)
			}
			for _, tg := range res.Targets {
				if len(tg.Objects) != 0 {
					t.Errorf("target %s has %d objects, want none", tg.Name, len(tg.Objects))
				}
			}
		})
	}
}
