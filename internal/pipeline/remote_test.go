package pipeline

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
	"github.com/plumb-ci/plumb/internal/report"
)

// podinfoRepo serves a podinfo chart on loopback: its index and archive.
func podinfoRepo(t *testing.T) *httptest.Server {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, data := range map[string]string{
		"Chart.yaml":  "apiVersion: v2\nname: podinfo\nversion: 6.5.0\n",
		"values.yaml": "image: ghcr.io/stefanprodan/podinfo:6.5.0\n",
		"templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  template:\n    spec:\n" +
			"      containers:\n        - name: podinfo\n          image: {{ .Values.image }}\n",
	} {
		_ = tw.WriteHeader(&tar.Header{Name: "podinfo/" + name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		_, _ = tw.Write([]byte(data))
	}
	_ = tw.Close()
	_ = zw.Close()
	archive := buf.Bytes()
	sum := sha256.Sum256(archive)
	index := fmt.Sprintf("apiVersion: v1\nentries:\n  podinfo:\n  - name: podinfo\n    version: 6.5.0\n    digest: %s\n    urls: [podinfo-6.5.0.tgz]\n", hex.EncodeToString(sum[:]))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/index.yaml":
			_, _ = w.Write([]byte(index))
		case "/podinfo-6.5.0.tgz":
			_, _ = w.Write(archive)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func fluxFiles(repoURL string) map[string]string {
	return map[string]string{
		"apps/podinfo/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: podinfo\nresources:\n  - repository.yaml\n  - release.yaml\n",
		"apps/podinfo/repository.yaml":    "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: podinfo\n  namespace: podinfo\nspec:\n  url: " + repoURL + "\n",
		"apps/podinfo/release.yaml": "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: podinfo\n  namespace: podinfo\nspec:\n  chart:\n    spec:\n" +
			"      chart: podinfo\n      version: 6.x\n      sourceRef:\n        kind: HelmRepository\n        name: podinfo\n  values:\n    image: nginx:latest\n",
	}
}

func writeTestFiles(t *testing.T, dir string, files map[string]string) {
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

func findingLines(fs []finding.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s:%d %s %s %s\n", f.Location.File, f.Location.Line, f.Level, f.RuleID, f.Message)
	}
	return b.String()
}

// An online run fetches the chart and checks what it renders, the finding
// from the values on the HelmRelease's values line; --offline afterwards,
// with the server gone, gives the same report from the cache.
func TestRemoteChartOnlineThenOffline(t *testing.T) {
	srv := podinfoRepo(t)
	dir := t.TempDir()
	writeTestFiles(t, dir, fluxFiles(srv.URL))
	cacheDir := t.TempDir()
	host := strings.TrimPrefix(srv.URL, "http://")
	online, err := check(context.Background(), testConfig(t, dir, nil, "--remote-host", host, "--cache-dir", cacheDir), withLatestTag)
	if err != nil {
		t.Fatal(err)
	}
	if len(online.Report.Fetched) != 1 || online.Report.Fetched[0].Version != "6.5.0" || online.Report.Fetched[0].Cached {
		t.Fatalf("fetched %+v", online.Report.Fetched)
	}
	lines := findingLines(online.Report.Findings)
	if !strings.Contains(lines, "apps/podinfo/release.yaml:15 error test/latest-tag") {
		t.Errorf("no latest-tag finding on the values line:\n%s", lines)
	}
	srv.Close()
	offline, err := check(context.Background(), testConfig(t, dir, nil, "--offline", "--cache-dir", cacheDir), withLatestTag)
	if err != nil {
		t.Fatal(err)
	}
	if got := findingLines(offline.Report.Findings); got != lines {
		t.Errorf("offline findings differ:\n%s\nonline:\n%s", got, lines)
	}
	if len(offline.Report.Fetched) != 1 || !offline.Report.Fetched[0].Cached || offline.Report.Fetched[0].Digest != online.Report.Fetched[0].Digest {
		t.Errorf("offline fetched %+v", offline.Report.Fetched)
	}
	var text bytes.Buffer
	if err := (report.Text{}).Write(&text, online.Report); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "fetched: podinfo 6.5.0 from "+srv.URL+", sha256:") {
		t.Errorf("text report:\n%s", text.String())
	}
	data, err := report.MarshalJSON(online.Report)
	if err != nil {
		t.Fatal(err)
	}
	back, err := report.ReadJSON(data)
	if err != nil || len(back.Fetched) != 1 || back.Fetched[0] != online.Report.Fetched[0] {
		t.Errorf("JSON round trip: %+v %v", back, err)
	}
}

// In pull-request mode a pull request's own .plumb.yaml cannot allow a
// host: only the base revision's remote.hosts (and the flags) count.
func TestPullRequestCannotWidenRemoteHosts(t *testing.T) {
	srv := podinfoRepo(t)
	host := strings.TrimPrefix(srv.URL, "http://")
	allowing := "remote:\n  hosts: [\"" + host + "\"]\n"
	for _, c := range []struct {
		name       string
		base, head string // .plumb.yaml at each revision ("" none)
		fetched    bool
	}{
		{"the pull request adds the host", "", allowing, false},
		{"the base allows the host", allowing, allowing, true},
		{"the base allows it, the pull request drops it", allowing, "fail_on: error\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := gittest.New(t)
			files := fluxFiles(srv.URL)
			if c.base != "" {
				files[".plumb.yaml"] = c.base
			}
			r.Write(files)
			base := r.Commit("base")
			r.Write(map[string]string{".plumb.yaml": c.head})
			r.Commit("head")
			file, err := config.ParseFile(".plumb.yaml", []byte(c.head))
			if err != nil {
				t.Fatal(err)
			}
			res, err := check(context.Background(), testConfig(t, r.Dir, file, "--base-ref", base), withLatestTag)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(res.Report.Fetched) > 0; got != c.fetched {
				t.Errorf("fetched %v, want %v:\n%s", res.Report.Fetched, c.fetched, findingLines(res.Report.Findings))
			}
		})
	}
}
