package render

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/registry"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render/helm"
	"github.com/plumb-ci/plumb/internal/source"
	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// The corpus's Flux example with its three charts served on loopback: the
// repository as it is, but for the source URLs (and `insecure: true` in
// place of the OCIRepositories' `interval:` line, so every other line
// stays where it is). Every HelmRelease renders, with its environment's
// values, and its findings' fields are on the values lines.
func TestCorpusFluxExampleWithItsCharts(t *testing.T) {
	src := testcorpus.Dir(t, "realworld", "flux2-kustomize-helm-example")
	repo := chartRepo(t, "podinfo", map[string][]byte{"6.9.0": tgz(t, "podinfo", map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: podinfo\nversion: 6.9.0\n",
		"values.yaml": "redis:\n  enabled: false\nhttpRoute:\n  enabled: false\n  hostnames: []\n",
		"templates/route.yaml": "{{- if .Values.httpRoute.enabled }}\napiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n" +
			"  hostnames:\n{{- range .Values.httpRoute.hostnames }}\n    - {{ . }}\n{{- end }}\n{{- end }}\n",
	})})
	host := certManagerRegistry(t)
	pusher, err := registry.NewClient(registry.ClientOptPlainHTTP())
	if err != nil {
		t.Fatal(err)
	}
	gateway := tgz(t, "gateway-helm", map[string]string{
		"Chart.yaml":                "apiVersion: v2\nname: gateway-helm\nversion: 1.8.0\n",
		"templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: envoy-gateway\nspec:\n  template:\n    spec:\n      containers:\n        - name: gateway\n          image: envoyproxy/gateway:v1.8.0\n",
	})
	if _, err := pusher.Push(gateway, host+"/envoyproxy/gateway-helm:1.8.0"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, src, dir, func(s string) string {
		s = strings.ReplaceAll(s, "  interval: 24h\n  url: oci://", "  insecure: true\n  url: oci://")
		return strings.NewReplacer(
			"https://stefanprodan.github.io/podinfo", repo.URL,
			"oci://quay.io/jetstack/charts/cert-manager", "oci://"+host+"/jetstack/charts/cert-manager",
			"oci://docker.io/envoyproxy/gateway-helm", "oci://"+host+"/envoyproxy/gateway-helm",
		).Replace(s)
	})
	hosts, err := source.ParseHosts([]string{strings.TrimPrefix(repo.URL, "http://"), host})
	if err != nil {
		t.Fatal(err)
	}
	opts := helmOpts()
	opts.Fetcher = source.New(source.Options{Hosts: hosts})
	res := renderRepo(t, dir, opts, "apps", "infrastructure", "clusters")
	for _, p := range res.Problems {
		if p.Rule == helm.RuleNotRendered {
			t.Errorf("not rendered: %s: %s", manifest.FormatLocation(p.Location), p.Message)
		}
	}
	for env, line := range map[string]string{"production": "13", "staging": "15"} {
		route := object(t, res, "podinfo 6.9.0[HelmRelease podinfo in apps/"+env+"]", "HTTPRoute", "podinfo")
		if got := at(t, route, "spec.hostnames[0]"); got != "apps/"+env+"/podinfo-values.yaml:"+line+":11" {
			t.Errorf("%s: hostname at %s, want the environment's values line", env, got)
		}
	}
	for _, name := range []string{"cert-manager 1.16.2[HelmRelease cert-manager in infrastructure/controllers]", "gateway-helm 1.8.0[HelmRelease envoy-gateway in infrastructure/controllers]"} {
		if !containsStr(targetNames(res), name) {
			t.Errorf("no target %s in %v", name, targetNames(res))
		}
	}
	objects := 0
	for _, tg := range res.Targets {
		objects += len(tg.Objects)
	}
	t.Logf("%d objects in %d targets", objects, len(res.Targets))
	if got := len(opts.Fetcher.Fetched()); got != 3 {
		t.Errorf("fetched %d charts, want 3: %+v", got, opts.Fetcher.Fetched())
	}
}

// copyTree copies the regular files of src into dst, each through edit.
func copyTree(t *testing.T, src, dst string, edit func(string) string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, []byte(edit(string(data))), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
