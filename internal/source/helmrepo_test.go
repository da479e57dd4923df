package source

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plumb-ci/plumb/internal/cache"
)

// chartArchive builds a chart archive: files are chart-relative names.
func chartArchive(t *testing.T, top string, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: top + "/" + name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func podinfo(t *testing.T, version string) []byte {
	return chartArchive(t, "podinfo", map[string]string{
		"Chart.yaml":                "apiVersion: v2\nname: podinfo\nversion: " + version + "\n",
		"values.yaml":               "replicaCount: 1\n",
		"templates/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n",
	})
}

// repoServer is a chart repository on loopback.
type repoServer struct {
	*httptest.Server
	archives map[string][]byte // by file name
	digests  map[string]string // index digests, overriding the true ones
	versions []string
	hits     atomic.Int32
	auth     atomic.Value // last Authorization header seen
	fail     atomic.Int32 // status to answer with, when set
}

func newRepoServer(t *testing.T, versions ...string) *repoServer {
	s := &repoServer{archives: map[string][]byte{}, digests: map[string]string{}, versions: versions}
	for _, v := range versions {
		s.archives["podinfo-"+v+".tgz"] = podinfo(t, v)
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *repoServer) serve(w http.ResponseWriter, r *http.Request) {
	s.hits.Add(1)
	s.auth.Store(r.Header.Get("Authorization"))
	if code := s.fail.Load(); code != 0 {
		w.WriteHeader(int(code))
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/charts/")
	if name == "index.yaml" {
		var b strings.Builder
		b.WriteString("apiVersion: v1\nentries:\n  podinfo:\n")
		for _, v := range s.versions {
			d := s.digests[v]
			if d == "" {
				d = sha256Hex(s.archives["podinfo-"+v+".tgz"])
			}
			fmt.Fprintf(&b, "  - name: podinfo\n    version: %s\n    digest: %s\n    urls: [podinfo-%s.tgz]\n", v, d, v)
		}
		_, _ = w.Write([]byte(b.String()))
		return
	}
	if data, ok := s.archives[name]; ok {
		_, _ = w.Write(data)
		return
	}
	http.NotFound(w, r)
}

func (s *repoServer) repoURL() string { return s.URL + "/charts" }

func (s *repoServer) hostPort() string { return strings.TrimPrefix(s.URL, "http://") }

func allow(t *testing.T, hosts ...string) Hosts {
	t.Helper()
	h, err := ParseHosts(hosts)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHelmChartPicksTheVersionAndChecksTheDigest(t *testing.T) {
	s := newRepoServer(t, "6.4.0", "6.5.0", "7.0.0-rc.1")
	f := New(Options{Hosts: allow(t, s.hostPort())})
	c, err := f.HelmChart(context.Background(), s.repoURL(), "podinfo", ">=6.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if c.Version != "6.5.0" {
		t.Errorf("version %s, want 6.5.0 (the highest stable match)", c.Version)
	}
	if want := "sha256:" + sha256Hex(s.archives["podinfo-6.5.0.tgz"]); c.Digest != want {
		t.Errorf("digest %s, want %s", c.Digest, want)
	}
	pre, err := f.HelmChart(context.Background(), s.repoURL(), "podinfo", ">=6.0.0-alpha")
	if err != nil || pre.Version != "7.0.0-rc.1" {
		t.Errorf("a prerelease constraint gave %v, %v; want 7.0.0-rc.1", pre, err)
	}
	fsys, dir, err := ChartFS(c.Archive, DefaultMaxBytes)
	if err != nil || dir != "podinfo" {
		t.Fatalf("ChartFS: %q %v", dir, err)
	}
	if data, err := fs.ReadFile(fsys, "podinfo/Chart.yaml"); err != nil || !strings.Contains(string(data), "6.5.0") {
		t.Errorf("Chart.yaml: %q %v", data, err)
	}
	got := f.Fetched()
	if len(got) != 2 || got[0].Name != "podinfo" || got[0].Cached {
		t.Errorf("fetched %+v", got)
	}
	if !strings.Contains(got[0].String(), "podinfo 6.5.0 from "+s.repoURL()+", sha256:") {
		t.Errorf("report line %q", got[0].String())
	}
}

func TestDigestMismatchIsRefused(t *testing.T) {
	s := newRepoServer(t, "6.5.0")
	s.digests["6.5.0"] = strings.Repeat("ab", 32)
	f := New(Options{Hosts: allow(t, s.hostPort())})
	_, err := f.HelmChart(context.Background(), s.repoURL(), "podinfo", "")
	if err == nil || !strings.Contains(err.Error(), "the index says sha256:"+strings.Repeat("ab", 32)) {
		t.Fatalf("err %v, want a digest mismatch", err)
	}
	if len(f.Fetched()) != 0 {
		t.Error("a refused archive is listed as fetched")
	}
}

func TestHostNotAllowedIsRefusedWithTheList(t *testing.T) {
	s := newRepoServer(t, "6.5.0")
	f := New(Options{Hosts: allow(t, "ghcr.io", "charts.jetstack.io")})
	_, err := f.HelmChart(context.Background(), s.repoURL(), "podinfo", "")
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "allowed: ghcr.io, charts.jetstack.io") {
		t.Fatalf("err %v, want a refusal naming the list", err)
	}
	if s.hits.Load() != 0 {
		t.Error("the server was reached")
	}
}

// Every host allowed ("*", --allow-remote) is not loopback: an address or
// a name that resolves to one is refused when the connection is dialled.
func TestLoopbackNeedsItsOwnEntry(t *testing.T) {
	s := newRepoServer(t, "6.5.0")
	_, port, _ := net.SplitHostPort(s.hostPort())
	for _, repo := range []string{s.repoURL(), "http://localhost:" + port + "/charts"} {
		f := New(Options{Hosts: AllHosts()})
		_, err := f.HelmChart(context.Background(), repo, "podinfo", "")
		var re *RefusedError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "a loopback address") {
			t.Errorf("%s with every host allowed: %v, want refused as loopback", repo, err)
		}
	}
	if s.hits.Load() != 0 {
		t.Error("the server was reached")
	}
	f := New(Options{Hosts: allow(t, "localhost:"+port)})
	if _, err := f.HelmChart(context.Background(), "http://localhost:"+port+"/charts", "podinfo", ""); err != nil {
		t.Errorf("localhost named: %v", err)
	}
}

func TestLinkLocalAndPrivateAreRefused(t *testing.T) {
	for _, addr := range []string{"169.254.169.254", "10.1.2.3", "192.168.0.1", "[fe80::1]", "224.0.0.1", "0.0.0.0"} {
		f := New(Options{Hosts: AllHosts(), Timeout: 2 * time.Second})
		_, err := f.HelmChart(context.Background(), "http://"+addr+"/charts", "x", "")
		var re *RefusedError
		if !errors.As(err, &re) {
			t.Errorf("%s: %v, want refused before connecting", addr, err)
		}
	}
}

func TestServerErrorAndSlowServer(t *testing.T) {
	s := newRepoServer(t, "6.5.0")
	s.fail.Store(http.StatusInternalServerError)
	f := New(Options{Hosts: allow(t, s.hostPort())})
	if _, err := f.HelmChart(context.Background(), s.repoURL(), "podinfo", ""); err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("500: %v", err)
	}
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	defer close(release)
	f = New(Options{Hosts: allow(t, strings.TrimPrefix(slow.URL, "http://")), Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := f.HelmChart(context.Background(), slow.URL, "podinfo", "")
	if err == nil || !strings.Contains(err.Error(), "within") || time.Since(start) > 5*time.Second {
		t.Errorf("slow server: %v after %s", err, time.Since(start))
	}
}

func TestOfflineReadsTheCache(t *testing.T) {
	dir := t.TempDir()
	s := newRepoServer(t, "6.5.0")
	store, err := cache.Open(dir, cache.Options{Identity: "test"})
	if err != nil {
		t.Fatal(err)
	}
	online := New(Options{Hosts: allow(t, s.hostPort()), Store: store})
	first, err := online.HelmChart(context.Background(), s.repoURL(), "podinfo", "6.x")
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Finish(); err != nil {
		t.Fatal(err)
	}
	repo := s.repoURL()
	s.Close() // the network is gone
	store, err = cache.Open(dir, cache.Options{Identity: "test"})
	if err != nil {
		t.Fatal(err)
	}
	offline := New(Options{Offline: true, Store: store})
	again, err := offline.HelmChart(context.Background(), repo, "podinfo", "6.x")
	if err != nil {
		t.Fatal(err)
	}
	if again.Digest != first.Digest || !bytes.Equal(again.Archive, first.Archive) {
		t.Error("offline gave another archive")
	}
	if got := offline.Fetched(); len(got) != 1 || !got[0].Cached {
		t.Errorf("offline fetched %+v, want one entry from the cache", got)
	}
	if _, err := offline.HelmChart(context.Background(), "http://127.0.0.1:1/other", "podinfo", ""); err == nil || !strings.Contains(err.Error(), "--offline") {
		t.Errorf("not cached, offline: %v", err)
	}
}

func TestArchiveBudgetsAndShapes(t *testing.T) {
	big := chartArchive(t, "bomb", map[string]string{"Chart.yaml": "name: bomb\n", "zeros": strings.Repeat("\x00", 1<<20)})
	if err := CheckArchive(big, 1<<19); err == nil || !strings.Contains(err.Error(), "decompresses to more than") {
		t.Errorf("bomb: %v", err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	_ = tw.WriteHeader(&tar.Header{Name: "c/link", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"})
	_ = tw.Close()
	_ = zw.Close()
	if err := CheckArchive(buf.Bytes(), DefaultMaxBytes); err == nil || !strings.Contains(err.Error(), "links are refused") {
		t.Errorf("symlink: %v", err)
	}
	escape := chartArchive(t, "..", map[string]string{"x": "y"})
	if err := CheckArchive(escape, DefaultMaxBytes); err == nil {
		t.Error("an archive with ../ names was accepted")
	}
	two := chartArchive(t, "a", map[string]string{"Chart.yaml": "x"})
	if err := CheckArchive(append(two, two...), DefaultMaxBytes); err != nil {
		t.Errorf("concatenated gzip members of one top directory: %v", err)
	}
}

func TestIndexBudget(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("entries:\n" + strings.Repeat("#", 4096)))
	}))
	defer srv.Close()
	f := New(Options{Hosts: allow(t, strings.TrimPrefix(srv.URL, "http://")), MaxBytes: 1024})
	if _, err := f.HelmChart(context.Background(), srv.URL, "x", ""); err == nil || !strings.Contains(err.Error(), "larger than 1024 bytes") {
		t.Errorf("index over budget: %v", err)
	}
}

func TestParseHosts(t *testing.T) {
	h := allow(t, "GHCR.io", "127.0.0.1:8080", "[::1]:5000", "::1")
	for _, c := range []struct {
		host, port string
		want       bool
	}{{"ghcr.io", "443", true}, {"ghcr.io", "80", true}, {"127.0.0.1", "8080", true}, {"127.0.0.1", "80", false},
		{"::1", "5000", true}, {"::1", "1", true}, {"quay.io", "443", false}} {
		if got := h.Allows(c.host, c.port); got != c.want {
			t.Errorf("%s:%s allowed %v, want %v", c.host, c.port, got, c.want)
		}
	}
	if _, err := ParseHosts([]string{"https://ghcr.io/x"}); err == nil {
		t.Error("a URL was taken as a host")
	}
	if !allow(t, "*").Allows("x", "1") {
		t.Error("* does not allow every host")
	}
}

// hostile: credentials go to their own host only, a redirect to another
// host does not carry them, and no message holds them.
func TestCredentialsStayWithTheirHost(t *testing.T) {
	other := newRepoServer(t, "6.5.0") // on 127.0.0.1, another port
	s := newRepoServer(t, "6.5.0")
	const password = "s3cret-Passw0rd-xyz"
	creds, err := parseCredentials("repositories.yaml", []byte(fmt.Sprintf(
		"repositories:\n- name: mine\n  url: %s\n  username: me\n  password: %s\n", s.repoURL(), password)))
	if err != nil {
		t.Fatal(err)
	}
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	defer redirect.Close()
	// The redirecting server has the credentials of s's host? No: give it
	// its own, and see that the redirect target gets none.
	creds.byHost[hostKey(mustURL(t, redirect.URL))] = Credential{Username: "me", Password: password}
	hosts := allow(t, s.hostPort(), other.hostPort(), strings.TrimPrefix(redirect.URL, "http://"))
	f := New(Options{Hosts: hosts, Credentials: creds})
	if _, err := f.HelmChart(context.Background(), s.repoURL(), "podinfo", ""); err != nil {
		t.Fatal(err)
	}
	if a, _ := s.auth.Load().(string); !strings.HasPrefix(a, "Basic ") {
		t.Errorf("own host got Authorization %q", a)
	}
	if _, err := f.HelmChart(context.Background(), redirect.URL+"/charts", "podinfo", ""); err != nil {
		t.Fatal(err)
	}
	if a, _ := other.auth.Load().(string); a != "" {
		t.Errorf("the redirect target got Authorization %q", a)
	}
	// Failing fetches name the URL, never the password (in a URL's userinfo either).
	s.fail.Store(http.StatusUnauthorized)
	f = New(Options{Hosts: hosts, Credentials: creds})
	_, err = f.HelmChart(context.Background(), strings.Replace(s.repoURL(), "http://", "http://me:"+password+"@", 1), "podinfo", "")
	if err == nil || strings.Contains(err.Error(), password) {
		t.Errorf("error %v holds the password or is nil", err)
	}
	if _, err := parseCredentials("r.yaml", []byte("repositories: [password: "+password+"\n")); err == nil || strings.Contains(err.Error(), password) {
		t.Errorf("a broken file's error %v holds its content", err)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
