package compare

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/plumb-ci/plumb/internal/cluster/fakeapi"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// kube-compare pkg/compare/parsing.go (the HTTP reference file system): a
// reference given as an http(s) URL is read from the metadata file's
// directory, each file once, retrying a server error; the report is the
// local reference's.
func TestReferenceOverHTTP(t *testing.T) {
	var mu sync.Mutex
	gets := map[string]int{}
	failedOnce := false
	files := http.FileServer(http.Dir("testdata/ref"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gets[r.URL.Path]++
		fail := r.URL.Path == "/ref/frontend/deployment.yaml" && !failedOnce
		failedOnce = failedOnce || fail
		mu.Unlock()
		if fail {
			http.Error(w, "try again", http.StatusBadGateway)
			return
		}
		http.StripPrefix("/ref", files).ServeHTTP(w, r)
	}))
	defer srv.Close()

	local, _, localCode := runCLI(t, CLIOptions{Reference: "testdata/ref/metadata.yaml", Files: []string{"testdata/inputs"}, Output: FormatJSON}, "")
	remote, errOut, code := runCLI(t, CLIOptions{Reference: srv.URL + "/ref/metadata.yaml", Files: []string{"testdata/inputs"}, Output: FormatJSON}, "")
	if code != localCode || remote != local {
		t.Errorf("exit %d (local %d)\n%s\nremote:\n%s\nlocal:\n%s", code, localCode, errOut, remote, local)
	}
	for p, n := range gets {
		if n > 1 && p != "/ref/frontend/deployment.yaml" || n > 2 {
			t.Errorf("%s fetched %d times", p, n)
		}
	}
	if gets["/ref/functions.tmpl"] != 1 || gets["/ref/frontend/deployment.yaml"] != 2 {
		t.Errorf("fetches %v", gets)
	}

	// A directory URL reads its metadata.yaml; a missing one is exit 2.
	if _, _, code := runCLI(t, CLIOptions{Reference: srv.URL + "/ref/", Files: []string{"testdata/inputs"}}, ""); code != localCode {
		t.Errorf("directory URL: exit %d", code)
	}
	out, errOut, code := runCLI(t, CLIOptions{Reference: srv.URL + "/nowhere/metadata.yaml", Files: []string{"testdata/inputs"}}, "")
	if code != ExitError || out != "" || !strings.Contains(errOut, "/nowhere/metadata.yaml: Reference config file doesn't exist") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestReferenceOverHTTPSizeLimit(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "metadata.yaml") {
			_, _ = w.Write([]byte("apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: big.yaml\n"))
			return
		}
		_, _ = w.Write([]byte(strings.Repeat("#", maxTemplateBytes+10)))
	}))
	defer srv.Close()
	_, errOut, code := runCLI(t, CLIOptions{Reference: srv.URL + "/metadata.yaml", Files: []string{"testdata/inputs"}}, "")
	if code != ExitError || !strings.Contains(errOut, "is over 8388608 bytes") {
		t.Errorf("exit %d\n%s", code, errOut)
	}
}

// kube-compare's -k (kubectl's FilenameOptions.Kustomize): the
// kustomization is built and its objects compared; bases outside the
// directory are read from the repository holding it.
func TestKustomizeInput(t *testing.T) {
	repo := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/HEAD", "ref: refs/heads/main\n")
	write("base/kustomization.yaml", "resources: [service.yaml]\n")
	write("base/service.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: frontend\nspec:\n  ports:\n  - port: 80\n")
	write("prod/kustomization.yaml", "namespace: shop\nresources: [../base]\npatches:\n- patch: |-\n    - op: replace\n      path: /spec/ports/0/port\n      value: 8080\n  target: {kind: Service}\n")
	write("prod/unrelated.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-in-the-build\n")
	write("ref/metadata.yaml", "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: svc.yaml\n")
	write("ref/svc.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: frontend\n  namespace: shop\nspec:\n  ports:\n  - port: 80\n")
	out, errOut, code := runCLI(t, CLIOptions{Reference: filepath.Join(repo, "ref"), Kustomize: filepath.Join(repo, "prod"), AllResources: true}, "")
	if code != ExitDrift {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, out, "Cluster CR: v1_Service_shop_frontend", "-  - port: 80", "+  - port: 8080", "CRs with diffs: 1/1", "No CRs are unmatched")

	_, errOut, code = runCLI(t, CLIOptions{Reference: filepath.Join(repo, "ref"), Kustomize: filepath.Join(repo, "base", "..", "ref")}, "")
	if code != ExitError || !strings.Contains(errOut, "no kustomization.yaml, kustomization.yml or Kustomization in this directory") {
		t.Errorf("a directory without kustomization: exit %d\n%s", code, errOut)
	}
}

// kube-compare pkg/compare/compare.go (live mode): without -f, the kinds
// of the reference's templates are read from the kubeconfig's cluster
// across namespaces; a kind the cluster does not serve or RBAC forbids is
// a warning and the comparison goes on with the rest.
func TestLiveMode(t *testing.T) {
	f := &fakeapi.Server{T: t, Objects: map[string][]map[string]any{}, Forbidden: map[string]bool{"/api/v1/secrets": true}}
	for _, path := range []string{"testdata/inputs/frontend.yaml", "testdata/inputs/platform.yaml"} {
		for _, o := range objectsFromFile(t, path) {
			if o.ID.Kind == "Secret" {
				continue // forbidden below
			}
			gv := "/api/v1/"
			if strings.Contains(o.ID.APIVersion, "/") {
				gv = "/apis/" + o.ID.APIVersion + "/"
			}
			res := strings.ToLower(o.ID.Kind) + "s"
			f.Objects[gv+res] = append(f.Objects[gv+res], o.Content)
		}
	}
	kubeconfig := f.Start()
	out, errOut, code := runCLI(t, CLIOptions{Reference: "testdata/ref/metadata.yaml", Kubeconfig: kubeconfig, Context: "good", Concurrency: 2, AllResources: true}, "")
	if code != ExitDrift {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, errOut, "warning: cannot list v1 Secret (secrets): Forbidden; templates of that kind match nothing")
	mustContain(t, out, "Cluster CR: apps/v1_Deployment_shop_frontend", "Cluster CR: v1_ConfigMap_shop_settings")
	if strings.Contains(out, "Secret") {
		t.Errorf("a Secret was read:\n%s", out)
	}
	for _, r := range f.Requests() {
		if !strings.HasPrefix(r, "GET ") {
			t.Errorf("not a read: %s", r)
		}
	}
	// An unreachable cluster is an error, and nothing is written.
	out, errOut, code = runCLI(t, CLIOptions{Reference: "testdata/ref/metadata.yaml", Kubeconfig: kubeconfig, Output: FormatJSON}, "")
	if code != ExitError || out != "" || !strings.Contains(errOut, "discovering the cluster's API resources") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}

func objectsFromFile(t *testing.T, path string) []*manifest.Object {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return objects(t, string(data))
}

// kube-compare -g/--generate-config (PR #267): a reference generated from
// the inputs loads, and the same inputs show no drift against it; no
// Secret value is written.
func TestGenerateConfig(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "generated")
	out, errOut, code := runCLI(t, CLIOptions{GenerateConfig: true, OutputDir: dir, Files: []string{"testdata/inputs"}}, "")
	if code != ExitNoDrift {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, out, "Wrote a reference of 6 templates to "+filepath.Join(dir, "metadata.yaml"))
	md, err := os.ReadFile(filepath.Join(dir, "metadata.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, string(md), "  - name: apps\n    components:\n      - name: Deployment\n        allOf:\n          - path: deployment.apps/shop_frontend.yaml\n", "  - name: core\n")
	secret, err := os.ReadFile(filepath.Join(dir, "secret", "shop_credentials.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"cm9vdA==", "aHVudGVyMg==", "c2VjcmV0LXRva2Vu"} {
		if strings.Contains(string(secret), v) {
			t.Errorf("a secret value was written:\n%s", secret)
		}
	}
	mustContain(t, string(secret), `password: {{ if . }}{{ index . "data" "password" | toJson }}{{ end }}`)
	out, errOut, code = runCLI(t, CLIOptions{Reference: dir, Files: []string{"testdata/inputs"}, AllResources: true}, "")
	if code != ExitNoDrift {
		t.Errorf("the inputs drift from their own reference: exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, out, "CRs with diffs: 0/6", "No CRs are unmatched")
	// An existing reference is not overwritten.
	_, errOut, code = runCLI(t, CLIOptions{GenerateConfig: true, OutputDir: dir, Files: []string{"testdata/inputs"}}, "")
	if code != ExitError || !strings.Contains(errOut, "already holds a metadata.yaml") {
		t.Errorf("exit %d\n%s", code, errOut)
	}
}

// What plumb treats as secret besides a Secret's values (a credential
// environment variable, a multi-line stringData value) is not written to
// a generated reference either, and still compares without drift.
func TestGenerateConfigKeepsCredentialsOut(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.yaml")
	objs := `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop, annotations: {note: "{{ .literally }} braces"}}
spec:
  template:
    spec:
      containers:
      - name: api
        image: api:1.2.3
        env:
        - name: LOG_LEVEL
          value: info
        - name: DB_PASSWORD
          value: hunter2-in-env
---
apiVersion: v1
kind: Secret
metadata: {name: tls, namespace: shop}
stringData:
  key.pem: |
    -----BEGIN PRIVATE KEY-----
    bm90LWEtcmVhbC1rZXk=
    -----END PRIVATE KEY-----
  note: "{{ not a template }}"
`
	if err := os.WriteFile(in, []byte(objs), 0o644); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(dir, "ref")
	if _, errOut, code := runCLI(t, CLIOptions{GenerateConfig: true, OutputDir: ref, Files: []string{in}}, ""); code != ExitNoDrift {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	err := filepath.WalkDir(ref, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		for _, secret := range []string{"hunter2-in-env", "bm90LWEtcmVhbC1rZXk=", "not a template"} {
			if strings.Contains(string(data), secret) {
				t.Errorf("%s holds %q:\n%s", p, secret, data)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	deploy, err := os.ReadFile(filepath.Join(ref, "deployment.apps", "shop_api.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// Braces in a value are escaped, so the template prints them.
	mustContain(t, string(deploy), `{{ "{{" }} .literally }} braces`)
	out, errOut, code := runCLI(t, CLIOptions{Reference: ref, Files: []string{in}, AllResources: true}, "")
	if code != ExitNoDrift {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	mustContain(t, out, "CRs with diffs: 0/2")
	// A changed plain value still drifts.
	changed := strings.Replace(objs, "value: info", "value: debug", 1)
	if err := os.WriteFile(in, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code = runCLI(t, CLIOptions{Reference: ref, Files: []string{in}}, "")
	if code != ExitDrift || !strings.Contains(out, "+          value: debug") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
