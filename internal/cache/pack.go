package cache

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// A pack is one run's entries, framed one after another in the order the
// run wrote them after the pack's magic (<id>.pack), with an index of them
// (<id>.idx, index.go) written when the run finishes. The id (the time the
// pack was made and random bytes, in hex) is unique to the run, so a pack
// has a single writer.
type pack struct {
	root                *os.Root // the format directory
	id                  string
	packName, indexName string
	hasPack, hasIndex   bool
	mod                 time.Time // the index's: when the run that wrote it finished
	packMod             time.Time
	packSize, indexSize int64
	entries             int
	mu                  sync.Mutex
	f                   *os.File // open for reading, or for writing this run's
	size                int64    // the open file's size when it was opened to read
	writable            bool
}

const (
	packSuffix  = ".pack"
	indexSuffix = ".idx"
)

// packMagic starts every pack: a pack is plumb's from the moment it is
// created.
var packMagic = []byte("PLUMBP3\n")

// The names and magic of the files plumb writes in its format directory.
var (
	packKind  = ownKind{name: regexp.MustCompile(`^[0-9a-f]{16}-[0-9a-f]{16}\.pack$`), magic: packMagic, empty: true}
	indexKind = ownKind{name: regexp.MustCompile(`^[0-9a-f]{16}-[0-9a-f]{16}\.idx$`), magic: indexMagic}
	// A temporary file is an index being written, or CACHEDIR.TAG.
	tempIndexKind = ownKind{name: regexp.MustCompile(`^\.tmp-[0-9a-f]{16}$`), magic: indexMagic, empty: true}
	tempTagKind   = ownKind{name: tempIndexKind.name, magic: tagMagic, empty: true}
)

// createPack makes this run's pack in the format directory root.
func createPack(root *os.Root) (*pack, error) {
	var r [8]byte
	if _, err := rand.Read(r[:]); err != nil {
		return nil, err
	}
	id := fmt.Sprintf("%016x-%s", time.Now().UnixNano(), hex.EncodeToString(r[:]))
	p := newPack(root, id)
	f, err := root.OpenFile(p.packName, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.WriteAt(packMagic, 0); err != nil {
		_ = f.Close()
		_ = root.Remove(p.packName)
		return nil, err
	}
	p.f, p.writable, p.hasPack = f, true, true
	return p, nil
}

func newPack(root *os.Root, id string) *pack {
	return &pack{root: root, id: id, packName: id + packSuffix, indexName: id + indexSuffix}
}

// file is the pack's open file (opened for reading on first use, when it
// is a regular file of plumb's), and its size when it was opened.
func (p *pack) file() (*os.File, int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.f == nil {
		flag := os.O_RDONLY
		if p.writable {
			flag = os.O_RDWR
		}
		f, info, err := openRegular(p.root, p.packName, flag)
		if err != nil {
			return nil, 0, err
		}
		p.f, p.size = f, info.Size()
	}
	return p.f, p.size, nil
}

// headCheck is the size from which an entry's head is read and checked
// before the whole entry is: a damaged index can name a length up to
// maxEntryBytes.
const headCheck = 1 << 20

// read returns the n bytes at off, in a buffer of their own (a payload
// handed out may be kept by its reader). An entry of a pack read (not this
// run's) must lie within the file; a large one must start with the
// framing its slot's entries have (head) before it is read whole.
func (p *pack) read(off, n int64, head []byte) ([]byte, error) {
	f, size, err := p.file()
	if err != nil {
		return nil, err
	}
	if !p.writable && (off < 0 || n < 0 || off > size || n > size-off) {
		return nil, errBadIndex
	}
	if n >= headCheck {
		got := make([]byte, len(head))
		if _, err := f.ReadAt(got, off); err != nil {
			return nil, err
		}
		if string(got) != string(head) {
			return nil, errBadIndex
		}
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil {
		return nil, err
	}
	return buf, nil
}

// write writes data at off in this run's pack.
func (p *pack) write(data []byte, off int64) error {
	f, _, err := p.file()
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
// index whose pack is gone. Only what is plumb's goes (files.go): a file
// of another kind under an index's or a pack's name stays (and is never
// read), and makes remove false.
func (p *pack) remove() bool {
	p.close()
	ok := true
	if p.hasIndex {
		ok = indexKind.remove(p.root, p.indexName)
	}
	if p.hasPack {
		ok = packKind.remove(p.root, p.packName) && ok
	}
	return ok
}

// removeIndex deletes the pack's index alone (its pack is gone).
func (p *pack) removeIndex() bool {
	return indexKind.remove(p.root, p.indexName)
}

// diskSize is what the pack takes on disk.
func (p *pack) diskSize() int64 { return p.packSize + p.indexSize }

// listing is what a format directory holds: packs (with their index or
// not) and temporary files, by plumb's names; nothing else is looked at.
type listing struct {
	packs map[string]*pack
	temps []string
	// tempMods are the temporary files' modification times.
	tempMods []time.Time
}

// listDir lists the format directory root.
func listDir(root *os.Root) (*listing, error) {
	d, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	entries, err := d.ReadDir(-1)
	_ = d.Close()
	if err != nil {
		return nil, err
	}
	l := &listing{packs: map[string]*pack{}}
	get := func(id string) *pack {
		p := l.packs[id]
		if p == nil {
			p = newPack(root, id)
			l.packs[id] = p
		}
		return p
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		name := e.Name()
		isPack, isIndex, isTemp := packKind.name.MatchString(name), indexKind.name.MatchString(name), tempIndexKind.name.MatchString(name)
		if !isPack && !isIndex && !isTemp {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		switch {
		case isTemp:
			l.temps = append(l.temps, name)
			l.tempMods = append(l.tempMods, info.ModTime())
		case isPack:
			p := get(strings.TrimSuffix(name, packSuffix))
			p.hasPack, p.packSize, p.packMod = true, info.Size(), info.ModTime()
		case isIndex:
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

// packGone reports whether the pack file of p does not exist.
func (p *pack) packGone() bool {
	_, err := p.root.Lstat(p.packName)
	return errors.Is(err, fs.ErrNotExist)
}
