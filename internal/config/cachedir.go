package config

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/plumb-ci/plumb/internal/gitrev"
)

// Where the cache lives. The workflow's --cache-dir (the action's
// cache-dir input) may name any directory. The repository's own
// .plumb.yaml may only choose one inside the repository that is not its
// content: relative, outside .git, not reached through a symbolic link (a
// link in the checkout is the pull request's to point anywhere), not the
// root nor a directory holding a path plumb checks (the cache is left out
// of the inputs, so it would hide them), and holding no file the
// checked-out commit tracks. Anything else is a configuration error at the
// cache.dir line. Entries are trusted to be what plumb wrote (their keys
// name the content their render read, not a signature of the result), so
// a cache directory inside the checkout that a pull request can fill — one
// holding committed files, or reached through a committed link — is not
// used whoever names it: for the workflow's directory that is a warning,
// and the run goes on without the cache.

// confineCacheDir checks the cache.dir of the repository's configuration
// (p, relative to the repository root) against the checked paths.
func confineCacheDir(root string, checked []string, p string) error {
	abs, err := confinePath(root, root, p)
	if err != nil {
		return err
	}
	rel, _ := filepath.Rel(root, abs)
	rel = filepath.ToSlash(rel)
	if rel == "." {
		return errors.New("it is the repository root: give the cache a directory of its own, such as .plumb-cache (listed in .gitignore)")
	}
	if link := linkInRepository(root, abs); link != "" {
		return fmt.Errorf("%s is a symbolic link: a cache directory in the repository's configuration is reached without links; name the directory itself", link)
	}
	for _, c := range checked {
		if c != "." && (c == rel || strings.HasPrefix(c, rel+"/")) {
			return fmt.Errorf("it holds %s, a path plumb checks (the cache directory is left out of the inputs): give the cache a directory of its own, such as .plumb-cache (listed in .gitignore)", c)
		}
	}
	if committedCache(root, abs) {
		return errors.New("it holds files the checked-out commit tracks: give the cache a directory git does not track, such as .plumb-cache (listed in .gitignore)")
	}
	return nil
}

// refuseCache is why a cache directory the workflow named cannot be used
// ("" when it can): it lies in the checkout and holds committed files, or
// is reached through a link there.
func refuseCache(root, dir string) string {
	if committedCache(root, dir) {
		return fmt.Sprintf("the cache directory %s holds files the checked-out commit tracks; a pull request could plant entries there, so plumb runs without the cache: give it a directory git does not track", dir)
	}
	if !InRepository(root, dir) {
		return ""
	}
	if link := linkInRepository(root, dir); link != "" {
		return fmt.Sprintf("the cache directory %s is reached through the symbolic link %s in the repository; a pull request could point it anywhere, so plumb runs without the cache: give it a directory reached without links", dir, link)
	}
	return ""
}

// linkInRepository returns the first component of dir (absolute, inside
// root) below root that is a symbolic link, repository-relative; "" when
// none is (components that do not exist yet are not links).
func linkInRepository(root, dir string) string {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." {
		return ""
	}
	p := root
	for _, elem := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, elem)
		st, err := os.Lstat(p)
		if err != nil {
			return ""
		}
		if st.Mode()&fs.ModeSymlink != 0 {
			r, _ := filepath.Rel(root, p)
			return filepath.ToSlash(r)
		}
	}
	return ""
}

// committedCache reports whether a cache directory inside the repository
// holds files of the checked-out commit: a directory in the checkout, or
// one a link leads to. A directory that does not exist yet, lies outside
// the repository or is not in a git checkout holds nothing a commit put
// there.
func committedCache(root, dir string) bool {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false
	}
	if !InRepository(realRoot, real) {
		return false
	}
	t, err := gitrev.Open(context.Background(), real, "HEAD", gitrev.Options{})
	if err != nil {
		return false
	}
	defer t.Close()
	entries, err := fs.ReadDir(t, ".")
	return err == nil && len(entries) > 0
}
