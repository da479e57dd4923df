package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// virtualRoot is where the repository appears to krusty. krusty works on
// absolute paths; the adapter maps this prefix onto the repository fs.FS and
// refuses every path outside it, so a kustomization can read nothing but
// repository files (no /etc/passwd, no "../../outside", no symlink out: the
// fs.FS itself refuses those).
const virtualRoot = "/plumb-repo"

// errOutside is returned for any path that leaves the repository.
var errOutside = errors.New("the path leaves the repository")

// errReadOnly is returned by every write: krusty only reads while building,
// and plumb never writes to the user's tree.
var errReadOnly = errors.New("read-only file system")

// fileCache keeps file contents read through the adapter for the whole
// render, so a base shared by many overlays is read from the repository
// once. It is safe for concurrent use. It reads regular files only, up to
// the file-size limit (manifest.ReadRegular), and knows which files break
// the nesting and alias limits (inputlimits.go).
type fileCache struct {
	fsys   fs.FS
	limits manifest.Limits
	// loaded are the limit problems the loader found, by file; files it
	// did not read are checked on their first read.
	loaded map[string][]manifest.Problem
	mu     sync.Mutex
	m      map[string]*cachedFile
	// reals memoizes realPath: krusty asks for the same paths many times.
	reals sync.Map // string → realResult
	// stats memoizes fs.Stat: krusty asks whether the same paths exist and
	// are directories many times in a build, and again in every build over
	// the same bases (a stat is a system call).
	stats sync.Map // string → statResult
}

type statResult struct {
	info fs.FileInfo
	err  error
}

// stat is fs.Stat over the cache's file system, memoized for the render
// (as contents are: the repository does not change during a run).
func (c *fileCache) stat(name string) (fs.FileInfo, error) {
	return memoStat(&c.stats, name, func() (fs.FileInfo, error) { return fs.Stat(c.fsys, name) })
}

// memoStat answers name from memo, or from ask (once per name, but for
// concurrent first asks) remembering the answer.
func memoStat(memo *sync.Map, name string, ask func() (fs.FileInfo, error)) (fs.FileInfo, error) {
	if r, ok := memo.Load(name); ok {
		sr := r.(statResult)
		return sr.info, sr.err
	}
	info, err := ask()
	memo.Store(name, statResult{info, err})
	return info, err
}

type realResult struct {
	real   string
	linked bool
	err    error
}

// realPath is realPath over the cache's file system, memoized.
func (c *fileCache) realPath(name string) (string, bool, error) {
	if r, ok := c.reals.Load(name); ok {
		rr := r.(realResult)
		return rr.real, rr.linked, rr.err
	}
	real, linked, err := manifest.RealPath(c.fsys.(manifest.LinkReader), name)
	if errors.Is(err, manifest.ErrLeavesRoot) {
		err = errOutside
	}
	c.reals.Store(name, realResult{real, linked, err})
	return real, linked, err
}

type cachedFile struct {
	once sync.Once
	data []byte
	err  error
	// limitOnce guards limits: the file's limit problems.
	limitOnce sync.Once
	limits    []manifest.Problem
}

// newFileCache reads fsys as repository content: never inside .git
// (manifest.ContentFS, which also remembers what links resolve to).
func newFileCache(fsys fs.FS, limits manifest.Limits) *fileCache {
	return &fileCache{fsys: manifest.ContentFS(fsys), limits: limits.OrDefault(), m: map[string]*cachedFile{}}
}

// entry returns the cache entry of a repository-relative file.
func (c *fileCache) entry(name string) *cachedFile {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.m[name]
	if f == nil {
		f = &cachedFile{}
		c.m[name] = f
	}
	return f
}

// read returns the content of a repository-relative file.
func (c *fileCache) read(name string) ([]byte, error) {
	f := c.entry(name)
	f.once.Do(func() { f.data, f.err = manifest.ReadRegular(c.fsys, name, c.limits.MaxFileBytes) })
	return f.data, f.err
}

// kustomizeFS is krusty's view of the repository: a read-only
// filesys.FileSystem over an fs.FS rooted at the repository, with one file
// replaced (the target's kustomization, with buildMetadata injected). The
// user's files are never written.
type kustomizeFS struct {
	files *fileCache
	// overrides maps repository-relative paths to substitute contents.
	overrides map[string][]byte
	// allowRemote lets krusty read the temporary clones of remote bases it
	// makes on the local disk.
	allowRemote bool
	// log, when set, records every answer given (reuse.go).
	log *accessLog
	// guard, when set, holds the build to its budget and to the input
	// limits (budget.go, inputlimits.go).
	guard *buildGuard
}

var _ filesys.FileSystem = (*kustomizeFS)(nil)

// rel converts an absolute virtual path to a repository-relative one.
func (k *kustomizeFS) rel(p string) (string, error) {
	p = filepath.ToSlash(filepath.Clean(p))
	switch {
	case p == virtualRoot:
		return ".", nil
	case strings.HasPrefix(p, virtualRoot+"/"):
		return p[len(virtualRoot)+1:], nil
	}
	return "", fmt.Errorf("%s: %w", p, errOutside)
}

// remoteClone reports whether p is inside a temporary clone of a remote base
// that krusty made (only with --allow-remote).
func (k *kustomizeFS) remoteClone(p string) bool {
	if !k.allowRemote {
		return false
	}
	tmp := filepath.Clean(os.TempDir()) + string(filepath.Separator)
	return strings.HasPrefix(p, tmp) && strings.HasPrefix(p[len(tmp):], "kustomize-")
}

// inClone reads a path of a remote base's clone as content of that clone:
// nothing outside it, links included, and nothing in its .git.
func inClone(p string) (fs.FS, string, io.Closer, error) {
	tmp := filepath.Clean(os.TempDir())
	rel, err := filepath.Rel(tmp, p)
	if err != nil {
		return nil, "", nil, err
	}
	clone, rest, _ := strings.Cut(filepath.ToSlash(rel), "/")
	if rest == "" {
		rest = "."
	}
	fsys, root, err := manifest.OpenContent(filepath.Join(tmp, clone))
	if err != nil {
		return nil, "", nil, err
	}
	return fsys, rest, root, nil
}

// cloneStat and the other clone functions answer krusty about a remote
// base's clone through inClone.
func cloneStat(p string) (fs.FileInfo, error) {
	fsys, rel, root, err := inClone(p)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return fs.Stat(fsys, rel)
}

func cloneRead(p string) ([]byte, error) {
	fsys, rel, root, err := inClone(p)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return manifest.ReadRegular(fsys, rel, manifest.DefaultLimits.MaxFileBytes)
}

func cloneReadDir(p string) ([]string, error) {
	fsys, rel, root, err := inClone(p)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return readDirNames(fsys, rel)
}

func (k *kustomizeFS) stat(p string) (fs.FileInfo, error) {
	if k.remoteClone(p) {
		k.log.outside()
		return cloneStat(p)
	}
	r, err := k.rel(p)
	if err != nil {
		return nil, err
	}
	if _, ok := k.overrides[r]; ok {
		return fileInfo{name: path.Base(r)}, nil
	}
	st, err := k.files.stat(r)
	k.log.stat(r, st, err)
	return st, err
}

// ReadFile implements filesys.FileSystem.
func (k *kustomizeFS) ReadFile(p string) ([]byte, error) {
	if k.remoteClone(p) {
		k.log.outside()
		return cloneRead(p)
	}
	r, err := k.rel(p)
	if err != nil {
		return nil, err
	}
	if data, ok := k.overrides[r]; ok {
		return data, nil
	}
	data, err := k.files.read(r)
	if err == nil {
		err = k.guard.admit(r, len(data))
	}
	if err == nil {
		err = k.checkRead(r)
	}
	k.log.read(r, data, err)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r, cleanFSError(err))
	}
	return data, nil
}

// cleanFSError keeps the reason of an fs error without its absolute path.
func cleanFSError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if strings.Contains(pe.Err.Error(), "path escapes from parent") {
			return errOutside
		}
		return pe.Err
	}
	return err
}

// Open implements filesys.FileSystem.
func (k *kustomizeFS) Open(p string) (filesys.File, error) {
	data, err := k.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return &memFile{Reader: bytes.NewReader(data), name: path.Base(p), size: int64(len(data))}, nil
}

// IsDir implements filesys.FileSystem.
func (k *kustomizeFS) IsDir(p string) bool {
	st, err := k.stat(p)
	return err == nil && st.IsDir()
}

// Exists implements filesys.FileSystem.
func (k *kustomizeFS) Exists(p string) bool {
	_, err := k.stat(p)
	return err == nil
}

// ReadDir implements filesys.FileSystem.
func (k *kustomizeFS) ReadDir(p string) ([]string, error) {
	if k.remoteClone(p) {
		k.log.outside()
		return cloneReadDir(p)
	}
	r, err := k.rel(p)
	if err != nil {
		return nil, err
	}
	names, err := readDirNames(k.files.fsys, r)
	k.log.list(accessReadDir, r, names, err)
	if err != nil {
		return nil, cleanFSError(err)
	}
	return names, nil
}

// CleanedAbs implements filesys.FileSystem: a directory is returned whole,
// a file as its directory and base name, with symlinks resolved, as
// krusty's on-disk version does (its load restrictions compare these real
// paths).
func (k *kustomizeFS) CleanedAbs(p string) (filesys.ConfirmedDir, string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(virtualRoot, p)
	}
	p = filepath.Clean(p)
	if r, err := k.rel(p); err == nil && !k.remoteClone(p) {
		if _, over := k.overrides[r]; !over {
			real, linked, err := k.files.realPath(r)
			if err != nil {
				return "", "", fmt.Errorf("%s: %w", r, err)
			}
			if linked {
				// A build through a symlink is not shared between the two
				// revisions of a pull request: the log does not record links.
				k.log.outside()
				p = filepath.Join(virtualRoot, filepath.FromSlash(real))
			}
		}
	}
	if k.IsDir(p) {
		return filesys.ConfirmedDir(p), "", nil
	}
	if _, err := k.stat(p); err != nil {
		if r, rerr := k.rel(p); rerr == nil {
			p = r
		}
		return "", "", fmt.Errorf("%s: %w", p, cleanFSError(err))
	}
	d := filepath.Dir(p)
	if !k.IsDir(d) {
		return "", "", fmt.Errorf("first part of '%s' not a directory", p)
	}
	return filesys.ConfirmedDir(d), filepath.Base(p), nil
}

// Glob implements filesys.FileSystem.
func (k *kustomizeFS) Glob(pattern string) ([]string, error) {
	r, err := k.rel(pattern)
	if err != nil {
		return nil, err
	}
	matches, err := fs.Glob(k.files.fsys, r)
	k.log.list(accessGlob, r, matches, err)
	if err != nil {
		return nil, err
	}
	matches = slices.Clone(matches)
	for i, m := range matches {
		matches[i] = path.Join(virtualRoot, m)
	}
	sort.Strings(matches)
	return matches, nil
}

// Walk implements filesys.FileSystem.
func (k *kustomizeFS) Walk(p string, walkFn filepath.WalkFunc) error {
	r, err := k.rel(p)
	if err != nil {
		return err
	}
	if k.log != nil {
		// The whole subtree, whatever part of it walkFn skips.
		entries, err := walkEntries(k.files.fsys, r)
		k.log.list(accessWalk, r, entries, err)
	}
	return fs.WalkDir(k.files.fsys, r, func(name string, d fs.DirEntry, err error) error {
		full := path.Join(virtualRoot, name)
		if err != nil {
			return walkFn(full, nil, err)
		}
		info, ierr := d.Info()
		if ierr != nil {
			return walkFn(full, nil, ierr)
		}
		return walkFn(full, info, nil)
	})
}

// Create implements filesys.FileSystem (refused: read-only).
func (k *kustomizeFS) Create(string) (filesys.File, error) { return nil, errReadOnly }

// Mkdir implements filesys.FileSystem (refused: read-only).
func (k *kustomizeFS) Mkdir(string) error { return errReadOnly }

// MkdirAll implements filesys.FileSystem (refused: read-only).
func (k *kustomizeFS) MkdirAll(string) error { return errReadOnly }

// RemoveAll implements filesys.FileSystem. krusty calls it only to clean up
// the temporary clones of remote bases, which live on the local disk.
func (k *kustomizeFS) RemoveAll(p string) error {
	if k.remoteClone(p) {
		return os.RemoveAll(p)
	}
	return errReadOnly
}

// WriteFile implements filesys.FileSystem (refused: read-only).
func (k *kustomizeFS) WriteFile(string, []byte) error { return errReadOnly }

// memFile is a read-only filesys.File over bytes.
type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func (f *memFile) Write([]byte) (int, error)  { return 0, errReadOnly }
func (f *memFile) Close() error               { return nil }
func (f *memFile) Stat() (os.FileInfo, error) { return fileInfo{name: f.name, size: f.size}, nil }

// fileInfo describes an overridden file.
type fileInfo struct {
	name string
	size int64
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return 0o444 }
func (i fileInfo) ModTime() time.Time { return time.Time{} }
func (i fileInfo) IsDir() bool        { return false }
func (i fileInfo) Sys() any           { return nil }
