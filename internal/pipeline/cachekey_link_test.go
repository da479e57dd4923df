package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// linkRepo is a repository with a ConfigMap and a reference whose one
// template, cm.yaml, is a symbolic link to one of two variants, and whose
// variants directory is reached through a link too.
func linkRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"app/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\ndata:\n  mode: fast\n",
		"ref/metadata.yaml": "apiVersion: v2\nparts:\n  - name: shop\n    components:\n      - name: settings\n" +
			"        allOf:\n          - path: cm.yaml\n",
		"ref/v1/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\ndata:\n  mode: fast\n",
		"ref/v2/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: shop\ndata:\n  mode: slow\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	relink(t, "v1", filepath.Join(dir, "ref", "current"))
	relink(t, "current/cm.yaml", filepath.Join(dir, "ref", "cm.yaml"))
	return dir
}

// relink points the link at target, replacing it.
func relink(t *testing.T, target, link string) {
	t.Helper()
	_ = os.Remove(link)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// Cache keys cover link targets: a reference template that is a link, or
// reached through a link to a directory, retargeted between runs, gives
// the report a run without a cache gives (the comparison is not taken from
// the cache); so does a reference directory that is itself a link,
// retargeted.
func TestCacheKeysFollowLinkTargets(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(t *testing.T, dir string)
	}{
		{"a template that is a link", func(t *testing.T, dir string) {
			relink(t, "v2/cm.yaml", filepath.Join(dir, "ref", "cm.yaml"))
		}},
		{"a link to the template's directory", func(t *testing.T, dir string) {
			relink(t, "v2", filepath.Join(dir, "ref", "current"))
		}},
		{"the reference directory, a link", func(t *testing.T, dir string) {
			relink(t, "ref-b", filepath.Join(dir, "reference"))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := linkRepo(t)
			// A second reference, the same but for its template.
			if err := os.CopyFS(filepath.Join(dir, "ref-b"), os.DirFS(filepath.Join(dir, "ref"))); err != nil {
				t.Fatal(err)
			}
			relink(t, "v2/cm.yaml", filepath.Join(dir, "ref-b", "cm.yaml"))
			relink(t, "ref", filepath.Join(dir, "reference"))
			args := []string{"--reference", "reference", "--no-default-checks", "app"}
			cacheDir := t.TempDir()
			before, _ := reportBytes(t, withCache(testConfig(t, dir, nil, args...), cacheDir))
			if strings.Contains(string(before), "mode: slow") {
				t.Fatal("the first reference already differs")
			}
			c.edit(t, dir)
			cfg := testConfig(t, dir, nil, args...)
			want, _ := reportBytes(t, withCache(cfg, ""))
			if !strings.Contains(string(want), "slow") {
				t.Fatalf("the retargeted reference makes no difference:\n%s", want)
			}
			sameReport(t, withCache(cfg, cacheDir), want, "the cache after the link was retargeted")
		})
	}
}
