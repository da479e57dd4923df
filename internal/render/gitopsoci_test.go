package render

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/distribution/distribution/v3/configuration"
	"github.com/distribution/distribution/v3/registry/handlers"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/inmemory"
	"helm.sh/helm/v4/pkg/registry"

	"github.com/plumb-ci/plumb/internal/render/helm"
	"github.com/plumb-ci/plumb/internal/source"
)

// certManagerRegistry serves cert-manager charts from the distribution
// project's registry on loopback.
func certManagerRegistry(t *testing.T) string {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	t.Setenv("HELM_REGISTRY_CONFIG", filepath.Join(t.TempDir(), "config.json"))
	cfg := &configuration.Configuration{}
	cfg.Storage = configuration.Storage{"inmemory": configuration.Parameters{}}
	cfg.Log.Level = "error"
	srv := httptest.NewServer(handlers.NewApp(context.Background(), cfg))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	pusher, err := registry.NewClient(registry.ClientOptPlainHTTP())
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"1.15.1", "1.16.2", "2.0.0"} {
		archive := tgz(t, "cert-manager", map[string]string{
			"Chart.yaml":  "apiVersion: v2\nname: cert-manager\nversion: " + v + "\n",
			"values.yaml": "replicaCount: 1\n",
			"templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  replicas: {{ .Values.replicaCount }}\n" +
				"  template:\n    spec:\n      containers:\n        - name: controller\n          image: quay.io/jetstack/cert-manager-controller:v{{ .Chart.Version }}\n",
		})
		if _, err := pusher.Push(archive, host+"/jetstack/charts/cert-manager:"+v); err != nil {
			t.Fatal(err)
		}
	}
	return host
}

// The corpus example's cert-manager: a HelmRelease whose chartRef is an
// OCIRepository with a semver ref.
func TestFluxHelmReleaseFromAnOCIRepository(t *testing.T) {
	host := certManagerRegistry(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"infrastructure/controllers/kustomization.yaml": "resources: [cert-manager.yaml]\n",
		"infrastructure/controllers/cert-manager.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: cert-manager
  namespace: cert-manager
spec:
  insecure: true
  url: oci://` + host + `/jetstack/charts/cert-manager
  ref:
    semver: "1.x"
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: cert-manager
  namespace: cert-manager
spec:
  chartRef:
    kind: OCIRepository
    name: cert-manager
  values:
    replicaCount: 2
`,
	})
	hosts, err := source.ParseHosts([]string{host})
	if err != nil {
		t.Fatal(err)
	}
	opts := helmOpts()
	opts.Fetcher = source.New(source.Options{Hosts: hosts})
	res := renderRepo(t, dir, opts, "infrastructure")
	for _, p := range res.Problems {
		if p.Rule == helm.RuleNotRendered {
			t.Errorf("not rendered: %s", p.Message)
		}
	}
	var found bool
	for _, tg := range res.Targets {
		if tg.Name != "cert-manager 1.16.2[HelmRelease cert-manager in infrastructure/controllers]" {
			continue
		}
		found = true
		d := tg.Objects[0]
		if got := at(t, d, "spec.replicas"); got != "infrastructure/controllers/cert-manager.yaml:22:5" {
			t.Errorf("replicas at %s, want the values line", got)
		}
		if got := at(t, d, "spec.template.spec.containers[0].image"); got != "infrastructure/controllers/cert-manager.yaml:18:3" {
			t.Errorf("image at %s, want the chartRef line", got)
		}
	}
	if !found {
		t.Errorf("targets %v", targetNames(res))
	}
	if got := opts.Fetcher.Fetched(); len(got) != 1 || !strings.HasPrefix(got[0].URL, "oci://"+host+"/jetstack/charts/cert-manager@sha256:") {
		t.Errorf("fetched %+v", got)
	}
}
