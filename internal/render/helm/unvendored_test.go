package helm

import (
	"os"
	"slices"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// TestUnvendoredDependencies: a dependency charts/ does not hold is a
// warning at its Chart.yaml entry when the repository does not vendor its
// dependencies, an error when it vendors the others Chart.lock pins (or
// the entry names no repository); one the values disable is not needed,
// and the chart renders without it.
func TestUnvendoredDependencies(t *testing.T) {
	type want struct{ level, at, message string }
	cases := []struct {
		name, chart, values string
		objects             []string
		problems            []want
	}{
		// kube-prometheus-stack's layout: Chart.lock committed, the local
		// crds subchart in charts/, the archives left to `helm dependency
		// build`.
		{"lock without archives", "deps/stack", "", nil, []want{
			{"warning", "deps/stack/Chart.yaml:8:5", "dependency kube-state-metrics (https://prometheus-community.github.io/helm-charts) is not vendored in charts/, so the chart is not rendered with values that enable it (condition kubeStateMetrics.enabled) and its objects are not checked: run `helm dependency build deps/stack` and commit charts/, or let plumb fetch it (allow prometheus-community.github.io with --remote-host, the action input remote-hosts or remote.hosts in .plumb.yaml)"},
			{"warning", "deps/stack/Chart.yaml:12:5", "dependency grafana (https://grafana.github.io/helm-charts) is not vendored in charts/, so the chart is not rendered with values that enable it (condition grafana.enabled) and its objects are not checked: run `helm dependency build deps/stack` and commit charts/, or let plumb fetch it (allow grafana.github.io with --remote-host, the action input remote-hosts or remote.hosts in .plumb.yaml)"},
		}},
		{"no lock", "bad/missingdep", "", nil, []want{
			{"warning", "bad/missingdep/Chart.yaml:5:5", "dependency postgresql (https://charts.bitnami.com/bitnami) is not vendored in charts/, so the chart is not rendered and its objects are not checked: run `helm dependency build bad/missingdep` and commit charts/, or let plumb fetch it (allow charts.bitnami.com with --remote-host, the action input remote-hosts or remote.hosts in .plumb.yaml)"},
		}},
		{"archive missing from a vendored charts/", "deps/vendored", "", nil, []want{
			{"error", "deps/vendored/Chart.yaml:9:5", "dependency postgresql is pinned at 15.5.38 in Chart.lock but charts/ does not hold it, while it holds the other dependencies Chart.lock pins: run `helm dependency build deps/vendored` and commit charts/postgresql-15.5.38.tgz"},
		}},
		{"vendored charts/, the missing one disabled", "deps/vendored", "deps/vendored/values-nopg.yaml", []string{"ConfigMap/redis", "ConfigMap/vendored"}, nil},
		// Bitnami WordPress's layout: an external database by default.
		{"disabled by condition and tags", "deps/optional", "", []string{"ConfigMap/optional"}, nil},
		{"enabled by a values file", "deps/optional", "deps/optional/values-bundled.yaml", nil, []want{
			{"warning", "deps/optional/Chart.yaml:5:5", "dependency mariadb (oci://registry-1.docker.io/bitnamicharts) is not vendored in charts/, so the chart is not rendered with values that enable it (condition mariadb.enabled) and its objects are not checked: run `helm dependency build deps/optional` and commit charts/, or let plumb fetch it (allow registry-1.docker.io with --remote-host, the action input remote-hosts or remote.hosts in .plumb.yaml)"},
		}},
		{"no repository", "deps/norepo", "", nil, []want{
			{"error", "deps/norepo/Chart.yaml:5:5", "dependency crds names no repository, so only charts/ can hold it, and charts/ does not: add the chart as charts/crds, or give the entry its repository"},
		}},
		{"requirements.yaml", "deps/legacy", "", nil, []want{
			{"warning", "deps/legacy/requirements.yaml:2:5", "dependency nginx (https://charts.example.com) is not vendored in charts/, so the chart is not rendered and its objects are not checked: run `helm dependency build deps/legacy` and commit charts/, or let plumb fetch it (allow charts.example.com with --remote-host, the action input remote-hosts or remote.hosts in .plumb.yaml)"},
		}},
	}
	fsys := os.DirFS("testdata/repo")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ch, err := LoadChart(fsys, c.chart, manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			req := Request{Target: c.chart, KubeVersion: "v1.37.0"}
			if c.values != "" {
				req.Sources = []Source{{File: c.values}}
			}
			out := NewRenderer(fsys, manifest.Limits{}).Render(ch, req)
			var objects []string
			for _, o := range out.Objects {
				objects = append(objects, o.ID.Kind+"/"+o.ID.Name)
			}
			slices.Sort(objects)
			if !slices.Equal(objects, c.objects) {
				t.Errorf("objects %v, want %v", objects, c.objects)
			}
			var got []want
			for _, p := range out.Problems {
				if p.Rule != RuleDependency {
					t.Errorf("unexpected %s: %s", p.Rule, p.Error())
					continue
				}
				got = append(got, want{p.Level, manifest.FormatLocation(p.Location), p.Message})
			}
			if !slices.Equal(got, c.problems) {
				t.Errorf("problems\n%q\nwant\n%q", got, c.problems)
			}
		})
	}
}
