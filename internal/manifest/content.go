package manifest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// The repository's content is its tree minus .git. actions/checkout writes
// the job's token into .git/config (an http extraheader), and .git holds
// hooks, the index and every object, so nothing a repository names — a
// kustomize resource or generator file, a chart's file or a link inside a
// chart, a values file, a reference template, a CRD, a rules file or a
// catalog — may read a file under a .git directory, at any depth (a
// submodule's too), whether it names the file or reaches it through a
// symbolic link. ContentFS is the one place that rule is kept: every
// reader of the repository (and of a directory the workflow names, which
// may be the repository) reads through it.

// GitDirError is a read refused because the file is inside a .git
// directory. Through is the path that was asked for when it reached the
// file through a symbolic link.
type GitDirError struct {
	Name    string
	Through string
}

func (e *GitDirError) Error() string {
	if e.Through != "" {
		return fmt.Sprintf("reads %s (%s leads there through a symbolic link): files inside .git are not repository content", e.Name, e.Through)
	}
	return fmt.Sprintf("reads %s: files inside .git are not repository content", e.Name)
}

// IsGitDirError reports whether err is (or wraps) a *GitDirError.
func IsGitDirError(err error) bool {
	var g *GitDirError
	return errors.As(err, &g)
}

// gitSuffix returns the part of a slash-separated path from its first .git
// element on (".git/config"), and whether there is one.
func gitSuffix(name string) (string, bool) {
	parts := strings.Split(name, "/")
	for i, part := range parts {
		if strings.EqualFold(part, ".git") {
			return strings.Join(parts[i:], "/"), true
		}
	}
	return "", false
}

// CheckRealPath refuses, with a *GitDirError, a file or directory on the
// operating system's file system (named on the command line or by the
// configuration) that is inside a .git directory, as written or once its
// symbolic links are resolved. A path that cannot be resolved is left to
// its reader to report.
func CheckRealPath(name string) error {
	if _, in := gitSuffix(filepath.ToSlash(filepath.Clean(name))); in {
		return &GitDirError{Name: filepath.ToSlash(name)}
	}
	real, err := filepath.EvalSymlinks(name)
	if err != nil {
		return nil
	}
	if suffix, in := gitSuffix(filepath.ToSlash(real)); in {
		return &GitDirError{Name: suffix, Through: displayPath(name)}
	}
	return nil
}

// displayPath is name relative to the working directory when it lies
// below it (the configuration resolves paths to absolute ones).
func displayPath(name string) string {
	if wd, err := os.Getwd(); err == nil && filepath.IsAbs(name) {
		if rel, err := filepath.Rel(wd, name); err == nil && filepath.IsLocal(rel) {
			name = rel
		}
	}
	return filepath.ToSlash(name)
}

// OpenContent opens a directory of content (the repository, or a
// directory the configuration names: a reference, a catalog, CRDs) for
// reading: through an os.Root, so nothing outside it is read, links
// included, and ContentFS, so nothing inside .git is. The directory itself
// may not be in .git (CheckRealPath). Closing the closer releases the root.
func OpenContent(dir string) (fs.FS, io.Closer, error) {
	if err := CheckRealPath(dir); err != nil {
		return nil, nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	return ContentFS(root.FS()), root, nil
}

// FailingFS is a file system every operation of which fails with err: a
// directory that could not be opened, for readers that report errors
// file by file.
func FailingFS(err error) fs.FS { return failingFS{err} }

type failingFS struct{ err error }

func (f failingFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: f.err}
}

// IsGitPath reports whether a slash-separated relative path is a .git
// entry or lies below one, at any depth. The comparison ignores case: the
// file systems of macOS and Windows do, and git itself refuses .GIT.
func IsGitPath(name string) bool {
	_, in := gitSuffix(name)
	return in
}

// ContentFS is fsys without its .git directories: they are not listed,
// and opening, reading or stating a path inside one, or a path whose
// symbolic links resolve into one, fails with a *GitDirError (wrapped in
// an *fs.PathError) before anything is opened. Links are resolved the way
// the operating system resolves them when fsys can read them
// (fs.ReadLinkFS: an os.Root, a git revision); otherwise only the names
// are judged. fsys must not change while it is used: what links resolve
// to is remembered.
func ContentFS(fsys fs.FS) fs.FS {
	if c, ok := fsys.(*contentFS); ok {
		return c
	}
	c := &contentFS{fsys: fsys}
	c.links, _ = fsys.(fs.ReadLinkFS)
	return c
}

type contentFS struct {
	fsys  fs.FS
	links fs.ReadLinkFS
	// lstats memoizes Lstat by path: resolving a path looks at every
	// leading part of it, and the paths a run reads share most of them.
	lstats sync.Map // string → lstatResult
}

type lstatResult struct {
	info fs.FileInfo
	err  error
}

var (
	_ fs.ReadDirFS  = (*contentFS)(nil)
	_ fs.ReadFileFS = (*contentFS)(nil)
	_ fs.StatFS     = (*contentFS)(nil)
	_ fs.ReadLinkFS = (*contentFS)(nil)
	_ LinkReader    = (*contentFS)(nil)
)

// LinkReader is what RealPath needs of a file system (fs.ReadLinkFS
// without Open).
type LinkReader interface {
	Lstat(name string) (fs.FileInfo, error)
	ReadLink(name string) (string, error)
}

// refuse returns the error that refuses name, or nil when it may be read.
// follow says whether a link in the last element is followed (Lstat and
// ReadLink do not follow it).
func (c *contentFS) refuse(op, name string, follow bool) error {
	if !fs.ValidPath(name) {
		return nil // the underlying file system says why
	}
	if IsGitPath(name) {
		return &fs.PathError{Op: op, Path: name, Err: &GitDirError{Name: name}}
	}
	if c.links == nil {
		return nil
	}
	real := name
	if follow {
		real, _, _ = RealPath(memoLstat{c}, name)
	} else if dir := path.Dir(name); dir != "." {
		realDir, _, _ := RealPath(memoLstat{c}, dir)
		real = path.Join(realDir, path.Base(name))
	}
	// An unresolvable path (a loop, a link out of fsys) is refused by
	// fsys itself, in its own words.
	if real != "" && IsGitPath(real) {
		return &fs.PathError{Op: op, Path: name, Err: &GitDirError{Name: real, Through: name}}
	}
	return nil
}

// memoLstat resolves through the content file system's memo.
type memoLstat struct{ c *contentFS }

func (m memoLstat) Lstat(name string) (fs.FileInfo, error) {
	if r, ok := m.c.lstats.Load(name); ok {
		lr := r.(lstatResult)
		return lr.info, lr.err
	}
	info, err := m.c.links.Lstat(name)
	m.c.lstats.Store(name, lstatResult{info, err})
	return info, err
}

func (m memoLstat) ReadLink(name string) (string, error) { return m.c.links.ReadLink(name) }

// Open implements fs.FS; a directory's listing leaves out .git.
func (c *contentFS) Open(name string) (fs.File, error) {
	if err := c.refuse("open", name, true); err != nil {
		return nil, err
	}
	f, err := c.fsys.Open(name)
	if err != nil {
		return nil, err
	}
	if d, ok := f.(fs.ReadDirFile); ok {
		return contentDir{d}, nil
	}
	return f, nil
}

// ReadFile implements fs.ReadFileFS.
func (c *contentFS) ReadFile(name string) ([]byte, error) {
	if err := c.refuse("read", name, true); err != nil {
		return nil, err
	}
	return fs.ReadFile(c.fsys, name)
}

// ReadDir implements fs.ReadDirFS, leaving out .git.
func (c *contentFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := c.refuse("readdir", name, true); err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(c.fsys, name)
	return withoutGit(entries), err
}

// Stat implements fs.StatFS.
func (c *contentFS) Stat(name string) (fs.FileInfo, error) {
	if err := c.refuse("stat", name, true); err != nil {
		return nil, err
	}
	return fs.Stat(c.fsys, name)
}

// Lstat implements fs.ReadLinkFS.
func (c *contentFS) Lstat(name string) (fs.FileInfo, error) {
	if err := c.refuse("lstat", name, false); err != nil {
		return nil, err
	}
	if c.links == nil {
		return fs.Stat(c.fsys, name)
	}
	return memoLstat{c}.Lstat(name)
}

// ReadLink implements fs.ReadLinkFS.
func (c *contentFS) ReadLink(name string) (string, error) {
	if err := c.refuse("readlink", name, false); err != nil {
		return "", err
	}
	if c.links == nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	return c.links.ReadLink(name)
}

// contentDir is an opened directory whose listing leaves out .git.
type contentDir struct{ fs.ReadDirFile }

func (d contentDir) ReadDir(n int) ([]fs.DirEntry, error) {
	entries, err := d.ReadDirFile.ReadDir(n)
	kept := withoutGit(entries)
	// A short page that is only .git must not read as the end.
	for n > 0 && len(kept) == 0 && len(entries) > 0 && err == nil {
		entries, err = d.ReadDirFile.ReadDir(n)
		kept = withoutGit(entries)
	}
	return kept, err
}

// withoutGit drops .git entries from a listing (in place).
func withoutGit(entries []fs.DirEntry) []fs.DirEntry {
	kept := entries[:0]
	for _, e := range entries {
		if !strings.EqualFold(e.Name(), ".git") {
			kept = append(kept, e)
		}
	}
	return kept
}

// maxLinks bounds the symbolic links followed while resolving one path, as
// the operating system's ELOOP limit does.
const maxLinks = 40

// ErrLinkLoop is a chain of symbolic links too long to resolve.
var ErrLinkLoop = errors.New("too many levels of symbolic links")

// RealPath resolves the symbolic links of a slash-separated relative path
// the way filepath.EvalSymlinks resolves a path on disk (what kustomize's
// load restrictions judge, and what ContentFS judges). A link leading out
// of fsys (absolute, or through too many "..") is ErrLeavesRoot; linked
// reports whether any link was followed. A missing element ends the
// resolution: the rest is kept as written, and reading it says what is
// missing. On a file system that cannot read links the path comes back
// cleaned.
func RealPath(fsys LinkReader, name string) (real string, linked bool, err error) {
	pending := strings.Split(path.Clean(name), "/")
	resolved := "."
	links := 0
	for len(pending) > 0 {
		part := pending[0]
		pending = pending[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			if resolved == "." {
				return "", linked, ErrLeavesRoot
			}
			resolved = path.Dir(resolved)
			continue
		}
		next := path.Join(resolved, part)
		info, err := fsys.Lstat(next)
		if err != nil {
			return path.Join(append([]string{next}, pending...)...), linked, nil
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if links++; links > maxLinks {
			return "", true, fmt.Errorf("%s: %w", name, ErrLinkLoop)
		}
		linked = true
		target, err := fsys.ReadLink(next)
		if err != nil {
			return "", true, err
		}
		if path.IsAbs(target) {
			return "", true, ErrLeavesRoot
		}
		pending = append(strings.Split(target, "/"), pending...)
	}
	return resolved, linked, nil
}
