package gitrev

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
)

// maxDeltaDepth bounds delta chains (git's own default is 50, aggressive
// packing 250).
const maxDeltaDepth = 1000

// maxBaseBytes bounds the objects a delta may be applied to.
const maxBaseBytes = 1 << 30

// packFile is a pack and its version-2 index, loaded on first use.
type packFile struct {
	idxPath, packPath string

	once    sync.Once
	loadErr error
	fanout  [256]uint32
	names   []byte // sorted object ids, 20 bytes each
	offsets []uint32
	large   []uint64 // offsets of 2 GiB and more
	pack    *os.File
	packLen int64
}

func (p *packFile) load() error {
	p.once.Do(func() { p.loadErr = p.loadIndex() })
	return p.loadErr
}

func (p *packFile) loadIndex() error {
	data, err := os.ReadFile(p.idxPath)
	if err != nil {
		return err
	}
	bad := fmt.Errorf("%s: not a version 2 pack index", p.idxPath)
	if len(data) < 8+256*4 || !bytes.Equal(data[:4], []byte{0xff, 't', 'O', 'c'}) || binary.BigEndian.Uint32(data[4:8]) != 2 {
		return bad
	}
	for i := range p.fanout {
		p.fanout[i] = binary.BigEndian.Uint32(data[8+4*i:])
	}
	n := int(p.fanout[255])
	names := 8 + 256*4
	crcs := names + 20*n
	offs := crcs + 4*n
	large := offs + 4*n
	if len(data) < large+40 {
		return bad
	}
	p.names = data[names:crcs]
	p.offsets = make([]uint32, n)
	for i := range p.offsets {
		p.offsets[i] = binary.BigEndian.Uint32(data[offs+4*i:])
	}
	for i := large; i+8 <= len(data)-40; i += 8 {
		p.large = append(p.large, binary.BigEndian.Uint64(data[i:]))
	}
	f, err := os.Open(p.packPath)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	p.pack, p.packLen = f, st.Size()
	return nil
}

func (p *packFile) close() {
	if p.pack != nil {
		p.pack.Close()
	}
}

// find returns the offset of object id in the pack.
func (p *packFile) find(id oid) (int64, bool, error) {
	if err := p.load(); err != nil {
		return 0, false, err
	}
	lo := uint32(0)
	if id[0] > 0 {
		lo = p.fanout[id[0]-1]
	}
	hi := p.fanout[id[0]]
	i := lo + uint32(sort.Search(int(hi-lo), func(k int) bool {
		return bytes.Compare(p.names[20*(int(lo)+k):20*(int(lo)+k)+20], id[:]) >= 0
	}))
	if i >= hi || !bytes.Equal(p.names[20*i:20*i+20], id[:]) {
		return 0, false, nil
	}
	return p.offset(int(i))
}

func (p *packFile) offset(i int) (int64, bool, error) {
	o := p.offsets[i]
	if o&0x80000000 == 0 {
		return int64(o), true, nil
	}
	j := int(o & 0x7fffffff)
	if j >= len(p.large) {
		return 0, false, fmt.Errorf("%s: bad large offset", p.idxPath)
	}
	return int64(p.large[j]), true, nil
}

// withPrefix lists the ids of the pack that start with a hex prefix.
func (p *packFile) withPrefix(prefix string) ([]oid, error) {
	if err := p.load(); err != nil {
		return nil, err
	}
	var out []oid
	n := len(p.names) / 20
	for i := 0; i < n; i++ {
		if h := hex.EncodeToString(p.names[20*i : 20*i+20]); len(h) >= len(prefix) && h[:len(prefix)] == prefix {
			var id oid
			copy(id[:], p.names[20*i:])
			out = append(out, id)
		}
	}
	return out, nil
}

// entryHeader is the start of a pack entry.
type entryHeader struct {
	typ     objType
	size    int64 // inflated size (of the delta, for deltas)
	baseOff int64 // objOfsDelta: the base's offset
	baseID  oid   // objRefDelta: the base's id
	r       *bufio.Reader
}

func (p *packFile) header(off int64) (*entryHeader, error) {
	if off < 12 || off >= p.packLen {
		return nil, fmt.Errorf("%s: offset %d out of range", p.packPath, off)
	}
	r := bufio.NewReaderSize(io.NewSectionReader(p.pack, off, p.packLen-off), 4096)
	c, err := r.ReadByte()
	if err != nil {
		return nil, err
	}
	h := &entryHeader{typ: objType(c >> 4 & 7), size: int64(c & 15), r: r}
	for shift := 4; c&0x80 != 0; shift += 7 {
		if c, err = r.ReadByte(); err != nil {
			return nil, err
		}
		if shift > 56 {
			return nil, fmt.Errorf("%s: bad entry size at %d", p.packPath, off)
		}
		h.size |= int64(c&0x7f) << shift
	}
	switch h.typ {
	case objOfsDelta:
		if c, err = r.ReadByte(); err != nil {
			return nil, err
		}
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if c, err = r.ReadByte(); err != nil {
				return nil, err
			}
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		h.baseOff = off - rel
	case objRefDelta:
		if _, err := io.ReadFull(r, h.baseID[:]); err != nil {
			return nil, err
		}
	case objCommit, objTree, objBlob, objTag:
	default:
		return nil, fmt.Errorf("%s: unknown entry type %d at %d", p.packPath, h.typ, off)
	}
	return h, nil
}

// inflate reads an entry's compressed data, which must be size bytes.
func inflate(r io.Reader, size int64) ([]byte, error) {
	z, err := zlib.NewReader(r)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(z, data); err != nil {
		return nil, fmt.Errorf("inflating: %w", err)
	}
	return data, nil
}

// read returns the object at off, applying deltas.
func (p *packFile) read(s *objectStore, off, limit int64, depth int) (objType, []byte, error) {
	key := cacheKey{p, off}
	if typ, data, ok := s.cache.get(key); ok {
		if int64(len(data)) > limit {
			return 0, nil, tooLarge(int64(len(data)), limit)
		}
		return typ, data, nil
	}
	h, err := p.header(off)
	if err != nil {
		return 0, nil, err
	}
	if h.typ != objOfsDelta && h.typ != objRefDelta {
		if h.size > limit {
			return 0, nil, tooLarge(h.size, limit)
		}
		data, err := inflate(h.r, h.size)
		if err != nil {
			return 0, nil, fmt.Errorf("%s at %d: %w", p.packPath, off, err)
		}
		s.cache.put(key, h.typ, data)
		return h.typ, data, nil
	}
	if depth > maxDeltaDepth {
		return 0, nil, fmt.Errorf("%s: delta chain longer than %d", p.packPath, maxDeltaDepth)
	}
	delta, err := inflate(h.r, h.size)
	if err != nil {
		return 0, nil, fmt.Errorf("%s at %d: %w", p.packPath, off, err)
	}
	if _, dst, _, err := deltaSizes(delta); err != nil {
		return 0, nil, err
	} else if dst > limit {
		return 0, nil, tooLarge(dst, limit)
	}
	var baseType objType
	var base []byte
	if h.typ == objOfsDelta {
		baseType, base, err = p.read(s, h.baseOff, maxBaseBytes, depth+1)
	} else {
		baseType, base, err = s.readBase(h.baseID, depth+1)
	}
	if err != nil {
		return 0, nil, err
	}
	data, err := applyDelta(base, delta)
	if err != nil {
		return 0, nil, fmt.Errorf("%s at %d: %w", p.packPath, off, err)
	}
	s.cache.put(key, baseType, data)
	return baseType, data, nil
}

// readBase reads the base of a ref-delta (in any pack, or loose).
func (s *objectStore) readBase(id oid, depth int) (objType, []byte, error) {
	for _, p := range s.packs {
		off, ok, err := p.find(id)
		if err != nil {
			return 0, nil, err
		}
		if ok {
			return p.read(s, off, maxBaseBytes, depth)
		}
	}
	return s.read(id, maxBaseBytes)
}

// size returns the size of the object at off: from the entry header, or
// for a delta from the start of the delta data.
func (p *packFile) size(off int64) (int64, error) {
	h, err := p.header(off)
	if err != nil {
		return 0, err
	}
	if h.typ != objOfsDelta && h.typ != objRefDelta {
		return h.size, nil
	}
	z, err := zlib.NewReader(h.r)
	if err != nil {
		return 0, err
	}
	defer z.Close()
	start := make([]byte, min(h.size, 20))
	if _, err := io.ReadFull(z, start); err != nil {
		return 0, err
	}
	_, dst, _, err := deltaSizes(start)
	return dst, err
}

// deltaSizes reads the two sizes that start a delta: of the base and of the
// result; n is the number of bytes they take.
func deltaSizes(delta []byte) (src, dst int64, n int, err error) {
	src, a := uvarint(delta)
	dst, b := uvarint(delta[max(a, 0):])
	if a <= 0 || b <= 0 {
		return 0, 0, 0, errors.New("bad delta header")
	}
	return src, dst, a + b, nil
}

// uvarint reads git's little-endian base-128 size.
func uvarint(b []byte) (int64, int) {
	var v int64
	for i, c := range b {
		if i > 9 {
			return 0, -1
		}
		v |= int64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, -1
}

// applyDelta rebuilds an object from its base and a delta: copy and insert
// instructions.
func applyDelta(base, delta []byte) ([]byte, error) {
	src, dst, n, err := deltaSizes(delta)
	if err != nil {
		return nil, err
	}
	if src != int64(len(base)) {
		return nil, fmt.Errorf("delta expects a %d-byte base, got %d", src, len(base))
	}
	out := make([]byte, 0, dst)
	d := delta[n:]
	for len(d) > 0 {
		cmd := d[0]
		d = d[1:]
		switch {
		case cmd&0x80 != 0:
			var off, size uint64
			for i := uint(0); i < 4; i++ {
				if cmd&(1<<i) != 0 {
					if len(d) == 0 {
						return nil, errors.New("truncated delta")
					}
					off |= uint64(d[0]) << (8 * i)
					d = d[1:]
				}
			}
			for i := uint(0); i < 3; i++ {
				if cmd&(0x10<<i) != 0 {
					if len(d) == 0 {
						return nil, errors.New("truncated delta")
					}
					size |= uint64(d[0]) << (8 * i)
					d = d[1:]
				}
			}
			if size == 0 {
				size = 0x10000
			}
			if off+size > uint64(len(base)) || int64(len(out))+int64(size) > dst {
				return nil, errors.New("delta copies out of range")
			}
			out = append(out, base[off:off+size]...)
		case cmd != 0:
			if int(cmd) > len(d) || int64(len(out))+int64(cmd) > dst {
				return nil, errors.New("truncated delta")
			}
			out = append(out, d[:cmd]...)
			d = d[cmd:]
		default:
			return nil, errors.New("bad delta instruction 0")
		}
	}
	if int64(len(out)) != dst {
		return nil, fmt.Errorf("delta gave %d bytes, expected %d", len(out), dst)
	}
	return out, nil
}
