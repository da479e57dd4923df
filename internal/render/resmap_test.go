package render

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"

	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// TestKustomizeAppendMatchesUpstream holds plumb's patched kustomize api
// (third_party/kustomize-api, PLUMB.md) to upstream v0.21.2: a resource map
// built from a list at once (resmap.AppendResources, the reader's
// NewResMapFromBytes) holds the resources, in the order, and refuses the
// duplicate with the error, that Append one by one gives (upstream's
// check, unchanged) — over documents written to take each path of
// ResId.Equals (the default namespace written or not, cluster-scoped kinds
// with a namespace, versions and groups) and every YAML file of the test
// data and of the shared corpus.
func TestKustomizeAppendMatchesUpstream(t *testing.T) {
	cm := func(name, ns string) string {
		s := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"
		if ns != "" {
			s += "  namespace: " + ns + "\n"
		}
		return s
	}
	docs := map[string][]string{
		"unique":                        {cm("a", ""), cm("b", ""), cm("a", "x")},
		"the same name twice":           {cm("a", "x"), cm("b", "x"), cm("a", "x")},
		"the default namespace written": {cm("a", ""), cm("a", "default")},
		"another namespace":             {cm("a", "x"), cm("a", "y")},
		"a cluster-scoped kind in namespaces": {
			"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: n\n  namespace: x\n",
			"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: n\n  namespace: y\n"},
		"another version":                        {"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n", "apiVersion: apps/v1beta1\nkind: Deployment\nmetadata:\n  name: d\n"},
		"another group":                          {"apiVersion: a.io/v1\nkind: K\nmetadata:\n  name: d\n", "apiVersion: b.io/v1\nkind: K\nmetadata:\n  name: d\n"},
		"a custom kind in the default namespace": {"apiVersion: a.io/v1\nkind: K\nmetadata:\n  name: d\n", "apiVersion: a.io/v1\nkind: K\nmetadata:\n  name: d\n  namespace: default\n"},
	}
	rmF := resmap.NewFactory(provider.NewDefaultDepProvider().GetResourceFactory())
	n := 0
	check := func(name string, data []byte) {
		t.Helper()
		list, err := rmF.RF().SliceFromBytes(data)
		if err != nil {
			return // not resources kustomize reads
		}
		got, gotErr := rmF.NewResMapFromBytes(data)
		want, wantErr := appendOneByOne(list)
		if ids(got) != ids(want) || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Errorf("%s: read at once\n%s(error %v)\none by one\n%s(error %v)", name, ids(got), gotErr, ids(want), wantErr)
		}
		half := resmap.New()
		for _, r := range list[:len(list)/2] {
			if err := half.Append(r); err != nil {
				t.Fatal(err)
			}
		}
		gotErr = resmap.AppendResources(half, list[len(list)/2:])
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || wantErr == nil && ids(half) != ids(want) {
			t.Errorf("%s: appended at once to a map\n%s(error %v)\none by one\n%s(error %v)", name, ids(half), gotErr, ids(want), wantErr)
		}
		n++
	}
	// The documents written twice over, which both ways refuse.
	dups := map[string]bool{"the same name twice": true, "the default namespace written": true,
		"a cluster-scoped kind in namespaces": true, "a custom kind in the default namespace": true}
	for name, d := range docs {
		data := []byte(strings.Join(d, "---\n"))
		check(name, data)
		_, err := rmF.NewResMapFromBytes(data)
		if refused := err != nil && strings.Contains(err.Error(), "may not add resource with an already registered id"); refused != dups[name] {
			t.Errorf("%s: error %v", name, err)
		}
	}
	dirs := []string{"testdata", filepath.Join("..", "..", "fixtures")}
	testcorpus.WalkYAML(t, dirs, check)
	testcorpus.WalkYAML(t, []string{testcorpus.Dir(t)}, check)
	t.Logf("%d files read alike", n)
}

// appendOneByOne is upstream's newResMapFromResourceSlice.
func appendOneByOne(list []*resource.Resource) (resmap.ResMap, error) {
	m := resmap.New()
	for _, r := range list {
		if err := m.Append(r); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func ids(m resmap.ResMap) string {
	if m == nil {
		return "<nil>\n"
	}
	var b strings.Builder
	for _, id := range m.AllIds() {
		b.WriteString(id.String() + "\n")
	}
	return b.String()
}
