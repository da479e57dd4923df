// Package fakeapi is an httptest server that behaves like a Kubernetes API
// server for what plumb compare's live mode asks: legacy discovery (/api,
// /apis, one resource list per group version), lists across namespaces
// paginated with limit and continue, 403 for the resources RBAC denies,
// 404 for what it does not serve. Every request is recorded, so tests can
// check that nothing but GET is sent.
package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Server is the fake API server. It serves ConfigMaps, Namespaces and
// Secrets (v1), Deployments (apps/v1) and Widgets (example.com/v1, the
// preferred version, and example.com/v1beta1).
type Server struct {
	T testing.TB
	// Objects per resource path ("/api/v1/configmaps").
	Objects map[string][]map[string]any
	// Forbidden resource paths answer 403.
	Forbidden map[string]bool

	mu       sync.Mutex
	requests []string
}

// Requests returns the requests received, as "METHOD URL".
func (f *Server) Requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

func (f *Server) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.String())
	f.mu.Unlock()
	if r.Method != http.MethodGet {
		http.Error(w, "read-only", http.StatusMethodNotAllowed)
		return
	}
	write := func(code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
	}
	res := func(name, kind string, namespaced bool) map[string]any {
		return map[string]any{"name": name, "singularName": "", "namespaced": namespaced, "kind": kind, "verbs": []string{"get", "list", "watch"}}
	}
	switch r.URL.Path {
	case "/api":
		write(200, map[string]any{"kind": "APIVersions", "versions": []string{"v1"}, "serverAddressByClientCIDRs": []any{}})
		return
	case "/apis":
		group := func(name string, more ...string) map[string]any {
			gv := map[string]any{"groupVersion": name + "/v1", "version": "v1"}
			versions := []any{gv}
			for _, v := range more {
				versions = append(versions, map[string]any{"groupVersion": name + "/" + v, "version": v})
			}
			return map[string]any{"name": name, "versions": versions, "preferredVersion": gv}
		}
		write(200, map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": []any{group("apps"), group("example.com", "v1beta1")}})
		return
	case "/api/v1":
		write(200, map[string]any{"kind": "APIResourceList", "groupVersion": "v1", "resources": []any{
			res("configmaps", "ConfigMap", true), res("namespaces", "Namespace", false), res("secrets", "Secret", true),
			map[string]any{"name": "pods/log", "namespaced": true, "kind": "Pod", "verbs": []string{"get"}},
		}})
		return
	case "/apis/apps/v1":
		write(200, map[string]any{"kind": "APIResourceList", "groupVersion": "apps/v1", "resources": []any{res("deployments", "Deployment", true)}})
		return
	case "/apis/example.com/v1", "/apis/example.com/v1beta1":
		gv := strings.TrimPrefix(r.URL.Path, "/apis/")
		write(200, map[string]any{"kind": "APIResourceList", "groupVersion": gv, "resources": []any{res("widgets", "Widget", true)}})
		return
	}
	if f.Forbidden[r.URL.Path] {
		write(403, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden", "code": 403,
			"message": fmt.Sprintf("%s is forbidden: User \"ci\" cannot list resource", r.URL.Path)})
		return
	}
	items, ok := f.Objects[r.URL.Path]
	if !ok {
		write(404, map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404})
		return
	}
	// Pagination: continue is the index of the next item.
	start, _ := strconv.Atoi(r.URL.Query().Get("continue"))
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	if limit <= 0 {
		limit = len(items)
	}
	end := min(start+limit, len(items))
	meta := map[string]any{"resourceVersion": "7"}
	if end < len(items) {
		meta["continue"] = strconv.Itoa(end)
	}
	write(200, map[string]any{"kind": "List", "apiVersion": "v1", "metadata": meta, "items": items[start:end]})
}

// Start runs the server and writes a kubeconfig with two contexts: "good"
// points at it, "other" (the current one) at a closed port.
func (f *Server) Start() (kubeconfig string) {
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	f.T.Cleanup(srv.Close)
	kc := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster: {server: %q}
- name: gone
  cluster: {server: "http://127.0.0.1:1"}
users:
- name: ci
  user: {token: not-a-secret}
contexts:
- name: good
  context: {cluster: fake, user: ci, namespace: ignored}
- name: other
  context: {cluster: gone, user: ci}
current-context: other
`, srv.URL)
	path := filepath.Join(f.T.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(kc), 0o600); err != nil {
		f.T.Fatal(err)
	}
	return path
}

// Object is a minimal object.
func Object(apiVersion, kind, namespace, name string) map[string]any {
	md := map[string]any{"name": name}
	if namespace != "" {
		md["namespace"] = namespace
	}
	return map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": md}
}
