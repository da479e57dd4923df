// Package cache is plumb's persistent, content-addressed cache: a
// directory of entries, each stored under a key its user derives from
// everything the entry depends on (plumb's own build, options, the content
// of every input read), so that an entry found is an entry that is right.
//
// Entries are grouped in slots (one per render target and options, say);
// a slot holds a few variants (the target as the base branch has it, as a
// pull request changed it), tried most recently used first. The store
// knows nothing of what entries mean: its user checks that a variant still
// applies (accept) and decodes it.
//
// A run writes its entries to one pack file of its own, appended as they
// come, and the pack's index when it finishes (pack.go, index.go): a cold
// run creates two files, not one per entry (creating a file costs the
// kernel more than writing the entry on a CI runner's disk). An entry a
// run uses from an earlier run's pack is copied into its own pack, so a
// pack's age is the age of its entries' last use, and the packs whose
// every entry has a newer copy go. Open reads the indexes; a pack without
// one (a run that crashed, or one still running) is not read, and is
// removed once it is stale.
//
// The store is safe for concurrent use, by goroutines and by processes
// sharing the directory: a pack is written by one run only, an index is
// written to a temporary file and renamed into place, so a reader sees a
// whole index or none; each entry carries its scoped slot key and is
// sealed (seal.go), so a damaged one is a miss, never a wrong answer (the
// run that meets it writes it again, and the damaged copy goes with its
// pack). Every payload is sealed under a key derived from its slot, which
// the directory does not hold: a copy of the directory reads as noise
// without the inputs its entries were made from. Files are private to the
// user (0600 in 0700 directories), reached without following links, and
// only plumb's own are ever removed (files.go). The directory is bounded
// in size: once a run has written, the packs least recently used go until
// it fits.
package cache

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/plumb-ci/plumb/internal/redact"
)

// formatDir separates formats: a plumb that writes another format uses
// another directory, and the old one ages out (Finish removes the files
// of the formats plumb wrote before once nothing has used them for
// staleFormat: formats.go).
const formatDir = "v3"

// DefaultMaxBytes bounds the cache directory when Options.MaxBytes is 0.
const DefaultMaxBytes = 1 << 30

// maxVariants is how many variants of a slot are kept: a lookup tries the
// most recently used ones, and older ones go with their packs.
const maxVariants = 8

// tempPrefix starts the names of files being written.
const tempPrefix = ".tmp-"

// staleTemp is the age after which a temporary file, or a pack without an
// index, is what a crashed run abandoned (a running one appends to its
// pack, and writes its index when it finishes).
const staleTemp = time.Hour

// staleFormat is how long another format's files stay unused before they
// go (another plumb version may share the directory).
const staleFormat = 24 * time.Hour

// magic starts every entry.
var magic = []byte("PLUMBC3\n")

// entryHead is the framing before an entry's sealed payload: the magic and
// the scoped slot key (both bound to the seal).
const entryHead = 8 + len(Key{})

var crcTable = crc32.MakeTable(crc32.Castagnoli)

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
	// top is the cache directory, root its format directory.
	top, root *os.Root
	maxBytes  int64
	identity  string

	mu sync.Mutex
	// slots are the copies of every slot's variants in the packs, by
	// scoped slot key, most recently used first.
	slots map[Key][]*copyOf
	// packs are earlier runs' packs, as Open found them, newest first.
	packs []*pack
	// own is this run's pack (nil until the run writes), end the offset of
	// its next entry, and index its entries in the order written.
	own   *pack
	end   int64
	index []indexEntry
	wrote bool
	stats Stats
}

// copyOf is where a variant of a slot is stored.
type copyOf struct {
	pack    *pack
	variant Key
	off, n  int64
	bad     bool // read back damaged in this run
}

// Stats count what a run found and wrote.
type Stats struct {
	Hits, Misses, Writes, Corrupt int
	// Copied is how many entries found in earlier runs' packs were copied
	// into this run's pack.
	Copied int
	// Evicted is how many entries eviction removed (with their packs).
	Evicted int
}

// Open opens (creating it when needed) the cache directory dir and reads
// the indexes of the packs there. dir itself may be a link (the user's
// choice); nothing below it is followed.
func Open(dir string, opts Options) (*Store, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	top, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	if err := top.Mkdir(formatDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		_ = top.Close()
		return nil, err
	}
	root, err := openDir(top, formatDir)
	if err != nil {
		_ = top.Close()
		return nil, fmt.Errorf("the cache's format directory %s: %w", formatDir, err)
	}
	tagFile(top)
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	s := &Store{top: top, root: root, maxBytes: opts.MaxBytes, identity: opts.Identity, slots: map[Key][]*copyOf{}}
	listing, err := listDir(root)
	if err != nil {
		return nil, err
	}
	for _, p := range listing.indexed() {
		entries, err := readIndex(p, p.packSize)
		if err != nil {
			// A damaged index: its pack cannot be read.
			p.remove()
			continue
		}
		p.entries = len(entries)
		s.packs = append(s.packs, p)
		// Newest first: the pack's entries last written first.
		for _, e := range slices.Backward(entries) {
			s.slots[e.slot] = append(s.slots[e.slot], &copyOf{pack: p, variant: e.variant, off: e.off, n: e.n})
		}
	}
	return s, nil
}

// tagName marks the directory as a cache for backup tools
// (https://bford.info/cachedir/), tagMagic starts it.
const tagName = "CACHEDIR.TAG"

var tagMagic = []byte("Signature: 8a477f597d28d172789f06886806bc55\n")

// tagFile writes CACHEDIR.TAG when there is nothing of that name (a link
// there is left alone, never written through); best effort.
func tagFile(top *os.Root) {
	if _, err := top.Lstat(tagName); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	_ = writeReplacing(top, tagName, append(slices.Clip(tagMagic), "# This directory is plumb's cache (https://github.com/plumb-ci/plumb); it can be deleted at any time.\n"...))
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

// scoped is a slot's key scoped by the store's identity and the namespace:
// what the directory holds of it.
func (s *Store) scoped(ns string, slot Key) Key {
	return NewHasher("slot").String(s.identity).String(ns).Key(slot).Sum()
}

// sealKey is what a slot's entries are sealed under: another digest of the
// slot key, which the directory never holds.
func (s *Store) sealKey(ns string, slot Key) Key {
	return NewHasher("seal").String(s.identity).String(ns).Key(slot).Sum()
}

// Lookup tries the variants of a slot, most recently used first, and
// returns true at the first whose payload accept takes. A copy that does
// not read back whole is a miss (an older copy of the variant is tried).
// A variant taken from an earlier run's pack is copied into this run's.
func (s *Store) Lookup(ns string, slot Key, accept func(payload []byte) bool) bool {
	scoped, key := s.scoped(ns, slot), s.sealKey(ns, slot)
	head := entryHeadOf(scoped)
	s.mu.Lock()
	copies := slices.Clone(s.slots[scoped])
	s.mu.Unlock()
	var tried []Key
	for _, c := range copies {
		if len(tried) == maxVariants {
			break
		}
		if c.bad || slices.Contains(tried, c.variant) {
			continue
		}
		data, err := c.pack.read(c.off, c.n, head)
		if err != nil && !errors.Is(err, errBadIndex) {
			continue // a pack removed meanwhile, or unreadable: a miss
		}
		var payload []byte
		ok := err == nil
		if ok {
			payload, ok = unframe(data, head, key)
		}
		if !ok {
			s.mu.Lock()
			c.bad = true
			s.stats.Corrupt++
			s.mu.Unlock()
			continue
		}
		tried = append(tried, c.variant)
		if accept(payload) {
			s.count(func(st *Stats) { st.Hits++ })
			if c.pack != s.ownPack() && !redact.Process().Contains(payload) {
				if s.append(scoped, c.variant, data) == nil {
					s.count(func(st *Stats) { st.Copied++ })
				}
			}
			return true
		}
	}
	s.count(func(st *Stats) { st.Misses++ })
	return false
}

func (s *Store) ownPack() *pack {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.own
}

// errTooLarge refuses an entry over maxEntryBytes.
var errTooLarge = errors.New("cache entry too large")

// Put stores a variant of a slot. An error leaves the cache as it was (a
// failed write is only a later miss).
func (s *Store) Put(ns string, slot, variant Key, payload []byte) error {
	if len(payload) > maxEntryBytes-minEntryBytes {
		return errTooLarge
	}
	// Judged before sealing: whoever has an entry's inputs can unseal it.
	if redact.Process().Contains(payload) {
		return errHoldsToken
	}
	scoped := s.scoped(ns, slot)
	if err := s.append(scoped, variant, frame(payload, scoped, s.sealKey(ns, slot))); err != nil {
		return err
	}
	s.count(func(st *Stats) { st.Writes++ })
	return nil
}

// append writes a framed entry at the end of this run's pack (created on
// the first write) and makes it the slot's most recently used copy of the
// variant. Writers in parallel each reserve their range first.
func (s *Store) append(scoped, variant Key, framed []byte) error {
	return s.appendTo(scoped, variant, framed, false)
}

func (s *Store) appendTo(scoped, variant Key, framed []byte, retried bool) error {
	s.mu.Lock()
	if s.own == nil {
		p, err := createPack(s.root)
		if err != nil {
			s.mu.Unlock()
			return err
		}
		s.own, s.end = p, int64(len(packMagic))
	}
	p, off := s.own, s.end
	s.end += int64(len(framed))
	s.mu.Unlock()
	if err := p.write(framed, off); err != nil {
		if errors.Is(err, fs.ErrNotExist) && !retried {
			// Another run evicted the pack after an earlier Finish
			// published it: start another.
			s.forgetOwn(p)
			return s.appendTo(scoped, variant, framed, true)
		}
		return err // the range stays unindexed: never read
	}
	c := &copyOf{pack: p, variant: variant, off: off, n: int64(len(framed))}
	s.mu.Lock()
	s.index = append(s.index, indexEntry{slot: scoped, variant: variant, off: off, n: c.n})
	s.slots[scoped] = slices.Insert(s.slots[scoped], 0, c)
	s.wrote = true
	s.mu.Unlock()
	return nil
}

// errHoldsToken refuses an entry that holds a form of a token the process
// knows (redact.Process): it is not stored, rather than stored redacted,
// so that a later run renders afresh instead of reading a value that is
// not what its inputs hold. A token only gets into an entry through the
// repository's content (a generator reading .git/config), which changes
// with the token on every job anyway.
var errHoldsToken = errors.New("the entry holds a token of the environment: not stored")

// forgetOwn drops this run's pack p, which another run removed (its
// entries are gone with it), unless it was dropped already.
func (s *Store) forgetOwn(p *pack) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.own == p {
		s.own, s.end, s.index = nil, 0, nil
	}
}

// entryHeadOf is the framing every entry of a scoped slot starts with.
func entryHeadOf(scoped Key) []byte {
	head := make([]byte, 0, entryHead)
	head = append(head, magic...)
	return append(head, scoped[:]...)
}

// frame wraps a payload: magic, the scoped slot key, then the payload
// sealed under key with the two before it bound to the seal.
func frame(payload []byte, scoped, key Key) []byte {
	head := entryHeadOf(scoped)
	out := make([]byte, 0, entryHead+len(payload)+SealOverhead)
	out = append(out, head...)
	return Seal(out, key, payload, head)
}

// unframe checks an entry's framing (head: entryHeadOf its slot) and opens
// its payload.
func unframe(data, head []byte, key Key) ([]byte, bool) {
	if len(data) < minEntryBytes || !bytes.Equal(data[:entryHead], head) {
		return nil, false
	}
	return Unseal(key, data[entryHead:], head)
}
