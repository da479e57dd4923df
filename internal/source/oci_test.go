package source

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/distribution/distribution/v3/configuration"
	"github.com/distribution/distribution/v3/registry/handlers"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/inmemory"
	"helm.sh/helm/v4/pkg/registry"

	"github.com/plumb-ci/plumb/internal/cache"
)

// ociRegistry is the distribution project's registry, in memory, on
// loopback, holding charts pushed with Helm's registry client.
func ociRegistry(t *testing.T, versions ...string) (host string, srv *httptest.Server) {
	t.Helper()
	cfg := &configuration.Configuration{}
	cfg.Storage = configuration.Storage{"inmemory": configuration.Parameters{}}
	cfg.Log.Level = "error"
	cfg.HTTP.Headers = http.Header{"X-Content-Type-Options": []string{"nosniff"}}
	app := handlers.NewApp(context.Background(), cfg)
	srv = httptest.NewServer(app)
	t.Cleanup(srv.Close)
	host = strings.TrimPrefix(srv.URL, "http://")
	pusher, err := registry.NewClient(registry.ClientOptPlainHTTP(), registry.ClientOptCredentialsFile(filepath.Join(t.TempDir(), "config.json")))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		if _, err := pusher.Push(podinfo(t, v), host+"/charts/podinfo:"+v); err != nil {
			t.Fatalf("push %s: %v", v, err)
		}
	}
	return host, srv
}

func TestOCIChartBySemverTagAndDigest(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	t.Setenv("HELM_REGISTRY_CONFIG", filepath.Join(t.TempDir(), "config.json"))
	host, _ := ociRegistry(t, "1.15.0", "1.16.2", "2.0.0")
	dir := t.TempDir()
	store, err := cache.Open(dir, cache.Options{Identity: "test"})
	if err != nil {
		t.Fatal(err)
	}
	f := New(Options{Hosts: allow(t, host), Store: store})
	url := "oci://" + host + "/charts/podinfo"
	c, err := f.OCIChart(context.Background(), url, OCIRef{Semver: "1.x", PlainHTTP: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "podinfo" || c.Version != "1.16.2" || !strings.HasPrefix(c.Digest, "sha256:") {
		t.Fatalf("semver 1.x: %+v", c)
	}
	byTag, err := f.OCIChart(context.Background(), url, OCIRef{Tag: "1.15.0", PlainHTTP: true})
	if err != nil || byTag.Version != "1.15.0" {
		t.Fatalf("tag: %+v %v", byTag, err)
	}
	byDigest, err := f.OCIChart(context.Background(), url, OCIRef{Digest: c.Digest, PlainHTTP: true})
	if err != nil || byDigest.Version != "1.16.2" {
		t.Fatalf("digest: %+v %v", byDigest, err)
	}
	if _, err := f.OCIChart(context.Background(), url, OCIRef{Digest: "sha256:" + strings.Repeat("0", 64), PlainHTTP: true}); err == nil {
		t.Error("an unknown digest was pulled")
	}
	if err := store.Finish(); err != nil {
		t.Fatal(err)
	}
	// Offline, from the cache.
	store, err = cache.Open(dir, cache.Options{Identity: "test"})
	if err != nil {
		t.Fatal(err)
	}
	off := New(Options{Offline: true, Store: store})
	again, err := off.OCIChart(context.Background(), url, OCIRef{Semver: "1.x", PlainHTTP: true})
	if err != nil || again.Digest != c.Digest || string(again.Archive) != string(c.Archive) {
		t.Fatalf("offline: %+v %v", again, err)
	}
	if got := off.Fetched(); len(got) != 1 || !got[0].Cached {
		t.Errorf("offline fetched %+v", got)
	}
}

func TestOCIRefusals(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	t.Setenv("HELM_REGISTRY_CONFIG", filepath.Join(t.TempDir(), "config.json"))
	host, _ := ociRegistry(t, "1.0.0")
	url := "oci://" + host + "/charts/podinfo"
	var re *RefusedError
	// Not on the list: refused, the list named.
	_, err := New(Options{Hosts: allow(t, "ghcr.io")}).OCIChart(context.Background(), url, OCIRef{Tag: "1.0.0", PlainHTTP: true})
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "allowed: ghcr.io") {
		t.Errorf("not allowed: %v", err)
	}
	// Every host, but loopback is not named: refused when dialling.
	_, err = New(Options{Hosts: AllHosts()}).OCIChart(context.Background(), url, OCIRef{Tag: "1.0.0", PlainHTTP: true})
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("loopback under *: %v", err)
	}
	// A layer over the budget.
	_, err = New(Options{Hosts: allow(t, host), MaxBytes: 64}).OCIChart(context.Background(), url, OCIRef{Tag: "1.0.0", PlainHTTP: true})
	if err == nil || !strings.Contains(err.Error(), "larger than 64 bytes") {
		t.Errorf("budget: %v", err)
	}
	// A registry answering 500.
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusInternalServerError) }))
	defer broken.Close()
	bh := strings.TrimPrefix(broken.URL, "http://")
	_, err = New(Options{Hosts: allow(t, bh)}).OCIChart(context.Background(), "oci://"+bh+"/charts/podinfo", OCIRef{Tag: "1.0.0", PlainHTTP: true})
	if err == nil || errors.As(err, &re) || !strings.Contains(err.Error(), "500") {
		t.Errorf("500: %v", err)
	}
}
