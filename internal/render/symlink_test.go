package render

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// Symlinks are judged as kustomize judges them: by where they really lead.
func TestLinkLeavesDir(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"app/sub", "shared"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"app/real.yaml", "shared/cm.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"app/inside.yaml":  "real.yaml",           // stays in app: allowed
		"app/sub/up.yaml":  "../real.yaml",        // stays in app: allowed
		"app/out.yaml":     "../shared/cm.yaml",   // leaves app
		"app/linkdir":      "../shared",           // a directory outside app
		"app/abs.yaml":     "/etc/passwd",         // absolute: out of the repository
		"app/escape.yaml":  "../../../etc/passwd", // out of the repository
		"app/loop.yaml":    "loop.yaml",
		"shared/back.yaml": "../app/real.yaml",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	fsys := root.FS()
	for file, want := range map[string]bool{
		"app/real.yaml": false, "app/inside.yaml": false, "app/sub/up.yaml": false,
		"app/out.yaml": true, "app/linkdir/cm.yaml": true, "app/abs.yaml": true, "app/escape.yaml": true,
	} {
		if got := linkLeavesDir(newFileCache(fsys, manifest.Limits{}), file, "app"); got != want {
			t.Errorf("%s leaves app: %v, want %v", file, got, want)
		}
	}
	if real, linked, err := manifest.RealPath(fsys.(fs.ReadLinkFS), "shared/back.yaml"); real != "app/real.yaml" || !linked || err != nil {
		t.Errorf("real path %q %v %v", real, linked, err)
	}
	if _, _, err := manifest.RealPath(fsys.(fs.ReadLinkFS), "app/loop.yaml"); !errors.Is(err, manifest.ErrLinkLoop) {
		t.Errorf("a loop: %v", err)
	}
}
