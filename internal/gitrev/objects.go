package gitrev

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"container/list"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// oid is a SHA-1 object id.
type oid [20]byte

func (id oid) String() string { return hex.EncodeToString(id[:]) }

func parseOID(s string) (oid, error) {
	var id oid
	if len(s) != 40 || !isHex(s) {
		return id, fmt.Errorf("%q is not an object id", s)
	}
	_, err := hex.Decode(id[:], []byte(s))
	return id, err
}

// objType is a git object type, numbered as in pack files.
type objType int

const (
	objCommit   objType = 1
	objTree     objType = 2
	objBlob     objType = 3
	objTag      objType = 4
	objOfsDelta objType = 6
	objRefDelta objType = 7
)

func (t objType) String() string {
	switch t {
	case objCommit:
		return "commit"
	case objTree:
		return "tree"
	case objBlob:
		return "blob"
	case objTag:
		return "tag"
	}
	return "object of type " + strconv.Itoa(int(t))
}

func parseType(s string) (objType, error) {
	for _, t := range []objType{objCommit, objTree, objBlob, objTag} {
		if t.String() == s {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown object type %q", s)
}

// maxTreeBytes bounds commits, tags and trees (a tree of a hundred thousand
// entries is a few megabytes).
const maxTreeBytes = 64 << 20

// errMissing is an object the repository does not have.
var errMissing = errors.New("the object is not in the repository")

// objectStore reads objects from the loose object directories and pack
// files of a repository and of its alternates.
type objectStore struct {
	dirs  []string // objects directories, the repository's first
	packs []*packFile
	cache *objectCache
}

func openStore(objects string) (*objectStore, error) {
	s := &objectStore{cache: newObjectCache(64 << 20)}
	if err := s.addDir(objects, 0); err != nil {
		return nil, err
	}
	return s, nil
}

// addDir adds an objects directory, its packs and its alternates.
func (s *objectStore) addDir(dir string, depth int) error {
	if depth > 5 || slices.Contains(s.dirs, dir) {
		return nil
	}
	s.dirs = append(s.dirs, dir)
	idx, _ := filepath.Glob(filepath.Join(dir, "pack", "*.idx"))
	slices.Sort(idx)
	for _, name := range idx {
		s.packs = append(s.packs, &packFile{idxPath: name, packPath: strings.TrimSuffix(name, ".idx") + ".pack"})
	}
	data, err := os.ReadFile(filepath.Join(dir, "info", "alternates"))
	if err != nil {
		return nil // no alternates
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(dir, line)
		}
		if err := s.addDir(filepath.Clean(line), depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (s *objectStore) close() {
	for _, p := range s.packs {
		p.close()
	}
}

// read returns an object's type and content; objects larger than limit are
// refused without being inflated.
func (s *objectStore) read(id oid, limit int64) (objType, []byte, error) {
	for _, p := range s.packs {
		off, ok, err := p.find(id)
		if err != nil {
			return 0, nil, err
		}
		if ok {
			return p.read(s, off, limit, 0)
		}
	}
	for _, dir := range s.dirs {
		typ, data, err := readLoose(looseName(dir, id), limit)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, nil, fmt.Errorf("object %s: %w", id, err)
		}
		return typ, data, nil
	}
	return 0, nil, fmt.Errorf("object %s: %w", id, errMissing)
}

// size returns an object's size without inflating all of it.
func (s *objectStore) size(id oid) (int64, error) {
	for _, p := range s.packs {
		off, ok, err := p.find(id)
		if err != nil {
			return 0, err
		}
		if ok {
			return p.size(off)
		}
	}
	for _, dir := range s.dirs {
		_, size, _, err := openLoose(looseName(dir, id))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("object %s: %w", id, err)
		}
		return size, nil
	}
	return 0, fmt.Errorf("object %s: %w", id, errMissing)
}

// findPrefix resolves an abbreviated object id, which must be unambiguous.
func (s *objectStore) findPrefix(prefix string) (oid, error) {
	var found []oid
	add := func(id oid) {
		if !slices.Contains(found, id) {
			found = append(found, id)
		}
	}
	for _, p := range s.packs {
		ids, err := p.withPrefix(prefix)
		if err != nil {
			return oid{}, err
		}
		for _, id := range ids {
			add(id)
		}
	}
	for _, dir := range s.dirs {
		entries, _ := os.ReadDir(filepath.Join(dir, prefix[:2]))
		for _, e := range entries {
			if name := prefix[:2] + e.Name(); strings.HasPrefix(name, prefix) {
				if id, err := parseOID(name); err == nil {
					add(id)
				}
			}
		}
	}
	switch len(found) {
	case 0:
		return oid{}, errNoRef
	case 1:
		return found[0], nil
	}
	return oid{}, fmt.Errorf("the abbreviated id %s is ambiguous: give more digits", prefix)
}

func looseName(dir string, id oid) string {
	h := id.String()
	return filepath.Join(dir, h[:2], h[2:])
}

// openLoose reads the header of a loose object — zlib-compressed
// "<type> <size>\0<data>" — and returns a reader of its data. The reader
// is nil when the header cannot be read.
func openLoose(name string) (objType, int64, io.Reader, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return 0, 0, nil, err
	}
	z, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return 0, 0, nil, err
	}
	br := bufio.NewReaderSize(z, 64)
	hdr, err := br.ReadString(0)
	if err != nil {
		return 0, 0, nil, fmt.Errorf("reading the object header: %w", err)
	}
	typeName, sizeText, _ := strings.Cut(strings.TrimSuffix(hdr, "\x00"), " ")
	typ, err := parseType(typeName)
	if err != nil {
		return 0, 0, nil, err
	}
	size, err := strconv.ParseInt(sizeText, 10, 64)
	if err != nil || size < 0 {
		return 0, 0, nil, fmt.Errorf("bad object header %q", hdr)
	}
	return typ, size, br, nil
}

// readLoose reads a loose object of at most limit bytes.
func readLoose(name string, limit int64) (objType, []byte, error) {
	typ, size, r, err := openLoose(name)
	if err != nil {
		return 0, nil, err
	}
	if size > limit {
		return 0, nil, tooLarge(size, limit)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(r, data); err != nil {
		return 0, nil, fmt.Errorf("reading the object: %w", err)
	}
	return typ, data, nil
}

func tooLarge(size, limit int64) error {
	return fmt.Errorf("file is %d bytes, over the %d-byte limit", size, limit)
}

// objectCache keeps recently read objects (delta bases above all: many
// objects of a pack are stored as changes to the same few) within a byte
// budget, least recently used out first.
type objectCache struct {
	mu      sync.Mutex
	budget  int
	used    int
	order   *list.List // of *cacheEntry, most recent first
	entries map[cacheKey]*list.Element
}

type cacheKey struct {
	pack *packFile
	off  int64
}

type cacheEntry struct {
	key  cacheKey
	typ  objType
	data []byte
}

func newObjectCache(budget int) *objectCache {
	return &objectCache{budget: budget, order: list.New(), entries: map[cacheKey]*list.Element{}}
}

func (c *objectCache) get(k cacheKey) (objType, []byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok {
		return 0, nil, false
	}
	c.order.MoveToFront(e)
	ce := e.Value.(*cacheEntry)
	return ce.typ, ce.data, true
}

func (c *objectCache) put(k cacheKey, typ objType, data []byte) {
	if len(data) > c.budget/8 {
		return // one huge object would push everything else out
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[k]; ok {
		return
	}
	c.entries[k] = c.order.PushFront(&cacheEntry{key: k, typ: typ, data: data})
	c.used += len(data)
	for c.used > c.budget {
		last := c.order.Back()
		ce := last.Value.(*cacheEntry)
		c.order.Remove(last)
		delete(c.entries, ce.key)
		c.used -= len(ce.data)
	}
}
