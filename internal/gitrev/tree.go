package gitrev

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ErrEscapes is returned for a path that leads out of the tree through a
// symbolic link. Its text is os.Root's, so callers that recognise os.Root's
// refusal (the manifest loader reports it as manifest/outside-repository)
// treat both revisions alike.
var ErrEscapes = errors.New("path escapes from parent")

// maxLinks bounds the symbolic links followed while resolving one path, as
// the kernel's ELOOP limit does.
const maxLinks = 40

// Options configures Open.
type Options struct {
	// MaxFileBytes refuses to read larger files (their size is still known
	// to Stat, so the loader reports them as too large without reading
	// them). Zero means no limit.
	MaxFileBytes int64
}

// Tree is the repository's content at one commit, rooted at the directory
// Open was given. It implements fs.FS, fs.ReadDirFS, fs.ReadFileFS,
// fs.StatFS and fs.ReadLinkFS; it is safe for concurrent use. Close it to
// end the git process it reads through.
type Tree struct {
	// Ref is the revision as given; Commit is the full commit id it names.
	Ref, Commit string

	entries map[string]*entry // by path below the root; "." is the root
	cat     *catFile
	limit   int64
}

// entry is one file, directory or symbolic link of the tree.
type entry struct {
	name string // base name
	mode fs.FileMode
	oid  string
	size int64
	kids []*entry // directories: children sorted by name

	linkOnce sync.Once
	link     string // symbolic links: the target, read on first use
	linkErr  error
}

// Open lists the tree of revision ref in the repository that contains dir
// and returns it as a file system whose root is dir. Paths escaping dir
// through symbolic links are refused, as os.Root refuses them in the working
// tree. When the clone lacks the revision (a shallow checkout), the error
// says which command fetches it.
func Open(ctx context.Context, dir, ref string, opts Options) (*Tree, error) {
	repo, err := findRepository(ctx, dir)
	if err != nil {
		return nil, err
	}
	commit, err := resolveCommit(ctx, dir, ref)
	if err != nil {
		return nil, err
	}
	args := []string{"ls-tree", "-r", "-z", "-l", "--full-tree", commit}
	if repo.prefix != "" {
		args = append(args, "--", repo.prefix+"/")
	}
	out, err := runGit(ctx, repo.top, args...)
	if err != nil {
		return nil, fmt.Errorf("listing the files of %s: %w", ref, err)
	}
	t := &Tree{Ref: ref, Commit: commit, cat: newCatFile(ctx, repo.top), limit: opts.MaxFileBytes}
	if t.limit <= 0 {
		t.limit = 1<<63 - 1
	}
	if err := t.index(out, repo.prefix); err != nil {
		return nil, fmt.Errorf("listing the files of %s: %w", ref, err)
	}
	return t, nil
}

// index builds the directory structure from ls-tree -r -z -l output:
// "<mode> <type> <oid> <size>\t<path>\0" per file.
func (t *Tree) index(out []byte, prefix string) error {
	root := &entry{name: ".", mode: fs.ModeDir | 0o755}
	t.entries = map[string]*entry{".": root}
	for len(out) > 0 {
		rec, rest, _ := bytes.Cut(out, []byte{0})
		out = rest
		meta, name, ok := strings.Cut(string(rec), "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			return fmt.Errorf("unexpected ls-tree line %q", rec)
		}
		if prefix != "" {
			name = strings.TrimPrefix(name, prefix+"/")
		}
		e := &entry{name: path.Base(name), oid: f[2]}
		switch f[0] {
		case "100644":
			e.mode = 0o644
		case "100755":
			e.mode = 0o755
		case "120000":
			e.mode = fs.ModeSymlink | 0o777
		case "160000":
			// A submodule: its content lives in another repository, which
			// the working tree may have checked out but the revision does
			// not hold. It reads as an empty directory.
			e.mode = fs.ModeDir | 0o755
		default:
			return fmt.Errorf("unexpected mode %s for %s", f[0], name)
		}
		if !e.mode.IsDir() {
			size, err := strconv.ParseInt(f[3], 10, 64)
			if err != nil {
				return fmt.Errorf("unexpected size %q for %s", f[3], name)
			}
			e.size = size
		}
		if !fs.ValidPath(name) || name == "." {
			continue // git never stores such names; ignore rather than fail
		}
		t.entries[name] = e
		t.parent(name).kids = append(t.parent(name).kids, e)
	}
	for _, e := range t.entries {
		slices.SortFunc(e.kids, func(a, b *entry) int { return strings.Compare(a.name, b.name) })
	}
	return nil
}

// parent returns the directory entry of name's parent, creating missing
// directories on the way (ls-tree -r lists only files).
func (t *Tree) parent(name string) *entry {
	dir := path.Dir(name)
	if d, ok := t.entries[dir]; ok {
		return d
	}
	d := &entry{name: path.Base(dir), mode: fs.ModeDir | 0o755}
	t.entries[dir] = d
	t.parent(dir).kids = append(t.parent(dir).kids, d)
	return d
}

// Close ends the git process the tree reads through.
func (t *Tree) Close() error { return t.cat.close() }

// resolve walks name, following symbolic links in every element (in the
// last one too when follow is set), and returns the entry and its path.
func (t *Tree) resolve(op, name string, follow bool) (*entry, string, error) {
	if !fs.ValidPath(name) {
		return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	links := 0
	cur := "."
	rest := name
	if name == "." {
		rest = ""
	}
	for rest != "" {
		elem, more, _ := strings.Cut(rest, "/")
		rest = more
		next := path.Join(cur, elem)
		e, ok := t.entries[next]
		if !ok {
			return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		if e.mode&fs.ModeSymlink == 0 || (rest == "" && !follow) {
			if rest != "" && !e.mode.IsDir() {
				return nil, "", &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
			}
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return nil, "", &fs.PathError{Op: op, Path: name, Err: errors.New("too many levels of symbolic links")}
		}
		target, err := t.readLink(e)
		if err != nil {
			return nil, "", &fs.PathError{Op: op, Path: name, Err: err}
		}
		if path.IsAbs(target) {
			return nil, "", &fs.PathError{Op: op, Path: name, Err: ErrEscapes}
		}
		joined := path.Join(cur, target)
		if joined == ".." || strings.HasPrefix(joined, "../") {
			return nil, "", &fs.PathError{Op: op, Path: name, Err: ErrEscapes}
		}
		// Continue from the root with the link replaced by its target.
		cur = "."
		if rest != "" {
			rest = joined + "/" + rest
		} else {
			rest = joined
		}
		if rest == "." {
			rest = ""
		}
	}
	return t.entries[cur], cur, nil
}

// readLink returns a symbolic link's target, read once.
func (t *Tree) readLink(e *entry) (string, error) {
	e.linkOnce.Do(func() {
		data, err := t.cat.blob(e.oid, 4096)
		e.link, e.linkErr = string(data), err
	})
	return e.link, e.linkErr
}

// Open implements fs.FS. Symbolic links are followed within the tree.
func (t *Tree) Open(name string) (fs.File, error) {
	e, _, err := t.resolve("open", name, true)
	if err != nil {
		return nil, err
	}
	if e.mode.IsDir() {
		return &dir{info: info{e, path.Base(name)}, kids: e.kids}, nil
	}
	return &file{t: t, e: e, name: name}, nil
}

// ReadFile implements fs.ReadFileFS.
func (t *Tree) ReadFile(name string) ([]byte, error) {
	e, _, err := t.resolve("read", name, true)
	if err != nil {
		return nil, err
	}
	if e.mode.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	return t.content("read", name, e)
}

func (t *Tree) content(op, name string, e *entry) ([]byte, error) {
	if e.size > t.limit {
		return nil, &fs.PathError{Op: op, Path: name, Err: fmt.Errorf("file is %d bytes, over the %d-byte limit", e.size, t.limit)}
	}
	data, err := t.cat.blob(e.oid, t.limit)
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	return data, nil
}

// ReadDir implements fs.ReadDirFS: entries sorted by name, symbolic links
// reported as links (as os.ReadDir does).
func (t *Tree) ReadDir(name string) ([]fs.DirEntry, error) {
	e, _, err := t.resolve("readdir", name, true)
	if err != nil {
		return nil, err
	}
	if !e.mode.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	out := make([]fs.DirEntry, len(e.kids))
	for i, k := range e.kids {
		out[i] = info{e: k}
	}
	return out, nil
}

// Stat implements fs.StatFS (following symbolic links).
func (t *Tree) Stat(name string) (fs.FileInfo, error) {
	e, _, err := t.resolve("stat", name, true)
	if err != nil {
		return nil, err
	}
	return info{e, path.Base(name)}, nil
}

// Lstat implements fs.ReadLinkFS (not following a final symbolic link).
func (t *Tree) Lstat(name string) (fs.FileInfo, error) {
	e, _, err := t.resolve("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return info{e: e}, nil
}

// ReadLink implements fs.ReadLinkFS.
func (t *Tree) ReadLink(name string) (string, error) {
	e, _, err := t.resolve("readlink", name, false)
	if err != nil {
		return "", err
	}
	if e.mode&fs.ModeSymlink == 0 {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: fs.ErrInvalid}
	}
	target, err := t.readLink(e)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return target, nil
}

// info is an entry seen as fs.FileInfo and fs.DirEntry. name, when set,
// is the name it was opened by (a symbolic link's, not its target's).
type info struct {
	e    *entry
	name string
}

func (i info) Name() string {
	if i.name != "" {
		return i.name
	}
	return i.e.name
}
func (i info) Size() int64                { return i.e.size }
func (i info) Mode() fs.FileMode          { return i.e.mode }
func (i info) ModTime() time.Time         { return time.Time{} }
func (i info) IsDir() bool                { return i.e.mode.IsDir() }
func (i info) Sys() any                   { return nil }
func (i info) Type() fs.FileMode          { return i.e.mode.Type() }
func (i info) Info() (fs.FileInfo, error) { return i, nil }
func (i info) String() string             { return fs.FormatDirEntry(i) }

// file is an open regular file; its content is read on the first Read, so
// opening a file only to Stat it (the loader's size check) costs nothing.
type file struct {
	t    *Tree
	e    *entry
	name string
	r    *bytes.Reader
}

func (f *file) Stat() (fs.FileInfo, error) { return info{f.e, path.Base(f.name)}, nil }

func (f *file) Read(p []byte) (int, error) {
	if f.r == nil {
		data, err := f.t.content("read", f.name, f.e)
		if err != nil {
			return 0, err
		}
		f.r = bytes.NewReader(data)
	}
	return f.r.Read(p)
}

func (f *file) Close() error { return nil }

// dir is an open directory.
type dir struct {
	info
	kids   []*entry
	offset int
}

func (d *dir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.Name(), Err: errors.New("is a directory")}
}
func (d *dir) Close() error { return nil }

// ReadDir implements fs.ReadDirFile.
func (d *dir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.kids[d.offset:]
	if n > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if n > 0 && n < len(rest) {
		rest = rest[:n]
	}
	d.offset += len(rest)
	out := make([]fs.DirEntry, len(rest))
	for i, k := range rest {
		out[i] = info{e: k}
	}
	return out, nil
}

var (
	_ fs.ReadDirFS   = (*Tree)(nil)
	_ fs.ReadFileFS  = (*Tree)(nil)
	_ fs.StatFS      = (*Tree)(nil)
	_ fs.ReadLinkFS  = (*Tree)(nil)
	_ fs.ReadDirFile = (*dir)(nil)
)
