package render

import (
	"bytes"
	"errors"
	"io/fs"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// BuildCache lets the renders of two revisions of one repository (a pull
// request's head and base, rendered side by side with the same Options)
// build each kustomize target once when the build would read the same
// thing in both. The first render to reach a target builds it and records
// every file-system answer krusty got (file contents, whether a path
// exists and is a directory, directory listings, glob matches); the other
// render asks its own revision the same questions and, when every answer
// is the same, takes a copy of the objects instead of building. krusty's
// output depends on nothing else (plugins and remote resources are off),
// so a reused target is exactly what building it would give.
//
// Targets are not reused when the build failed, when remote resources are
// allowed, or when the target holds OpenShift Templates; they are built in
// both revisions as without the cache.
type BuildCache struct {
	mu      sync.Mutex
	entries map[string]*cachedBuild
	reused  atomic.Int64
}

// NewBuildCache returns an empty cache for the renders of one run.
func NewBuildCache() *BuildCache { return &BuildCache{entries: map[string]*cachedBuild{}} }

// Reused is how many targets were taken from the cache instead of built.
func (c *BuildCache) Reused() int { return int(c.reused.Load()) }

type cachedBuild struct {
	done chan struct{}
	// Set by the builder before done is closed; read-only afterwards.
	log      *accessLog
	snapshot *Target // a private copy, never handed out; nil: build again
	problems []manifest.Problem
}

// claim returns the entry of a target directory, and whether the caller is
// its builder (who must call publish or abandon).
func (c *BuildCache) claim(dir string) (*cachedBuild, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.entries[dir]; e != nil {
		return e, false
	}
	e := &cachedBuild{done: make(chan struct{})}
	c.entries[dir] = e
	return e, true
}

// publish stores a successful build (t is nil when it failed) for the
// other render. It copies the objects first: the builder's render goes on
// to change its own (rules, suppressions) while the other render may be
// copying.
func (e *cachedBuild) publish(log *accessLog, t *Target, problems []manifest.Problem) {
	defer close(e.done)
	// t first: a build abandoned at its time budget may still write to
	// its log.
	if t == nil || log.unreusable || len(t.Templates) > 0 {
		return
	}
	snapshot, ok := copyTarget(t)
	if !ok {
		return
	}
	e.log, e.snapshot, e.problems = log, snapshot, slices.Clone(problems)
}

// abandon marks a claimed target as not reusable.
func (e *cachedBuild) abandon() { close(e.done) }

// reuse waits for the builder and returns a copy of its target when files
// gives every answer the builder's krusty got.
func (e *cachedBuild) reuse(files *fileCache) (*Target, []manifest.Problem, bool) {
	<-e.done
	if e.snapshot == nil || !e.log.sameIn(files) {
		return nil, nil, false
	}
	t, ok := copyTarget(e.snapshot)
	if !ok {
		return nil, nil, false
	}
	return t, slices.Clone(e.problems), true
}

// copyTarget copies a kustomize target: a new target with a new Object for
// each of its objects, which the rules of one revision may replace without
// the other seeing it. The objects' content and provenance are shared:
// rendered content is never changed in place (rules write copies; see
// docs/development.md), and deep copies of it were most of what reusing a
// build cost. It fails for objects whose origin is not kustomize's.
func copyTarget(t *Target) (*Target, bool) {
	out := &Target{Name: t.Name, Kind: t.Kind, Objects: make([]*manifest.Object, len(t.Objects)), Inputs: t.Inputs, Namespace: t.Namespace}
	for i, o := range t.Objects {
		if _, ok := o.Origin.(*renderedOrigin); !ok || o.Doc != nil || o.Node != nil {
			return nil, false
		}
		cp := *o
		out.Objects[i] = &cp
	}
	return out, true
}

// accessKind is one kind of question krusty asks the file system.
type accessKind uint8

const (
	accessRead accessKind = iota
	accessStat
	accessReadDir
	accessGlob
	accessWalk
)

// access is one question and the answer it got.
type access struct {
	kind  accessKind
	path  string // repository-relative (a pattern for a glob)
	data  []byte // read: the content
	err   string // errorClass of the error, "" when there was none
	isDir bool   // stat
	names []string
}

// accessLog records what one target's build read. A build runs on one
// goroutine, so it needs no lock.
type accessLog struct {
	accesses []access
	seen     map[accessKey]bool
	// unreusable is set when the build read something the log cannot
	// replay (a remote clone on the local disk).
	unreusable bool
}

type accessKey struct {
	kind accessKind
	path string
}

func newAccessLog() *accessLog { return &accessLog{seen: map[accessKey]bool{}} }

// add records an access once (krusty asks some questions many times).
func (l *accessLog) add(a access) {
	k := accessKey{a.kind, a.path}
	if l.seen[k] {
		return
	}
	l.seen[k] = true
	l.accesses = append(l.accesses, a)
}

func (l *accessLog) read(path string, data []byte, err error) {
	if l == nil {
		return
	}
	l.add(access{kind: accessRead, path: path, data: data, err: errorClass(err)})
}

func (l *accessLog) stat(path string, st fs.FileInfo, err error) {
	if l == nil {
		return
	}
	l.add(access{kind: accessStat, path: path, err: errorClass(err), isDir: err == nil && st.IsDir()})
}

func (l *accessLog) list(kind accessKind, path string, names []string, err error) {
	if l == nil {
		return
	}
	l.add(access{kind: kind, path: path, names: slices.Clone(names), err: errorClass(err)})
}

func (l *accessLog) outside() {
	if l != nil {
		l.unreusable = true
	}
}

// errorClass is what krusty can tell from an error: a missing file is the
// same answer whichever file system (the working tree, a git revision)
// words it.
func errorClass(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, fs.ErrNotExist):
		return "not exist"
	}
	return cleanFSError(err).Error()
}

// sameIn asks files every recorded question and reports whether every
// answer is the same.
func (l *accessLog) sameIn(files *fileCache) bool {
	for _, a := range l.accesses {
		switch a.kind {
		case accessRead:
			data, err := files.read(a.path)
			if errorClass(err) != a.err || !bytes.Equal(data, a.data) {
				return false
			}
		case accessStat:
			st, err := files.stat(a.path)
			if errorClass(err) != a.err || (err == nil && st.IsDir()) != a.isDir {
				return false
			}
		case accessReadDir:
			names, err := readDirNames(files.fsys, a.path)
			if errorClass(err) != a.err || !slices.Equal(names, a.names) {
				return false
			}
		case accessGlob:
			matches, err := fs.Glob(files.fsys, a.path)
			if errorClass(err) != a.err || !slices.Equal(matches, a.names) {
				return false
			}
		case accessWalk:
			entries, err := walkEntries(files.fsys, a.path)
			if errorClass(err) != a.err || !slices.Equal(entries, a.names) {
				return false
			}
		}
	}
	return true
}

// readDirNames lists a directory as the adapter gives it to krusty.
func readDirNames(fsys fs.FS, dir string) ([]string, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}

// walkEntries lists what a walk from root visits, directories marked with
// a trailing slash, for the log.
func walkEntries(fsys fs.FS, root string) ([]string, error) {
	var out []string
	err := fs.WalkDir(fsys, root, func(name string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			out = append(out, name+" !"+errorClass(err))
		case d.IsDir():
			out = append(out, name+"/")
		default:
			out = append(out, name)
		}
		return nil
	})
	return out, err
}
