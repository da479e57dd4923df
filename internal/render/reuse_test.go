package render

import (
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// reuseRepo writes one revision of a repository of four overlays over a
// shared base: same builds both revisions alike, patched's patch differs,
// generated reads an env file that only krusty reads, and broken fails at
// the head only.
func reuseRepo(t *testing.T, head bool) string {
	t.Helper()
	dir := t.TempDir()
	replicas, env, broken := "2", "LEVEL=debug\n", "resources: [../../base]\n"
	if head {
		replicas, env, broken = "3", "LEVEL=info\n", "resources: [../../base]\npatches:\n  - path: missing-target.yaml\n"
	}
	files := map[string]string{
		"base/kustomization.yaml": "resources: [deployment.yaml, service.yaml]\n",
		"base/deployment.yaml":    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n        - name: web\n          image: nginx:1.25\n          ports:\n            - containerPort: 80\n",
		"base/service.yaml":       "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n    - port: 80\n",
		"overlays/same/kustomization.yaml": "namespace: same\nnamePrefix: a-\ncommonLabels:\n  team: shop\nresources: [../../base]\nimages:\n  - name: nginx\n    newTag: \"1.27\"\n" +
			"patches:\n  - target: {kind: Deployment}\n    patch: |\n      - op: add\n        path: /spec/template/spec/containers/0/args\n        value: [--fast]\n",
		"overlays/patched/kustomization.yaml":   "namespace: patched\nresources: [../../base]\npatches:\n  - path: replicas.yaml\n",
		"overlays/patched/replicas.yaml":        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: " + replicas + "\n",
		"overlays/generated/kustomization.yaml": "namespace: generated\nresources: [../../base]\nconfigMapGenerator:\n  - name: settings\n    envs: [settings.env]\n",
		"overlays/generated/settings.env":       env,
		"overlays/broken/kustomization.yaml":    broken,
		"overlays/broken/missing-target.yaml":   "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: nothing-by-this-name\nspec:\n  replicas: 9\n",
	}
	writeFiles(t, dir, files)
	return dir
}

// writeFiles writes repository-relative files under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

// leafPaths lists the paths of every scalar below v.
func leafPaths(v any, p manifest.Path, out *[]manifest.Path) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			leafPaths(x[k], p.Child(manifest.Key(k)), out)
		}
	case []any:
		for i, e := range x {
			leafPaths(e, p.Child(manifest.Index(i)), out)
		}
	default:
		*out = append(*out, p)
	}
}

// sameRender fails unless two renders give the same targets, objects,
// contents, source names and source position of every field.
func sameRender(t *testing.T, got, want *Result) {
	t.Helper()
	if len(got.Targets) != len(want.Targets) {
		t.Fatalf("%d targets, want %d", len(got.Targets), len(want.Targets))
	}
	for i, wt := range want.Targets {
		gt := got.Targets[i]
		if gt.Name != wt.Name || len(gt.Objects) != len(wt.Objects) {
			t.Fatalf("target %s with %d objects, want %s with %d", gt.Name, len(gt.Objects), wt.Name, len(wt.Objects))
		}
		for j, wo := range wt.Objects {
			g := gt.Objects[j]
			if g.ID != wo.ID || g.SourceName != wo.SourceName || !reflect.DeepEqual(g.Content, wo.Content) {
				t.Errorf("%s: object %v differs from %v", wt.Name, g.ID, wo.ID)
				continue
			}
			var paths []manifest.Path
			leafPaths(wo.Content, nil, &paths)
			for _, p := range append(paths, manifest.MustParsePath("spec.missing.field")) {
				gl, gx := g.Locate(p)
				wl, wx := wo.Locate(p)
				if gl != wl || gx != wx {
					t.Errorf("%s %s %s: at %s (%v), want %s (%v)", wt.Name, wo.ID.Name, p, manifest.FormatLocation(gl), gx, manifest.FormatLocation(wl), wx)
				}
			}
		}
	}
	if !reflect.DeepEqual(got.Problems, want.Problems) {
		t.Errorf("problems\n%v\nwant\n%v", got.Problems, want.Problems)
	}
}

// TestBuildCacheReusesOnlyWhatReadsTheSameFiles: the base revision takes
// from the head's builds exactly the target whose build reads the same
// files (not the one whose patch changed, not the one whose generator's
// env file changed, not the one that failed at the head), and every field
// of every object is where building it gives.
func TestBuildCacheReusesOnlyWhatReadsTheSameFiles(t *testing.T) {
	headDir, baseDir := reuseRepo(t, true), reuseRepo(t, false)
	cache := NewBuildCache()
	head := renderRepo(t, headDir, Options{Builds: cache})
	base := renderRepo(t, baseDir, Options{Builds: cache})
	if cache.Reused() != 1 {
		t.Errorf("%d targets reused, want 1 (overlays/same)", cache.Reused())
	}
	sameRender(t, head, renderRepo(t, headDir, Options{}))
	sameRender(t, base, renderRepo(t, baseDir, Options{}))

	// The reused objects are the base's own Objects over the content the
	// head's build gave (content is never changed in place): replacing
	// the head's object, as rules do, leaves the base's where it is.
	h, b := object(t, head, "overlays/same", "Deployment", "a-web"), object(t, base, "overlays/same", "Deployment", "a-web")
	if h == b {
		t.Fatal("the base's object is the head's")
	}
	if reflect.ValueOf(h.Content).UnsafePointer() != reflect.ValueOf(b.Content).UnsafePointer() {
		t.Error("the reused object has a copy of the content, not the head's")
	}
	for _, tg := range head.Targets {
		for i, o := range tg.Objects {
			if o == h {
				tg.Objects[i] = &manifest.Object{ID: h.ID, Content: map[string]any{"replaced": true}}
			}
		}
	}
	if got := object(t, base, "overlays/same", "Deployment", "a-web"); got != b || got.Content["spec"].(map[string]any)["replicas"] != int64(1) {
		t.Errorf("the base's object changed with the head's: %v", got.Content)
	}
	if loc, _ := b.Locate(manifest.MustParsePath("spec.template.spec.containers[0].image")); manifest.FormatLocation(loc) != "overlays/same/kustomization.yaml:8:5" {
		t.Errorf("reused image at %s", manifest.FormatLocation(loc))
	}
}

// TestBuildCacheConcurrentRenders: head and base rendered at once, as
// pull-request mode does, give what rendering each alone gives (run under
// -race in CI).
func TestBuildCacheConcurrentRenders(t *testing.T) {
	headDir, baseDir := reuseRepo(t, true), reuseRepo(t, false)
	wantHead, wantBase := renderRepo(t, headDir, Options{}), renderRepo(t, baseDir, Options{})
	for range 3 {
		cache := NewBuildCache()
		var head, base *Result
		var wg sync.WaitGroup
		wg.Go(func() { head = renderRepo(t, headDir, Options{Builds: cache, Workers: 2}) })
		wg.Go(func() { base = renderRepo(t, baseDir, Options{Builds: cache, Workers: 2}) })
		wg.Wait()
		sameRender(t, head, wantHead)
		sameRender(t, base, wantBase)
		if cache.Reused() != 1 {
			t.Errorf("%d targets reused, want 1", cache.Reused())
		}
	}
}

// TestBuildCacheNoticesEveryInput: a change to any one file the build of
// overlays/same reads, even a comment that changes nothing rendered, makes
// the other revision build it again; a change to a file it does not read
// does not.
func TestBuildCacheNoticesEveryInput(t *testing.T) {
	for _, c := range []struct {
		file   string
		reused int
	}{
		{"overlays/same/kustomization.yaml", 0},
		{"base/kustomization.yaml", 0},
		{"base/deployment.yaml", 0},
		{"base/service.yaml", 0},
		{"overlays/patched/replicas.yaml", 1},
		{"README.md", 1},
	} {
		headDir, baseDir := reuseRepo(t, true), reuseRepo(t, false)
		p := filepath.Join(baseDir, c.file)
		data, _ := os.ReadFile(p)
		must(t, os.WriteFile(p, append(data, "# changed\n"...), 0o644))
		cache := NewBuildCache()
		renderRepo(t, headDir, Options{Builds: cache})
		base := renderRepo(t, baseDir, Options{Builds: cache})
		if cache.Reused() != c.reused {
			t.Errorf("%s changed: %d targets reused, want %d", c.file, cache.Reused(), c.reused)
		}
		sameRender(t, base, renderRepo(t, baseDir, Options{}))
	}
}

// TestBuildCacheAccessLogReplays: each kind of question the adapter
// answers is replayed against another revision, and a different answer
// is noticed.
func TestBuildCacheAccessLogReplays(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		must(t, os.MkdirAll(filepath.Join(dir, "d/sub"), 0o755))
		must(t, os.WriteFile(filepath.Join(dir, "d/f.yaml"), []byte("x: 1\n"), 0o644))
	}
	must(t, os.WriteFile(filepath.Join(b, "d/sub/new.yaml"), []byte("y: 2\n"), 0o644))
	rootA, err := os.OpenRoot(a)
	must(t, err)
	defer rootA.Close()
	rootB, err := os.OpenRoot(b)
	must(t, err)
	defer rootB.Close()
	filesA, filesB := newFileCache(rootA.FS(), manifest.Limits{}), newFileCache(rootB.FS(), manifest.Limits{})

	ask := func(q func(k *kustomizeFS)) *accessLog {
		log := newAccessLog()
		q(&kustomizeFS{files: filesA, log: log})
		return log
	}
	v := func(p string) string { return virtualRoot + "/" + p }
	for _, c := range []struct {
		name string
		ask  func(k *kustomizeFS)
		same bool
	}{
		{"read a file both have", func(k *kustomizeFS) { _, _ = k.ReadFile(v("d/f.yaml")) }, true},
		{"read a file neither has", func(k *kustomizeFS) { _, _ = k.ReadFile(v("d/none.yaml")) }, true},
		{"a file only the other has", func(k *kustomizeFS) { k.Exists(v("d/sub/new.yaml")) }, false},
		{"a directory", func(k *kustomizeFS) { k.IsDir(v("d/sub")) }, true},
		{"a listing", func(k *kustomizeFS) { _, _ = k.ReadDir(v("d/sub")) }, false},
		{"a glob", func(k *kustomizeFS) { _, _ = k.Glob(v("d/*/*.yaml")) }, false},
		{"a glob matching alike", func(k *kustomizeFS) { _, _ = k.Glob(v("d/*.yaml")) }, true},
		{"a walk", func(k *kustomizeFS) { _ = k.Walk(v("d"), func(string, os.FileInfo, error) error { return nil }) }, false},
	} {
		log := ask(c.ask)
		if len(log.accesses) != 1 {
			t.Errorf("%s: %d accesses logged", c.name, len(log.accesses))
			continue
		}
		if !log.sameIn(filesA) {
			t.Errorf("%s: a revision does not answer like itself", c.name)
		}
		if got := log.sameIn(filesB); got != c.same {
			t.Errorf("%s: same in the other revision = %v, want %v", c.name, got, c.same)
		}
	}
}

// TestBuildCacheRefusesWhatItCannotReplay: remote resources and Templates
// are built in each revision.
func TestBuildCacheRefusesWhatItCannotReplay(t *testing.T) {
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "app"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "app/kustomization.yaml"), []byte("resources: [template.yaml]\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "app/template.yaml"), []byte("apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: t\nobjects:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: cm\n"), 0o644))
	cache := NewBuildCache()
	first := renderRepo(t, dir, Options{Builds: cache})
	second := renderRepo(t, dir, Options{Builds: cache})
	if cache.Reused() != 0 {
		t.Errorf("a target with a Template was reused")
	}
	sameRender(t, second, first)
	if len(second.Targets) != 1 || len(second.Targets[0].Templates) != 1 {
		t.Errorf("targets %+v", second.Targets)
	}
}
