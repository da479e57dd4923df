package cache

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"slices"
)

// A pack's index lists each entry's scoped slot key, variant key, offset
// and length, and ends with a CRC-32C of itself; it is written to a
// temporary file and renamed into place whole. An index is read as
// untrusted input: a count, an offset or a length the pack cannot hold (an
// entry past the pack's end, overlapping another, shorter than an entry's
// framing or longer than any entry plumb writes; a count the file cannot
// hold) makes the whole index damaged — its pack is not read, a miss —
// and nothing is allocated for what the file does not hold.

// indexEntry is an entry as its pack's index lists it.
type indexEntry struct {
	slot, variant Key
	off, n        int64
}

// indexEntrySize is an entry's size in an index: two keys, offset and
// length.
const indexEntrySize = 2*len(Key{}) + 16

// indexMagic starts every index.
var indexMagic = []byte("PLUMBI3\n")

// maxIndexBytes bounds the index file read (about 700,000 entries).
const maxIndexBytes = 64 << 20

// maxEntryBytes bounds an entry: Put refuses a larger payload (a later
// miss), and an index naming a larger one is damaged. The largest entries
// plumb writes are a kustomize target's build (the target's size budget is
// 64 MiB by default) and a revision's findings.
const maxEntryBytes = 256 << 20

var errBadIndex = errors.New("damaged cache index")

// encodeIndex is the content of an index of entries.
func encodeIndex(entries []indexEntry) []byte {
	buf := make([]byte, 0, len(indexMagic)+binary.MaxVarintLen64+len(entries)*indexEntrySize+4)
	buf = append(buf, indexMagic...)
	buf = binary.AppendUvarint(buf, uint64(len(entries)))
	for _, e := range entries {
		buf = append(buf, e.slot[:]...)
		buf = append(buf, e.variant[:]...)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(e.off))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(e.n))
	}
	return binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf, crcTable))
}

// writeIndex writes the index of entries for p, replacing the one an
// earlier Finish of the run wrote.
func writeIndex(p *pack, entries []indexEntry) error {
	if err := writeReplacing(p.root, p.indexName, encodeIndex(entries)); err != nil {
		return err
	}
	p.hasIndex = true
	return nil
}

// readIndex reads and checks the index of p, whose pack is packSize bytes
// long.
func readIndex(p *pack, packSize int64) ([]indexEntry, error) {
	f, info, err := openRegular(p.root, p.indexName, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() > maxIndexBytes {
		return nil, errBadIndex
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIndexBytes+1))
	if err != nil {
		return nil, err
	}
	return parseIndex(data, packSize)
}

// minEntryBytes is the smallest entry: its framing around an empty
// payload.
const minEntryBytes = entryHead + SealOverhead

// parseIndex checks an index's content against its pack's size and
// returns its entries.
func parseIndex(data []byte, packSize int64) ([]indexEntry, error) {
	if len(data) < len(indexMagic)+4 || !bytes.HasPrefix(data, indexMagic) ||
		crc32.Checksum(data[:len(data)-4], crcTable) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, errBadIndex
	}
	body := data[len(indexMagic) : len(data)-4]
	count, w := binary.Uvarint(body)
	if w <= 0 {
		return nil, errBadIndex
	}
	body = body[w:]
	// The count is checked by division: count*indexEntrySize can wrap.
	if count != uint64(len(body))/uint64(indexEntrySize) || uint64(len(body))%uint64(indexEntrySize) != 0 {
		return nil, errBadIndex
	}
	entries := make([]indexEntry, count)
	for i := range entries {
		e := body[i*indexEntrySize:]
		copy(entries[i].slot[:], e)
		copy(entries[i].variant[:], e[len(Key{}):])
		off := binary.LittleEndian.Uint64(e[2*len(Key{}):])
		n := binary.LittleEndian.Uint64(e[2*len(Key{})+8:])
		// Within the pack, after its magic: compared unsigned, and
		// without a sum that can wrap.
		if off < uint64(len(packMagic)) || n < uint64(minEntryBytes) || n > maxEntryBytes ||
			packSize < 0 || off > uint64(packSize) || n > uint64(packSize)-off {
			return nil, errBadIndex
		}
		entries[i].off, entries[i].n = int64(off), int64(n)
	}
	// Entries do not overlap (a run reserves each its own range).
	byOffset := slices.Clone(entries)
	slices.SortFunc(byOffset, func(a, b indexEntry) int {
		switch {
		case a.off < b.off:
			return -1
		case a.off > b.off:
			return 1
		}
		return 0
	})
	for i := 1; i < len(byOffset); i++ {
		if byOffset[i-1].off+byOffset[i-1].n > byOffset[i].off {
			return nil, errBadIndex
		}
	}
	return entries, nil
}
