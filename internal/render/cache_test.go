package render

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/cache"
)

func openStore(t *testing.T, dir string) *cache.Store {
	t.Helper()
	s, err := cache.Open(dir, cache.Options{Identity: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// renderCached renders with the persistent cache and ends the cache's run
// (Finish publishes what it wrote to later runs).
func renderCached(t *testing.T, dir string, opts Options) *Result {
	t.Helper()
	res := renderRepo(t, dir, opts)
	must(t, opts.Cache.Finish())
	return res
}

// TestPersistentCacheGivesTheBuild: a render that takes every build from
// the cache gives what building gives (contents, names, every field's
// position, problems), a failed build included; the run that filled the
// cache too.
func TestPersistentCacheGivesTheBuild(t *testing.T) {
	for _, head := range []bool{false, true} {
		dir := reuseRepo(t, head)
		want := renderRepo(t, dir, Options{})
		cacheDir := t.TempDir()
		cold := openStore(t, cacheDir)
		sameRender(t, renderCached(t, dir, Options{Cache: cold}), want)
		warm := openStore(t, cacheDir)
		sameRender(t, renderCached(t, dir, Options{Cache: warm}), want)
		cs, ws := cold.Stats(), warm.Stats()
		if cs.Writes != 4 || cs.Hits != 0 || ws.Hits != 4 || ws.Misses != 0 || ws.Writes != 0 {
			t.Errorf("head=%v: cold %+v, warm %+v; want 4 builds written, then found", head, cs, ws)
		}
	}
}

// TestPersistentCacheNoticesEveryInput: a change to any one file a build
// read, a comment included, makes that build run again (and only those
// that read the file); the result is what building gives.
func TestPersistentCacheNoticesEveryInput(t *testing.T) {
	for _, c := range []struct {
		file   string
		misses int
	}{
		{"overlays/same/kustomization.yaml", 1},
		{"base/kustomization.yaml", 4},
		{"base/deployment.yaml", 4},
		{"overlays/patched/replicas.yaml", 1},
		{"overlays/generated/settings.env", 1},
		{"README.md", 0},
	} {
		dir := reuseRepo(t, false)
		cacheDir := t.TempDir()
		renderCached(t, dir, Options{Cache: openStore(t, cacheDir)})
		p := filepath.Join(dir, c.file)
		data, _ := os.ReadFile(p)
		must(t, os.WriteFile(p, append(data, "# changed\n"...), 0o644))
		store := openStore(t, cacheDir)
		got := renderCached(t, dir, Options{Cache: store})
		if st := store.Stats(); st.Misses != c.misses || st.Hits != 4-c.misses {
			t.Errorf("%s changed: %+v, want %d misses", c.file, st, c.misses)
		}
		sameRender(t, got, renderRepo(t, dir, Options{}))

		// The variant before the change stays: changing the file back
		// finds every build again.
		must(t, os.WriteFile(p, data, 0o644))
		store = openStore(t, cacheDir)
		renderCached(t, dir, Options{Cache: store})
		if st := store.Stats(); st.Misses != 0 {
			t.Errorf("%s changed back: %+v, want every build found", c.file, st)
		}
	}
}

// TestPersistentCacheFeedsPullRequestSharing: a build found in the cache by
// one revision is shared with the other revision as a built one is.
func TestPersistentCacheFeedsPullRequestSharing(t *testing.T) {
	headDir, baseDir := reuseRepo(t, true), reuseRepo(t, false)
	cacheDir := t.TempDir()
	renderCached(t, headDir, Options{Cache: openStore(t, cacheDir)})
	builds := NewBuildCache()
	store := openStore(t, cacheDir)
	head := renderCached(t, headDir, Options{Builds: builds, Cache: store})
	base := renderCached(t, baseDir, Options{Builds: builds, Cache: store})
	if builds.Reused() != 1 {
		t.Errorf("%d targets shared, want 1 (overlays/same)", builds.Reused())
	}
	sameRender(t, head, renderRepo(t, headDir, Options{}))
	sameRender(t, base, renderRepo(t, baseDir, Options{}))
}

// TestPersistentCacheSurvivesDamage: entries damaged on disk are misses;
// the render is what building gives and the entries are written again.
func TestPersistentCacheSurvivesDamage(t *testing.T) {
	dir := reuseRepo(t, false)
	cacheDir := t.TempDir()
	renderCached(t, dir, Options{Cache: openStore(t, cacheDir)})
	// Damage every entry of the run's pack (one byte of its payload).
	n := 0
	must(t, filepath.Walk(cacheDir, func(p string, info os.FileInfo, err error) error {
		if err != nil || !strings.HasSuffix(p, ".pack") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for at := 0; ; {
			i := bytes.Index(data[at:], []byte("PLUMBC3\n"))
			if i < 0 {
				break
			}
			at += i + 8
			data[at+32+1] ^= 0x55 // past the slot key
			n++
		}
		return os.WriteFile(p, data, 0o600)
	}))
	if n != 4 {
		t.Fatalf("%d entries, want 4", n)
	}
	store := openStore(t, cacheDir)
	sameRender(t, renderCached(t, dir, Options{Cache: store}), renderRepo(t, dir, Options{}))
	if st := store.Stats(); st.Corrupt != 4 || st.Writes != 4 {
		t.Errorf("%+v, want 4 damaged entries written again", st)
	}
}
