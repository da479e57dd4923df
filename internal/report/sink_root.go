package report

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// writeFileInRoot writes a report file inside root, whole or not at all,
// through an os.Root: every directory of the path is opened inside root,
// so a symbolic link out of it fails the write even if it appears after
// the checks below. Before writing, the path is refused when one of its
// directories, or the report's name itself, is a symbolic link out of
// root or into its .git (unless the path itself names .git): plumb does
// not follow the repository's links where it writes. A link at the
// report's name that stays inside is replaced, not followed (the rename
// replaces it); a pipe or a device there is written to.
func writeFileInRoot(root, name string, write func(io.Writer) error) error {
	abs, err := filepath.Abs(name)
	if err != nil {
		return err
	}
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	rel, err := filepath.Rel(rootAbs, abs)
	if err != nil {
		return err
	}
	if err := checkLinks(rootAbs, rel); err != nil {
		return err
	}
	r, err := os.OpenRoot(rootAbs)
	if err != nil {
		return err
	}
	defer r.Close()
	if st, err := r.Lstat(rel); err == nil && !st.Mode().IsRegular() && st.Mode()&os.ModeSymlink == 0 && !st.IsDir() {
		f, err := r.OpenFile(rel, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		return writeClose(f, write)
	}
	var suffix [8]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(rel), ".plumb-report-"+hex.EncodeToString(suffix[:]))
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("the directory %s does not exist: create it first", filepath.Dir(name))
		case strings.Contains(err.Error(), "path escapes from parent"):
			return fmt.Errorf("the directory %s is reached through a symbolic link plumb does not follow inside the repository (out of it, or absolute)%s", filepath.Dir(rel), linkAdvice)
		}
		return fmt.Errorf("cannot create a file in %s: %w", filepath.Dir(name), err)
	}
	// After the rename the temporary name is gone and Remove fails; before
	// it, Remove cleans up. Either way there is nothing to report.
	defer func() { _ = r.Remove(tmp) }()
	if err := writeClose(f, write); err != nil {
		return err
	}
	return r.Rename(tmp, rel)
}

// linkAdvice ends a refusal: what to do instead.
const linkAdvice = "; plumb writes a report inside the repository without following the repository's links: remove the link, or name a path outside the repository (an absolute path)"

// checkLinks refuses a root-relative report path whose directories, or
// whose own name, are a symbolic link leading out of root, or into its
// .git when the path does not name .git itself.
func checkLinks(root, rel string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for i := range parts {
		p := filepath.Join(parts[:i+1]...)
		st, err := os.Lstat(filepath.Join(root, p))
		if err != nil {
			return nil // the rest does not exist yet (or is said when written)
		}
		if st.Mode()&os.ModeSymlink == 0 {
			continue
		}
		what := "the directory " + p
		if i == len(parts)-1 {
			what = "it"
		}
		real, err := filepath.EvalSymlinks(filepath.Join(root, p))
		if err != nil {
			if i == len(parts)-1 && errors.Is(err, fs.ErrNotExist) {
				real, err = danglingTarget(filepath.Join(root, p))
			}
			if err != nil {
				return fmt.Errorf("%s is a symbolic link that cannot be resolved: %w", what, err)
			}
		}
		realRel, err := filepath.Rel(realRoot, real)
		switch {
		case err != nil || realRel == ".." || strings.HasPrefix(realRel, ".."+string(filepath.Separator)) || filepath.IsAbs(realRel):
			if i == len(parts)-1 {
				return fmt.Errorf("it is a symbolic link out of the repository%s", linkAdvice)
			}
			return fmt.Errorf("%s leads outside the repository through a symbolic link%s", what, linkAdvice)
		case inGitDir(realRel) && !inGitDir(rel):
			if i == len(parts)-1 {
				return fmt.Errorf("it is a symbolic link into .git%s", linkAdvice)
			}
			return fmt.Errorf("%s leads into .git through a symbolic link%s", what, linkAdvice)
		}
	}
	return nil
}

// danglingTarget is where a symbolic link to a file that does not exist
// (yet) points: its target, resolved from its directory.
func danglingTarget(link string) (string, error) {
	target, err := os.Readlink(link)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(link), target)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(target))
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(target)), nil
}

// inGitDir reports whether a root-relative path is .git or below it (any
// case: the file systems of macOS and Windows ignore it).
func inGitDir(rel string) bool {
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return strings.EqualFold(first, ".git")
}
