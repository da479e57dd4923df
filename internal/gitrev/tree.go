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
// release the pack files it reads.
type Tree struct {
	// Ref is the revision as given; Commit is the full commit id it names.
	Ref, Commit string

	entries map[string]*entry // by path below the root; "." is the root
	store   *objectStore
	limit   int64
}

// entry is one file, directory or symbolic link of the tree.
type entry struct {
	name string // base name
	mode fs.FileMode
	id   oid
	kids []*entry // directories: children sorted by name

	sizeOnce sync.Once
	size     int64 // files: read from the object store on first use
	sizeErr  error

	linkOnce sync.Once
	link     string // symbolic links: the target, read on first use
	linkErr  error
}

// Open reads the tree of revision ref in the repository that contains dir
// and returns it as a file system whose root is dir. ref is a commit id
// (full or abbreviated), a branch, tag or remote-tracking name, or a
// revision expression such as main~1. Objects are read straight from the
// repository (loose objects and packs), so no git process is needed. ctx is
// unused: reading is local and bounded by the tree's size. Paths escaping
// dir through symbolic links are refused, as os.Root refuses them in the
// working tree. When the clone lacks the revision (a shallow checkout), the
// error says which command fetches it.
func Open(ctx context.Context, dir, ref string, opts Options) (*Tree, error) {
	repo, prefix, err := openRepo(dir)
	if err != nil {
		return nil, err
	}
	commit, err := resolveCommit(repo, ref)
	if err != nil {
		repo.store.close()
		return nil, err
	}
	t := &Tree{Ref: ref, Commit: commit.String(), store: repo.store, limit: opts.MaxFileBytes}
	if t.limit <= 0 {
		t.limit = 1<<63 - 1
	}
	if err := t.index(commit, prefix); err != nil {
		repo.store.close()
		return nil, fmt.Errorf("reading the files of %s: %w", ref, err)
	}
	return t, nil
}

// index builds the directory structure of the commit's tree below prefix.
// A prefix that does not exist at the commit gives an empty tree: the
// directory is new.
func (t *Tree) index(commit oid, prefix string) error {
	_, data, err := t.store.read(commit, maxTreeBytes)
	if err != nil {
		return err
	}
	treeText, ok := header(data, "tree")
	if !ok {
		return fmt.Errorf("commit %s has no tree", commit)
	}
	treeID, err := parseOID(treeText)
	if err != nil {
		return err
	}
	root := &entry{name: ".", mode: fs.ModeDir | 0o755}
	t.entries = map[string]*entry{".": root}
	if prefix != "" {
		for _, elem := range strings.Split(prefix, "/") {
			kids, err := t.readTree(treeID)
			if err != nil {
				return err
			}
			found := false
			for _, k := range kids {
				if k.name == elem && k.mode.IsDir() && k.mode&fs.ModeSymlink == 0 && k.id != (oid{}) {
					treeID, found = k.id, true
				}
			}
			if !found {
				return nil
			}
		}
	}
	return t.addTree(root, ".", treeID, 0)
}

// addTree adds the entries of tree id below dir, recursively.
func (t *Tree) addTree(dir *entry, dirPath string, id oid, depth int) error {
	if depth > 1000 {
		return fmt.Errorf("%s: trees nested too deep", dirPath)
	}
	kids, err := t.readTree(id)
	if err != nil {
		return err
	}
	dir.kids = kids
	for _, k := range kids {
		p := path.Join(dirPath, k.name)
		t.entries[p] = k
		if k.mode.IsDir() && k.id != (oid{}) {
			if err := t.addTree(k, p, k.id, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// readTree parses a tree object: "<mode> <name>\0<20-byte id>" entries,
// sorted by name (git's order is not quite byte order for directories, so
// they are sorted again).
func (t *Tree) readTree(id oid) ([]*entry, error) {
	typ, data, err := t.store.read(id, maxTreeBytes)
	if err != nil {
		return nil, err
	}
	if typ != objTree {
		return nil, fmt.Errorf("%s is a %s, not a tree", id, typ)
	}
	var out []*entry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+21 {
			return nil, fmt.Errorf("tree %s is malformed", id)
		}
		mode, name := string(data[:sp]), string(data[sp+1:nul])
		e := &entry{name: name}
		copy(e.id[:], data[nul+1:nul+21])
		data = data[nul+21:]
		switch mode {
		case "40000", "040000":
			e.mode = fs.ModeDir | 0o755
		case "100755":
			e.mode = 0o755
		case "120000":
			e.mode = fs.ModeSymlink | 0o777
		case "160000":
			// A submodule: its content lives in another repository, which
			// the working tree may have checked out but the revision does
			// not hold. It reads as an empty directory.
			e.mode, e.id = fs.ModeDir|0o755, oid{}
		default:
			e.mode = 0o644 // 100644, and the old 100664
		}
		if name == "" || name == "." || name == ".." || strings.ContainsRune(name, '/') {
			continue // git never writes such names; ignore rather than fail
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *entry) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// Close releases the pack files.
func (t *Tree) Close() error {
	t.store.close()
	return nil
}

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
		_, data, err := t.store.read(e.id, 4096)
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
		return &dir{info: info{e, path.Base(name), t.store}, kids: e.kids}, nil
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
	data, err := t.content("read", name, e)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(data), nil // the caller may modify it
}

// content reads a file; the data may be shared with the object cache and
// must not be modified.
// Objects over the limit are refused before they are inflated.
func (t *Tree) content(op, name string, e *entry) ([]byte, error) {
	_, data, err := t.store.read(e.id, t.limit)
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	return data, nil
}

// sizeIn returns a file's size, looked up once.
func (e *entry) sizeIn(s *objectStore) (int64, error) {
	if e.mode.IsDir() {
		return 0, nil
	}
	e.sizeOnce.Do(func() { e.size, e.sizeErr = s.size(e.id) })
	return e.size, e.sizeErr
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
		out[i] = info{e: k, store: t.store}
	}
	return out, nil
}

// Stat implements fs.StatFS (following symbolic links).
func (t *Tree) Stat(name string) (fs.FileInfo, error) {
	e, _, err := t.resolve("stat", name, true)
	if err != nil {
		return nil, err
	}
	return info{e, path.Base(name), t.store}, nil
}

// Lstat implements fs.ReadLinkFS (not following a final symbolic link).
func (t *Tree) Lstat(name string) (fs.FileInfo, error) {
	e, _, err := t.resolve("lstat", name, false)
	if err != nil {
		return nil, err
	}
	return info{e: e, store: t.store}, nil
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
	e     *entry
	name  string
	store *objectStore
}

func (i info) Name() string {
	if i.name != "" {
		return i.name
	}
	return i.e.name
}

// Size is looked up on first use; 0 when the object cannot be read (reading
// the file then reports why).
func (i info) Size() int64 {
	n, _ := i.e.sizeIn(i.store)
	return n
}
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

func (f *file) Stat() (fs.FileInfo, error) { return info{f.e, path.Base(f.name), f.t.store}, nil }

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
		out[i] = info{e: k, store: d.store}
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
