package cache

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// A pack is one run's entries, framed one after another in the order the
// run wrote them (<id>.pack), with an index of them (<id>.idx) written when
// the run finishes. The id (the time the pack was made and random bytes)
// is unique to the run, so a pack has a single writer. An index lists
// each entry's scoped slot key, variant key, offset and length, and ends
// with a CRC-32C of itself; it is renamed into place whole.
type pack struct {
	id                  string
	packPath, indexPath string
	hasPack, hasIndex   bool
	mod                 time.Time // the index's: when the run that wrote it finished
	packMod             time.Time
	packSize, indexSize int64
	entries             int
	mu                  sync.Mutex
	f                   *os.File // open for reading, or for writing this run's
	writable            bool
}

// indexEntry is an entry as its pack's index lists it.
type indexEntry struct {
	slot, variant Key
	off, n        int64
}

const (
	packSuffix  = ".pack"
	indexSuffix = ".idx"
	// indexEntrySize is an entry's size in an index: two keys, offset and
	// length.
	indexEntrySize = 2*len(Key{}) + 16
)

// indexMagic starts every index.
var indexMagic = []byte("PLUMBI2\n")

// createPack makes this run's pack in dir.
func createPack(dir string) (*pack, error) {
	var r [8]byte
	if _, err := rand.Read(r[:]); err != nil {
		return nil, err
	}
	id := fmt.Sprintf("%016x-%s", time.Now().UnixNano(), hex.EncodeToString(r[:]))
	p := newPack(dir, id)
	f, err := os.OpenFile(p.packPath, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	p.f, p.writable, p.hasPack = f, true, true
	return p, nil
}

func newPack(dir, id string) *pack {
	return &pack{id: id, packPath: filepath.Join(dir, id+packSuffix), indexPath: filepath.Join(dir, id+indexSuffix)}
}

// file is the pack's open file (opened for reading on first use).
func (p *pack) file() (*os.File, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f == nil {
		flag := os.O_RDONLY
		if p.writable {
			flag = os.O_RDWR
		}
		f, err := os.OpenFile(p.packPath, flag, 0)
		if err != nil {
			return nil, err
		}
		p.f = f
	}
	return p.f, nil
}

// read returns the n bytes at off, in a buffer of their own (a payload
// handed out may be kept by its reader).
func (p *pack) read(off, n int64) ([]byte, error) {
	f, err := p.file()
	if err != nil {
		return nil, err
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil {
		return nil, err
	}
	return buf, nil
}

// write writes data at off in this run's pack.
func (p *pack) write(data []byte, off int64) error {
	f, err := p.file()
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, off)
	return err
}

// close closes the pack's file; a later read or write opens it again.
func (p *pack) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f != nil {
		_ = p.f.Close()
		p.f = nil
	}
}

// remove deletes the pack: its index first, so that no reader finds an
// index whose pack is gone.
func (p *pack) remove() bool {
	p.close()
	ok := true
	if p.hasIndex {
		ok = os.Remove(p.indexPath) == nil
	}
	if p.hasPack {
		ok = os.Remove(p.packPath) == nil && ok
	}
	return ok
}

// size is what the pack takes on disk.
func (p *pack) size() int64 { return p.packSize + p.indexSize }

// writeIndex writes the index of entries for p, replacing the one an
// earlier Finish of the run wrote.
func writeIndex(dir string, p *pack, entries []indexEntry) error {
	buf := make([]byte, 0, len(indexMagic)+binary.MaxVarintLen64+len(entries)*indexEntrySize+4)
	buf = append(buf, indexMagic...)
	buf = binary.AppendUvarint(buf, uint64(len(entries)))
	for _, e := range entries {
		buf = append(buf, e.slot[:]...)
		buf = append(buf, e.variant[:]...)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(e.off))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(e.n))
	}
	buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf, crcTable))
	f, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(buf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p.indexPath)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	p.hasIndex = true
	return nil
}

var errBadIndex = errors.New("damaged cache index")

// readIndex reads and checks an index.
func readIndex(path string) ([]indexEntry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) < len(indexMagic)+4 || !bytes.HasPrefix(data, indexMagic) ||
		crc32.Checksum(data[:len(data)-4], crcTable) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, errBadIndex
	}
	body := data[len(indexMagic) : len(data)-4]
	count, w := binary.Uvarint(body)
	if w <= 0 || uint64(len(body)-w) != count*uint64(indexEntrySize) {
		return nil, errBadIndex
	}
	body = body[w:]
	entries := make([]indexEntry, count)
	for i := range entries {
		e := body[i*indexEntrySize:]
		copy(entries[i].slot[:], e)
		copy(entries[i].variant[:], e[len(Key{}):])
		entries[i].off = int64(binary.LittleEndian.Uint64(e[2*len(Key{}):]))
		entries[i].n = int64(binary.LittleEndian.Uint64(e[2*len(Key{})+8:]))
		if entries[i].off < 0 || entries[i].n < 0 {
			return nil, errBadIndex
		}
	}
	return entries, nil
}

// listing is what a format directory holds: packs (with their index or
// not) and temporary files.
type listing struct {
	packs map[string]*pack
	temps []string
	// tempMods are the temporary files' modification times.
	tempMods []time.Time
}

// listDir lists a format directory.
func listDir(dir string) (*listing, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	l := &listing{packs: map[string]*pack{}}
	get := func(id string) *pack {
		p := l.packs[id]
		if p == nil {
			p = newPack(dir, id)
			l.packs[id] = p
		}
		return p
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		name := e.Name()
		switch {
		case strings.HasPrefix(name, tempPrefix):
			l.temps = append(l.temps, filepath.Join(dir, name))
			l.tempMods = append(l.tempMods, info.ModTime())
		case strings.HasSuffix(name, packSuffix):
			p := get(strings.TrimSuffix(name, packSuffix))
			p.hasPack, p.packSize, p.packMod = true, info.Size(), info.ModTime()
		case strings.HasSuffix(name, indexSuffix):
			p := get(strings.TrimSuffix(name, indexSuffix))
			p.hasIndex, p.indexSize, p.mod = true, info.Size(), info.ModTime()
		}
	}
	return l, nil
}

// indexed are the packs that have their index, most recently used first.
func (l *listing) indexed() []*pack {
	var out []*pack
	for _, p := range l.packs {
		if p.hasPack && p.hasIndex {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b *pack) int {
		if c := b.mod.Compare(a.mod); c != 0 {
			return c
		}
		return strings.Compare(b.id, a.id)
	})
	return out
}
