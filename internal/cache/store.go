// Package cache is plumb's persistent, content-addressed cache: a
// directory of entries, each stored under a key its user derives from
// everything the entry depends on (plumb's own build, options, the content
// of every input read), so that an entry found is an entry that is right.
//
// Entries are grouped in slots (one per render target and options, say);
// a slot holds a few variants (the target as the base branch has it, as a
// pull request changed it), tried newest first. The store knows nothing of
// what entries mean: its user checks that a variant still applies (accept)
// and decodes it.
//
// The store is safe for concurrent use, by goroutines and by processes
// sharing the directory: entries are written to a temporary file and
// renamed into place, so a reader sees a whole entry or none; each entry
// carries its key and a checksum, so a damaged one is a miss (and is
// removed), never a wrong answer. Files are private to the user (0600 in
// 0700 directories): entries hold rendered manifests. The directory is
// bounded in size: once a run has written, the least recently used entries
// go until it fits.
package cache

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// formatDir separates entry formats: a plumb that writes another format
// uses another directory, and the old one ages out.
const formatDir = "v1"

// DefaultMaxBytes bounds the cache directory when Options.MaxBytes is 0.
const DefaultMaxBytes = 1 << 30

// maxVariants is how many variants a slot keeps; the least recently used
// goes when another is written.
const maxVariants = 8

// tempPrefix starts the names of entries being written.
const tempPrefix = ".tmp-"

// staleTemp is the age after which a temporary file is an abandoned write.
const staleTemp = time.Hour

// magic starts every entry file.
var magic = []byte("PLUMBC1\n")

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Key names a slot or a variant: a SHA-256 digest.
type Key [sha256.Size]byte

// String is the key in hex.
func (k Key) String() string { return hex.EncodeToString(k[:]) }

// Hasher derives a key from typed parts; every part is length-prefixed, so
// ("ab", "c") and ("a", "bc") differ.
type Hasher struct {
	buf []byte
}

// NewHasher starts a key with a purpose ("render/kustomize", ...).
func NewHasher(purpose string) *Hasher {
	h := &Hasher{}
	return h.String(purpose)
}

// String adds a string.
func (h *Hasher) String(s string) *Hasher {
	h.buf = binary.AppendUvarint(h.buf, uint64(len(s)))
	h.buf = append(h.buf, s...)
	return h
}

// Bytes adds a byte slice.
func (h *Hasher) Bytes(b []byte) *Hasher {
	h.buf = binary.AppendUvarint(h.buf, uint64(len(b)))
	h.buf = append(h.buf, b...)
	return h
}

// Int adds an integer.
func (h *Hasher) Int(n int) *Hasher {
	h.buf = binary.AppendVarint(h.buf, int64(n))
	return h
}

// Key adds another key.
func (h *Hasher) Key(k Key) *Hasher { return h.Bytes(k[:]) }

// Bool adds a boolean.
func (h *Hasher) Bool(b bool) *Hasher {
	if b {
		return h.String("1")
	}
	return h.String("0")
}

// Sum is the key of everything added.
func (h *Hasher) Sum() Key { return sha256.Sum256(h.buf) }

// Digest is the SHA-256 of data.
func Digest(data []byte) Key { return sha256.Sum256(data) }

// Options configure a store.
type Options struct {
	// MaxBytes bounds the directory (DefaultMaxBytes when 0).
	MaxBytes int64
	// Identity is plumb's build (Identity()): every key is scoped by it,
	// so a different build never reads another's entries.
	Identity string
}

// Store is a cache directory opened for one run.
type Store struct {
	dir      string
	maxBytes int64
	identity string
	wrote    atomic.Bool
	mu       sync.Mutex
	// used are the entry files this run read or wrote: eviction keeps
	// them.
	used  map[string]bool
	stats Stats
	// made are the directories this run knows exist (a cold run writes
	// hundreds of slots: one mkdir each, not MkdirAll's stat of every
	// parent).
	made sync.Map
}

// Stats count what a run found and wrote.
type Stats struct {
	Hits, Misses, Writes, Corrupt int
	// Evicted is how many entries eviction removed.
	Evicted int
}

// Open opens (creating it when needed) the cache directory dir.
func Open(dir string, opts Options) (*Store, error) {
	root := filepath.Join(dir, formatDir)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, err
	}
	tagFile(dir)
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	return &Store{dir: root, maxBytes: opts.MaxBytes, identity: opts.Identity, used: map[string]bool{}}, nil
}

// tagFile marks the directory as a cache for backup tools
// (https://bford.info/cachedir/); best effort.
func tagFile(dir string) {
	name := filepath.Join(dir, "CACHEDIR.TAG")
	if _, err := os.Stat(name); err == nil {
		return
	}
	_ = os.WriteFile(name, []byte("Signature: 8a477f597d28d172789f06886806bc55\n# This directory is plumb's cache (https://github.com/plumb-ci/plumb); it can be deleted at any time.\n"), 0o600)
}

// Stats returns the counts so far.
func (s *Store) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

func (s *Store) count(f func(*Stats)) {
	s.mu.Lock()
	f(&s.stats)
	s.mu.Unlock()
}

// slotDir is the directory of a slot's variants and the prefix of their
// file names (a variant's file is the prefix and the variant's key). The
// key is scoped by the store's identity and the namespace. Slots share
// their directory, one of 16 per namespace (the key's first hex digit): a
// directory per slot cost a mkdir for every entry a cold run writes,
// hundreds of them, and making a directory took most of writing an entry
// (with 256 per namespace, a cold run still made about 400). A lookup
// lists its directory: a sixteenth of the namespace's entries.
func (s *Store) slotDir(ns string, slot Key) (dir, prefix string, scoped Key) {
	scoped = NewHasher("slot").String(s.identity).String(ns).Key(slot).Sum()
	hx := scoped.String()
	return filepath.Join(s.dir, ns, hx[:1]), hx + "-", scoped
}

// entryFile is the file of a slot's variant.
func (s *Store) entryFile(ns string, slot, variant Key) string {
	dir, prefix, _ := s.slotDir(ns, slot)
	return filepath.Join(dir, prefix+variant.String())
}

// Lookup tries the variants of a slot, most recently used first, and
// returns true at the first whose payload accept takes. A variant that
// does not read back whole is removed.
func (s *Store) Lookup(ns string, slot Key, accept func(payload []byte) bool) bool {
	dir, prefix, scoped := s.slotDir(ns, slot)
	for _, name := range variants(dir, prefix) {
		file := filepath.Join(dir, name)
		data, err := os.ReadFile(file)
		if err != nil {
			continue // removed meanwhile, or unreadable: a miss
		}
		payload, ok := unframe(data, scoped)
		if !ok {
			_ = os.Remove(file)
			s.count(func(st *Stats) { st.Corrupt++ })
			continue
		}
		if accept(payload) {
			now := time.Now()
			_ = os.Chtimes(file, now, now)
			s.mu.Lock()
			s.used[file] = true
			s.stats.Hits++
			s.mu.Unlock()
			return true
		}
	}
	s.count(func(st *Stats) { st.Misses++ })
	return false
}

// variants lists a slot's entry files (those of dir named with prefix),
// most recently used first.
func variants(dir, prefix string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	type variant struct {
		name string
		mod  time.Time
	}
	var vs []variant
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		vs = append(vs, variant{e.Name(), info.ModTime()})
	}
	slices.SortFunc(vs, func(a, b variant) int {
		if c := b.mod.Compare(a.mod); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.name
	}
	return out
}

// Put stores a variant of a slot. An error leaves the cache as it was (a
// failed write is only a later miss).
func (s *Store) Put(ns string, slot, variant Key, payload []byte) error {
	dir, prefix, scoped := s.slotDir(ns, slot)
	if err := s.mkdir(dir); err != nil {
		return err
	}
	final := filepath.Join(dir, prefix+variant.String())
	f, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(frame(payload, scoped))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	s.wrote.Store(true)
	s.mu.Lock()
	s.used[final] = true
	s.stats.Writes++
	s.mu.Unlock()
	if vs := variants(dir, prefix); len(vs) > maxVariants {
		for _, name := range vs[maxVariants:] {
			if !s.isUsed(filepath.Join(dir, name)) {
				_ = os.Remove(filepath.Join(dir, name))
			}
		}
	}
	return nil
}

// mkdir makes dir and its parents below the store's directory.
func (s *Store) mkdir(dir string) error {
	if _, ok := s.made.Load(dir); ok {
		return nil
	}
	err := os.Mkdir(dir, 0o700)
	if errors.Is(err, fs.ErrNotExist) && dir != s.dir {
		if err = s.mkdir(filepath.Dir(dir)); err == nil {
			err = os.Mkdir(dir, 0o700)
		}
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	s.made.Store(dir, true)
	return nil
}

func (s *Store) isUsed(file string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.used[file]
}

// frame wraps a payload: magic, the scoped slot key, the payload, and a
// CRC-32C of all of it.
func frame(payload []byte, slot Key) []byte {
	out := make([]byte, 0, len(magic)+len(slot)+len(payload)+4)
	out = append(out, magic...)
	out = append(out, slot[:]...)
	out = append(out, payload...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crcTable))
}

// unframe checks a file's framing and returns its payload.
func unframe(data []byte, slot Key) ([]byte, bool) {
	head := len(magic) + len(slot)
	if len(data) < head+4 || !bytes.Equal(data[:len(magic)], magic) || !bytes.Equal(data[len(magic):head], slot[:]) {
		return nil, false
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, false
	}
	return body[head:], true
}

// Finish ends the run: when it wrote entries, the least recently used
// entries are removed until the directory is within its bound (entries this
// run used stay), with temporary files abandoned by crashed runs.
func (s *Store) Finish() error {
	if !s.wrote.Load() {
		return nil
	}
	type file struct {
		path string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	now := time.Now()
	err := filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if strings.HasPrefix(d.Name(), tempPrefix) {
			if now.Sub(info.ModTime()) > staleTemp {
				_ = os.Remove(p)
			}
			return nil
		}
		files = append(files, file{p, info.Size(), info.ModTime()})
		total += info.Size()
		return nil
	})
	if err != nil || total <= s.maxBytes {
		return err
	}
	slices.SortFunc(files, func(a, b file) int { return a.mod.Compare(b.mod) })
	target := s.maxBytes / 10 * 8 // leave room for the next runs' writes
	for _, f := range files {
		if total <= target {
			break
		}
		if s.isUsed(f.path) {
			continue
		}
		if os.Remove(f.path) == nil {
			total -= f.size
			s.count(func(st *Stats) { st.Evicted++ })
			_ = os.Remove(filepath.Dir(f.path)) // the directory, when now empty
		}
	}
	return nil
}
