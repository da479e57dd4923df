package manifest

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// gitTree writes a repository with a .git directory holding a token, a
// submodule's .git, and links that lead into them.
func gitTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		".git/config":          "[http]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n",
		".git/cm.yaml":         "kind: ConfigMap\n",
		"sub/.git/config":      "[core]\n",
		".GIT/config":          "[core]\n",
		"app/cm.yaml":          "kind: ConfigMap\n",
		"app/deep/ok.yaml":     "kind: ConfigMap\n",
		"other/.gitignore":     "*.tmp\n",
		"other/not.git/x.yaml": "kind: ConfigMap\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"app/cfg":         "../.git/config", // a file link
		"app/g":           "../.git",        // a directory link
		"app/chain":       "cfg",            // a link to a link
		"app/sub":         "../sub",         // a directory link to a directory with a .git
		"app/inside.yaml": "cm.yaml",        // a link that stays content
		"app/deep/up":     "../..",          // a link to the root
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func contentOf(t *testing.T, dir string) fs.FS {
	t.Helper()
	fsys, root, err := OpenContent(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return fsys
}

// Nothing inside a .git directory can be read, stated or listed, by name
// or through any link, and the error names what was refused.
func TestContentFSRefusesGit(t *testing.T) {
	fsys := contentOf(t, gitTree(t))
	refused := map[string]string{
		".git/config":             "reads .git/config: files inside .git are not repository content",
		".git":                    "reads .git: files inside",
		"sub/.git/config":         "reads sub/.git/config: files inside",
		".GIT/config":             "reads .GIT/config: files inside",
		"app/cfg":                 "reads .git/config (app/cfg leads there through a symbolic link)",
		"app/chain":               "reads .git/config (app/chain leads there through a symbolic link)",
		"app/g/config":            "reads .git/config (app/g/config leads there",
		"app/g/cm.yaml":           "reads .git/cm.yaml (app/g/cm.yaml leads there",
		"app/sub/.git/config":     "reads app/sub/.git/config: files inside",
		"app/deep/up/.git/config": "reads app/deep/up/.git/config: files inside",
	}
	for name, want := range refused {
		for op, call := range map[string]func() error{
			"ReadFile": func() error { _, err := fs.ReadFile(fsys, name); return err },
			"Open":     func() error { _, err := fsys.Open(name); return err },
			"Stat":     func() error { _, err := fs.Stat(fsys, name); return err },
			"ReadDir":  func() error { _, err := fs.ReadDir(fsys, name); return err },
		} {
			err := call()
			if !IsGitDirError(err) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s(%s) = %v, want a refusal saying %q", op, name, err, want)
			}
			var pe *fs.PathError
			if !errors.As(err, &pe) {
				t.Errorf("%s(%s): %T is not an *fs.PathError", op, name, err)
			}
		}
	}
	// ReadRegular, what every reader uses, says it without the path error.
	if _, err := ReadRegular(fsys, "app/cfg", 0); err == nil || strings.HasPrefix(err.Error(), "stat") || !IsGitDirError(err) {
		t.Errorf("ReadRegular: %v", err)
	}
	// A link itself may be looked at: it is content (its target is not).
	if st, err := fs.Lstat(fsys, "app/cfg"); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat of the link: %v %v", st, err)
	}
	if target, err := fs.ReadLink(fsys, "app/cfg"); err != nil || target != "../.git/config" {
		t.Errorf("ReadLink: %q %v", target, err)
	}
	if _, err := fs.Lstat(fsys, "app/g/config"); !IsGitDirError(err) {
		t.Errorf("Lstat through a directory link into .git: %v", err)
	}
	for _, name := range []string{"app/cm.yaml", "app/inside.yaml", "other/.gitignore", "other/not.git/x.yaml", "app/deep/up/app/cm.yaml"} {
		if _, err := fs.ReadFile(fsys, name); err != nil {
			t.Errorf("%s is content: %v", name, err)
		}
	}
}

// Listings leave .git out, so walks and globs never reach it.
func TestContentFSListsNoGit(t *testing.T) {
	fsys := contentOf(t, gitTree(t))
	var walked []string
	if err := fs.WalkDir(fsys, ".", func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		walked = append(walked, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, p := range walked {
		if IsGitPath(p) {
			t.Errorf("the walk reached %s", p)
		}
	}
	if !slices.Contains(walked, "sub") || !slices.Contains(walked, "other/.gitignore") {
		t.Errorf("the walk missed content: %v", walked)
	}
	matches, err := fs.Glob(fsys, "*/*")
	if err != nil || slices.ContainsFunc(matches, IsGitPath) || !slices.Contains(matches, "app/cm.yaml") {
		t.Errorf("glob: %v %v", matches, err)
	}
	// A directory opened and listed a page at a time skips .git too.
	f, err := fsys.Open(".")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var paged []string
	for {
		entries, err := f.(fs.ReadDirFile).ReadDir(1)
		for _, e := range entries {
			paged = append(paged, e.Name())
		}
		if err != nil || len(entries) == 0 {
			break
		}
	}
	if slices.ContainsFunc(paged, func(n string) bool { return strings.EqualFold(n, ".git") }) || !slices.Contains(paged, "app") {
		t.Errorf("paged listing: %v", paged)
	}
}

// Over a file system that cannot read links, names are still judged.
func TestContentFSWithoutLinks(t *testing.T) {
	fsys := ContentFS(fstest.MapFS{".git/config": {Data: []byte("x")}, "a/.git/HEAD": {Data: []byte("x")}, "a/b.yaml": {Data: []byte("x")}})
	for _, name := range []string{".git/config", "a/.git/HEAD"} {
		if _, err := fs.ReadFile(fsys, name); !IsGitDirError(err) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if entries, err := fs.ReadDir(fsys, "a"); err != nil || len(entries) != 1 || entries[0].Name() != "b.yaml" {
		t.Errorf("listing: %v %v", entries, err)
	}
}

// A path on disk (a --rules file, a --crds directory) that is in .git, or
// leads there through a link, is refused before it is read.
func TestCheckRealPath(t *testing.T) {
	dir := gitTree(t)
	for name, want := range map[string]string{
		filepath.Join(dir, ".git", "config"): "files inside .git",
		filepath.Join(dir, "app", "cfg"):     "reads .git/config (",
		filepath.Join(dir, "app", "g"):       "reads .git (",
	} {
		if err := CheckRealPath(name); !IsGitDirError(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckRealPath(%s) = %v", name, err)
		}
		if _, err := ReadRegularFile(name, 0); !IsGitDirError(err) {
			t.Errorf("ReadRegularFile(%s) = %v", name, err)
		}
	}
	if _, _, err := OpenContent(filepath.Join(dir, "app", "g")); !IsGitDirError(err) {
		t.Errorf("OpenContent of a link to .git: %v", err)
	}
	if err := CheckRealPath(filepath.Join(dir, "app", "cm.yaml")); err != nil {
		t.Errorf("content refused: %v", err)
	}
}

func TestIsGitPath(t *testing.T) {
	for name, want := range map[string]bool{
		".git": true, ".git/config": true, "a/.git": true, "a/.Git/HEAD": true,
		"a/.gitignore": false, ".github/workflows/x.yml": false, "a/b.git/c": false, "git/config": false, "": false,
	} {
		if got := IsGitPath(name); got != want {
			t.Errorf("IsGitPath(%q) = %v", name, got)
		}
	}
}
