package cache

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"
)

// The fuzz targets read a pack's index and its entries as a damaged or
// hostile cache directory holds them (go test -fuzz FuzzIndex, FuzzEntry;
// without -fuzz they run their seeds). Whatever the bytes, reading is a
// miss or an entry plumb wrote — never a panic, an allocation the files
// cannot back, or a payload plumb did not seal for that slot.

// withCRC appends an index's checksum to body, so that mutations reach
// past the checksum into the parsing.
func withCRC(body []byte) []byte {
	out := append([]byte(nil), body...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crcTable))
}

// indexBody is an index without its checksum: the count then each entry.
func indexBody(count uint64, entries ...indexEntry) []byte {
	buf := append([]byte(nil), indexMagic...)
	buf = binary.AppendUvarint(buf, count)
	for _, e := range entries {
		buf = append(buf, e.slot[:]...)
		buf = append(buf, e.variant[:]...)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(e.off))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(e.n))
	}
	return buf
}

// fuzzPack is a pack of two entries of seeded slots, as a run writes it.
func fuzzPack(f *testing.F) (packData, idxData []byte, payloads map[Key][]byte) {
	dir := f.TempDir()
	s, err := Open(dir, Options{Identity: "fuzz"})
	if err != nil {
		f.Fatal(err)
	}
	payloads = map[Key][]byte{}
	for _, name := range []string{"a", "b"} {
		p := bytes.Repeat([]byte(name), 100)
		if err := s.Put("ns", key(name), key("v"), p); err != nil {
			f.Fatal(err)
		}
		payloads[s.scoped("ns", key(name))] = p
	}
	if err := s.Finish(); err != nil {
		f.Fatal(err)
	}
	if packData, err = os.ReadFile(filepath.Join(dir, formatDir, s.own.packName)); err != nil {
		f.Fatal(err)
	}
	if idxData, err = os.ReadFile(filepath.Join(dir, formatDir, s.own.indexName)); err != nil {
		f.Fatal(err)
	}
	return packData, idxData, payloads
}

// absurdIndexes are index bodies with counts, offsets and lengths no pack
// holds: each is a seed of both targets.
func absurdIndexes(good []indexEntry) [][]byte {
	e := good[0]
	at := func(off, n int64) indexEntry { return indexEntry{slot: e.slot, variant: e.variant, off: off, n: n} }
	return [][]byte{
		indexBody(1<<62, good...),                      // a count the file cannot hold
		indexBody(1<<60+uint64(len(good)), good...),    // a count whose size wraps to the entries'
		indexBody(1, at(e.off, 5<<30)),                 // 5 GiB
		indexBody(1, at(e.off, 1<<62)),                 // 2^62
		indexBody(1, at(-1, e.n)),                      // a negative offset
		indexBody(1, at(e.off, -1)),                    // a negative length
		indexBody(1, at(1<<62, e.n)),                   // past the end
		indexBody(1, at(e.off, e.n+1)),                 // one byte past its entry
		indexBody(2, at(e.off, e.n), at(e.off+1, e.n)), // overlapping
		indexBody(1, at(0, e.n)),                       // over the pack's magic
		indexBody(1, at(e.off, 1)),                     // shorter than a framing
	}
}

func FuzzIndex(f *testing.F) {
	packData, idxData, _ := fuzzPack(f)
	good, err := parseIndex(idxData, int64(len(packData)))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(idxData[:len(idxData)-4], int64(len(packData)))
	for _, body := range absurdIndexes(good) {
		f.Add(body, int64(len(packData)))
	}
	f.Add([]byte{}, int64(0))
	f.Add(indexMagic, int64(-1))
	f.Fuzz(func(t *testing.T, body []byte, packSize int64) {
		for _, data := range [][]byte{body, withCRC(body)} {
			entries, err := parseIndex(data, packSize)
			if err != nil {
				continue
			}
			var end int64
			for _, e := range entries {
				if e.off < int64(len(packMagic)) || e.n < int64(minEntryBytes) || e.n > maxEntryBytes || e.off+e.n > packSize {
					t.Fatalf("entry at %d, %d bytes, taken from a pack of %d", e.off, e.n, packSize)
				}
				end += e.n
			}
			if end > packSize {
				t.Fatalf("entries of %d bytes in all taken from a pack of %d: they overlap", end, packSize)
			}
			again, err := parseIndex(encodeIndex(entries), packSize)
			if err != nil || len(again) != len(entries) {
				t.Fatalf("an index read back differently: %v", err)
			}
		}
	})
}

func FuzzEntry(f *testing.F) {
	packData, idxData, payloads := fuzzPack(f)
	good, err := parseIndex(idxData, int64(len(packData)))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(packData, idxData[:len(idxData)-4])
	for _, body := range absurdIndexes(good) {
		f.Add(packData, body)
	}
	// Entries swapped between slots, and a pack cut short.
	swapped := []indexEntry{good[1], good[0]}
	swapped[0].slot, swapped[1].slot = good[0].slot, good[1].slot
	f.Add(packData, indexBody(2, swapped...))
	f.Add(packData[:len(packData)/2], idxData[:len(idxData)-4])
	const id = "0000000000000001-0000000000000002"
	// One directory for every input (a new one each time costs more than
	// the reading fuzzed), emptied first.
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, pack, body []byte) {
		if err := os.RemoveAll(filepath.Join(dir, formatDir)); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, formatDir), 0o700); err != nil {
			t.Fatal(err)
		}
		for name, data := range map[string][]byte{id + packSuffix: pack, id + indexSuffix: withCRC(body)} {
			if err := os.WriteFile(filepath.Join(dir, formatDir, name), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		s, err := Open(dir, Options{Identity: "fuzz"})
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"a", "b", "c"} {
			scoped := s.scoped("ns", key(name))
			s.Lookup("ns", key(name), func(p []byte) bool {
				if want, ok := payloads[scoped]; !ok || !bytes.Equal(p, want) {
					t.Fatalf("slot %s gave %d bytes plumb did not write for it", name, len(p))
				}
				return true
			})
		}
		if err := s.Finish(); err != nil {
			t.Fatal(err)
		}
		s.top.Close()
		s.root.Close()
	})
}
