package render

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// renderMem renders an in-memory repository.
func renderMem(t *testing.T, files map[string]string) *Result {
	t.Helper()
	mem := fstest.MapFS{}
	for p, data := range files {
		mem[p] = &fstest.MapFile{Data: []byte(data)}
	}
	set := manifest.Load(mem, []string{"."}, manifest.LoadOptions{})
	res := Render(t.Context(), mem, set, Options{})
	for _, p := range res.Problems {
		t.Errorf("problem: %s", p.Error())
	}
	return res
}

// TestSourceNames: every rendered object knows the name it has where it is
// written (the resource file or the generator entry), whatever the overlays
// did to it: namePrefix and nameSuffix of every layer, a patch that renames
// it (traced, or found again through krusty's origin annotation), the
// generator's content hash. Objects whose name rendering kept, and
// plain files, have no SourceName; WrittenName is then the name itself.
func TestSourceNames(t *testing.T) {
	res := renderMem(t, map[string]string{
		"base/kustomization.yaml": "namePrefix: shop-\nresources:\n  - web.yaml\n  - api.yaml\n  - db.yaml\n" +
			"configMapGenerator:\n  - name: settings\n    literals: [a=1]\n" +
			"  - name: fixed\n    literals: [a=1]\n    options: {disableNameSuffixHash: true}\n",
		"base/web.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n",
		"base/api.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n",
		"base/db.yaml":  "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\n",
		"overlays/dev/kustomization.yaml": "namePrefix: dev-\nnameSuffix: -v2\nresources:\n  - ../../base\n" +
			"configMapGenerator:\n  - name: settings\n    behavior: merge\n    literals: [b=2]\n" +
			"patches:\n  - target: {kind: StatefulSet, name: shop-db}\n    options: {allowNameChange: true}\n" +
			"    patch: |-\n      - op: replace\n        path: /metadata/name\n        value: database\n" +
			"  - target: {kind: Deployment, name: shop-api}\n    options: {allowNameChange: true}\n" +
			"    patch: |-\n      apiVersion: apps/v1\n      kind: Deployment\n      metadata:\n        name: backend\n",
		"plain/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config-5f6g7h8k9m\n",
	})
	written := map[string]string{}
	for _, o := range res.Objects() {
		if o.SourceName == o.ID.Name {
			t.Errorf("%s: SourceName repeats the name", o.ID)
		}
		name := o.ID.Name
		if o.ID.Kind == "ConfigMap" && strings.HasPrefix(name, "dev-shop-settings-") {
			name = "dev-shop-settings-HASH" // the hash is krusty's business
		}
		written[o.ID.Target+" "+o.ID.Kind+" "+name] = o.WrittenName()
	}
	want := map[string]string{
		"overlays/dev Deployment dev-shop-web-v2":       "web",
		"overlays/dev StatefulSet dev-database-v2":      "db",
		"overlays/dev Deployment dev-backend-v2":        "api",
		"overlays/dev ConfigMap dev-shop-settings-HASH": "settings",
		"overlays/dev ConfigMap dev-shop-fixed-v2":      "fixed",
		"plain ConfigMap app-config-5f6g7h8k9m":         "app-config-5f6g7h8k9m",
	}
	for k, w := range want {
		if got, ok := written[k]; !ok || got != w {
			t.Errorf("%s: written name %q, want %q (rendered: %v)", k, got, w, written)
		}
	}
	if len(written) != len(want) {
		t.Errorf("objects %v, want %v", written, want)
	}
}
