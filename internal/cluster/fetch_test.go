package cluster

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/cluster/fakeapi"
)

func newFake(t *testing.T) *fakeapi.Server {
	f := &fakeapi.Server{T: t, Objects: map[string][]map[string]any{}, Forbidden: map[string]bool{"/api/v1/secrets": true}}
	for i := range 5 {
		f.Objects["/api/v1/configmaps"] = append(f.Objects["/api/v1/configmaps"], fakeapi.Object("v1", "ConfigMap", fmt.Sprintf("ns%d", i%2), fmt.Sprintf("cm%d", i)))
	}
	f.Objects["/apis/apps/v1/deployments"] = []map[string]any{fakeapi.Object("apps/v1", "Deployment", "web", "frontend")}
	f.Objects["/api/v1/namespaces"] = []map[string]any{fakeapi.Object("v1", "Namespace", "", "web")}
	f.Objects["/apis/example.com/v1/widgets"] = []map[string]any{fakeapi.Object("example.com/v1", "Widget", "web", "w")}
	// The same Widget in the group's other version: a kind named without
	// apiVersion is read in the preferred version only.
	f.Objects["/apis/example.com/v1beta1/widgets"] = []map[string]any{fakeapi.Object("example.com/v1beta1", "Widget", "web", "w")}
	return f
}

// kube-compare pkg/compare/compare.go (live mode: the kinds of the
// templates' empty-data renderings, fetched with kubectl's resource
// builder across all namespaces, a warning for each kind the cluster does
// not serve): the kinds asked are listed across namespaces, paginated; a
// kind the cluster does not serve and one RBAC forbids are warnings.
func TestFetchListsOnlyTheKindsAskedAcrossNamespaces(t *testing.T) {
	f := newFake(t)
	kubeconfig := f.Start()
	cfg, err := RESTConfig(Options{Kubeconfig: kubeconfig, Context: "good"})
	if err != nil {
		t.Fatal(err)
	}
	kinds := []Kind{{"v1", "ConfigMap"}, {"apps/v1", "Deployment"}, {"v1", "Secret"}, {"v1", "Service"}, {"", "Widget"}, {"apps/v1", "ConfigMap"}}
	res, err := Fetch(context.Background(), cfg, kinds, Options{PageSize: 2, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range res.Objects {
		names = append(names, o["kind"].(string)+"/"+o["metadata"].(map[string]any)["name"].(string))
	}
	if got := strings.Join(names, ","); got != "ConfigMap/cm0,ConfigMap/cm1,ConfigMap/cm2,ConfigMap/cm3,ConfigMap/cm4,Deployment/frontend,Widget/w" {
		t.Errorf("objects %s", got)
	}
	want := []string{
		"the cluster does not serve v1 Service: templates of that kind match nothing",
		"the cluster does not serve apps/v1 ConfigMap: templates of that kind match nothing",
		"cannot list v1 Secret (secrets): Forbidden; templates of that kind match nothing",
	}
	if strings.Join(res.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(res.Warnings, "\n"), strings.Join(want, "\n"))
	}
	pages := 0
	for _, r := range f.Requests() {
		if !strings.HasPrefix(r, "GET ") {
			t.Errorf("a request that is not a read: %s", r)
		}
		if strings.HasPrefix(r, "GET /api/v1/configmaps?") {
			pages++
			if strings.Contains(r, "namespaces/") {
				t.Errorf("a namespaced list: %s", r)
			}
		}
		if strings.Contains(r, "/namespaces") && !strings.Contains(r, "/api/v1/namespaces") {
			t.Errorf("the context's namespace narrowed a list: %s", r)
		}
		if strings.HasPrefix(r, "GET /api/v1/namespaces") {
			t.Errorf("a kind no template names was listed: %s", r)
		}
	}
	if pages != 3 {
		t.Errorf("configmaps listed in %d pages, want 3 of at most 2 (requests %v)", pages, f.Requests())
	}
}

func TestFetchContextSelectsTheCluster(t *testing.T) {
	f := newFake(t)
	kubeconfig := f.Start()
	// The current context points at a closed port.
	cfg, err := RESTConfig(Options{Kubeconfig: kubeconfig})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Fetch(context.Background(), cfg, []Kind{{"v1", "ConfigMap"}}, Options{}); err == nil || !strings.Contains(err.Error(), "discovering") {
		t.Errorf("err %v, want a discovery error for the unreachable current context", err)
	}
	if _, err := RESTConfig(Options{Kubeconfig: kubeconfig, Context: "nope"}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("err %v, want the unknown context named", err)
	}
}

func TestFetchObjectLimit(t *testing.T) {
	f := newFake(t)
	cfg, err := RESTConfig(Options{Kubeconfig: f.Start(), Context: "good"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Fetch(context.Background(), cfg, []Kind{{"v1", "ConfigMap"}}, Options{MaxObjects: 3, PageSize: 2})
	if err == nil || !strings.Contains(err.Error(), "more than 3 objects") {
		t.Errorf("err %v", err)
	}
}

func TestNoKubeconfig(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	if _, err := RESTConfig(Options{}); err == nil || !strings.Contains(err.Error(), "no kubeconfig found") {
		t.Errorf("err %v", err)
	}
}
