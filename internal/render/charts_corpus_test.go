package render

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/render/helm"
	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// TestCorpusCharts: the real-world repositories' charts render with no
// problem, as the targets their layout asks for, and their fields point at
// the lines a person edits.
func TestCorpusCharts(t *testing.T) {
	base := testcorpus.Dir(t, "realworld")
	for _, c := range []struct {
		repo    string
		targets map[string]int
		at      [][4]string // target, kind/name, path, location
	}{
		{"podinfo", map[string]int{"charts/podinfo": 5, "charts/podinfo[values-prod.yaml]": 9}, [][4]string{
			{"charts/podinfo", "Deployment/release-name-podinfo", "spec.replicas", "charts/podinfo/values.yaml:3:1"},
			{"charts/podinfo", "Deployment/release-name-podinfo", "spec.template.spec.containers[0].image", "charts/podinfo/values.yaml:10:3"},
			{"charts/podinfo", "Deployment/release-name-podinfo", "spec.template.spec.containers[0].resources.requests.memory", "charts/podinfo/values.yaml:269:5"},
			{"charts/podinfo", "Service/release-name-podinfo", "metadata.name", "charts/podinfo/templates/_helpers.tpl:21:5"},
			{"charts/podinfo[values-prod.yaml]", "Deployment/release-name-podinfo", "spec.template.spec.containers[0].image", "charts/podinfo/values-prod.yaml:10:3"},
			{"charts/podinfo[values-prod.yaml]", "Deployment/release-name-podinfo-redis", "spec.template.spec.containers[0].image", "charts/podinfo/values-prod.yaml:98:3"},
			{"charts/podinfo[values-prod.yaml]", "HorizontalPodAutoscaler/release-name-podinfo", "spec.maxReplicas", "charts/podinfo/values-prod.yaml:85:3"},
		}},
		{"microservices-demo", map[string]int{"helm-chart": 36}, [][4]string{
			{"helm-chart", "Deployment/adservice", "metadata.name", "helm-chart/values.yaml:64:3"},
			{"helm-chart", "Deployment/adservice", "spec.template.spec.containers[0].resources.requests.cpu", "helm-chart/values.yaml:67:7"},
			{"helm-chart", "Deployment/adservice", "spec.template.spec.containers[0].image", "helm-chart/values.yaml:20:3"},
			{"helm-chart", "Service/frontend-external", "spec.type", "helm-chart/templates/frontend.yaml:159:9"},
		}},
		{"flux2-kustomize-helm-example", nil, nil},
	} {
		t.Run(c.repo, func(t *testing.T) {
			res := renderRepo(t, filepath.Join(base, c.repo), helmOpts())
			got := map[string]int{}
			for _, tg := range res.Targets {
				if tg.Kind == KindHelm {
					got[tg.Name] = len(tg.Objects)
				}
			}
			for name, n := range c.targets {
				if got[name] != n {
					t.Errorf("target %s has %d objects, want %d (chart targets: %v)", name, got[name], n, got)
				}
			}
			for _, p := range res.Problems {
				if strings.HasPrefix(p.Rule, "render/helm") && p.Level != "note" {
					t.Errorf("chart problem: %s [%s]", p.Error(), p.Rule)
				}
			}
			for _, a := range c.at {
				kind, name, _ := strings.Cut(a[1], "/")
				if got := at(t, object(t, res, a[0], kind, name), a[2]); got != a[3] {
					t.Errorf("%s %s %s at %s, want %s", a[0], a[1], a[2], got, a[3])
				}
			}
			if c.repo == "flux2-kustomize-helm-example" {
				notes := 0
				for _, p := range res.Problems {
					if p.Rule == helm.RuleNotRendered {
						notes++
					}
				}
				if notes != 3 {
					t.Errorf("%d notes for remote charts, want 3 (podinfo, cert-manager, envoy-gateway)", notes)
				}
			}
		})
	}
}
