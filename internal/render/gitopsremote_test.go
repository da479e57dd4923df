package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render/helm"
	"github.com/plumb-ci/plumb/internal/source"
)

// tgz builds a chart archive of files under top/.
func tgz(t *testing.T, top string, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, data := range files {
		if err := tw.WriteHeader(&tar.Header{Name: top + "/" + name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write([]byte(data))
	}
	_ = tw.Close()
	_ = zw.Close()
	return buf.Bytes()
}

// chartRepo serves one chart's archives and their index on loopback.
func chartRepo(t *testing.T, name string, archives map[string][]byte) *httptest.Server {
	var index strings.Builder
	fmt.Fprintf(&index, "apiVersion: v1\nentries:\n  %s:\n", name)
	for v, data := range archives {
		sum := sha256.Sum256(data)
		fmt.Fprintf(&index, "  - name: %s\n    version: %s\n    digest: %s\n    urls: [%s-%s.tgz]\n", name, v, hex.EncodeToString(sum[:]), name, v)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/index.yaml" {
			_, _ = w.Write([]byte(index.String()))
			return
		}
		for v, data := range archives {
			if r.URL.Path == "/"+name+"-"+v+".tgz" {
				_, _ = w.Write(data)
				return
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const podinfoDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  replicas: {{ .Values.replicaCount }}
  template:
    spec:
      containers:
        - name: podinfo
          image: ghcr.io/stefanprodan/podinfo:{{ .Chart.Version }}
          args:
{{- range .Values.hostnames }}
            - --host={{ . }}
{{- end }}
`

// fluxRepo is a Flux repository shaped like flux2-kustomize-helm-example:
// clusters/ entry points, apps/base with the HelmRepository and the
// HelmRelease, apps/<env> patching the release with podinfo-values.yaml.
func fluxRepo(t *testing.T, repoURL string) string {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"clusters/production/apps.yaml":        "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  path: ./apps/production\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
		"apps/base/podinfo/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: podinfo\nresources:\n  - namespace.yaml\n  - repository.yaml\n  - release.yaml\n",
		"apps/base/podinfo/namespace.yaml":     "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: podinfo\n",
		"apps/base/podinfo/repository.yaml":    "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: podinfo\n  namespace: podinfo\nspec:\n  interval: 5m\n  url: " + repoURL + "\n",
		"apps/base/podinfo/release.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: podinfo
spec:
  releaseName: podinfo
  chart:
    spec:
      chart: podinfo
      sourceRef:
        kind: HelmRepository
        name: podinfo
  values:
    replicaCount: 2
`,
		"apps/production/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../base/podinfo\npatches:\n  - path: podinfo-values.yaml\n    target:\n      kind: HelmRelease\n",
		"apps/production/podinfo-values.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: podinfo
spec:
  chart:
    spec:
      version: ">=1.0.0"
  values:
    hostnames:
      - podinfo.production
`,
		"apps/staging/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../base/podinfo\npatches:\n  - path: podinfo-values.yaml\n    target:\n      kind: HelmRelease\n",
		"apps/staging/podinfo-values.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: podinfo
  namespace: podinfo
spec:
  chart:
    spec:
      version: ">=1.0.0-alpha"
  values:
    hostnames:
      - podinfo.staging
`,
	})
	return dir
}

func podinfoCharts(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	for _, v := range []string{"6.5.0", "6.6.0-rc.1"} {
		out[v] = tgz(t, "podinfo", map[string]string{
			"Chart.yaml":                "apiVersion: v2\nname: podinfo\nversion: " + v + "\n",
			"values.yaml":               "replicaCount: 1\nhostnames: []\n",
			"templates/deployment.yaml": podinfoDeployment,
		})
	}
	return out
}

func TestFluxHelmReleaseFromAHelmRepository(t *testing.T) {
	srv := chartRepo(t, "podinfo", podinfoCharts(t))
	dir := fluxRepo(t, srv.URL)
	hosts, err := source.ParseHosts([]string{strings.TrimPrefix(srv.URL, "http://")})
	if err != nil {
		t.Fatal(err)
	}
	opts := helmOpts()
	opts.Fetcher = source.New(source.Options{Hosts: hosts})
	res := renderRepo(t, dir, opts, "apps")
	want := map[string]string{
		"podinfo 6.5.0[HelmRelease podinfo in apps/production]":   "--host=podinfo.production",
		"podinfo 6.6.0-rc.1[HelmRelease podinfo in apps/staging]": "--host=podinfo.staging",
	}
	found := 0
	for _, tg := range res.Targets {
		arg, ok := want[tg.Name]
		if !ok {
			continue
		}
		found++
		if len(tg.Objects) != 1 {
			t.Fatalf("%s: %d objects", tg.Name, len(tg.Objects))
		}
		d := tg.Objects[0]
		if d.ID.Kind != "Deployment" || d.ID.Name != "podinfo" {
			t.Errorf("%s: %v", tg.Name, d.ID)
		}
		args := fmt.Sprint(d.Content["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["args"])
		if !strings.Contains(args, arg) {
			t.Errorf("%s: args %s, want %s", tg.Name, args, arg)
		}
		env := strings.TrimPrefix(strings.SplitN(tg.Name, " in ", 2)[1], "apps/")
		env = strings.TrimSuffix(env, "]")
		// From values: the environment's values file, at the line.
		if got := at(t, d, "spec.template.spec.containers[0].args[0]"); got != "apps/"+env+"/podinfo-values.yaml:12:9" {
			t.Errorf("%s: args[0] at %s, want the values line of apps/%s/podinfo-values.yaml", tg.Name, got, env)
		}
		if got := at(t, d, "spec.replicas"); got != "apps/base/podinfo/release.yaml:15:5" {
			t.Errorf("%s: replicas at %s, want the HelmRelease's values line", tg.Name, got)
		}
		// From the chart itself: the HelmRelease line naming the chart,
		// with the chart's file and line related.
		if got := at(t, d, "spec.template.spec.containers[0].image"); got != "apps/base/podinfo/release.yaml:10:7" {
			t.Errorf("%s: image at %s, want the HelmRelease's chart line", tg.Name, got)
		}
		rp, ok := d.Origin.(manifest.RelatedProvenance)
		if !ok {
			t.Fatalf("%s: the origin has no related locations", tg.Name)
		}
		rel := rp.Related(manifest.MustParsePath("spec.template.spec.containers[0].image"))
		if len(rel) == 0 || !strings.Contains(rel[0].Message, "in chart podinfo 6.") || !strings.Contains(rel[0].Message, "templates/deployment.yaml:11") {
			t.Errorf("%s: related %+v, want the chart's template line", tg.Name, rel)
		}
	}
	if found != 2 {
		t.Errorf("targets %v, want the two environments' podinfo renders", targetNames(res))
	}
	for _, p := range res.Problems {
		if p.Rule == helm.RuleNotRendered {
			t.Errorf("not rendered: %s", p.Message)
		}
	}
	if got := opts.Fetcher.Fetched(); len(got) != 2 {
		t.Errorf("fetched %v, want the two versions", got)
	}
}

// Without an allowed host nothing is fetched, and the note says how to
// allow it; a host not on the list is named with the list; a server
// failing is a warning at the HelmRelease, and the rest is rendered.
func TestFluxHelmReleaseNotFetched(t *testing.T) {
	srv := chartRepo(t, "podinfo", podinfoCharts(t))
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusInternalServerError) }))
	defer broken.Close()
	for _, c := range []struct {
		name, repo string
		hosts      []string
		level      string
		want       string
	}{
		{"off", srv.URL, nil, "note", "plumb fetches charts only from allowed hosts, so its objects are not checked (allow the host with --remote-host"},
		{"not allowed", srv.URL, []string{"ghcr.io"}, "note", "is not an allowed remote host (allowed: ghcr.io)"},
		{"500", broken.URL, []string{strings.TrimPrefix(broken.URL, "http://")}, "warning", "the server answered 500 Internal Server Error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := fluxRepo(t, c.repo)
			hosts, _ := source.ParseHosts(c.hosts)
			opts := helmOpts()
			opts.Fetcher = source.New(source.Options{Hosts: hosts})
			res := renderRepo(t, dir, opts, "apps")
			var got []manifest.Problem
			for _, p := range res.Problems {
				if p.Rule == helm.RuleNotRendered {
					got = append(got, p)
				}
			}
			if len(got) == 0 {
				t.Fatal("no not-rendered problem")
			}
			for _, p := range got {
				if p.Level != c.level || !strings.Contains(p.Message, c.want) || p.Location.File != "apps/base/podinfo/release.yaml" {
					t.Errorf("%s: %s: %s, want %s containing %q", manifest.FormatLocation(p.Location), p.Level, p.Message, c.level, c.want)
				}
			}
			if names := targetNames(res); !containsStr(names, "apps/production") || !containsStr(names, "apps/staging") {
				t.Errorf("targets %v: the rest is not rendered", names)
			}
		})
	}
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
