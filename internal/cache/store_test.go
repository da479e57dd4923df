package cache

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func key(s string) Key { return NewHasher("test").String(s).Sum() }

func open(t *testing.T, dir string, opts Options) *Store {
	t.Helper()
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// lookup returns the payload the store gives for a slot (nil for a miss),
// accepting the first variant whose payload starts with want.
func lookup(s *Store, ns string, slot Key, want string) []byte {
	var got []byte
	s.Lookup(ns, slot, func(p []byte) bool {
		if !bytes.HasPrefix(p, []byte(want)) {
			return false
		}
		got = bytes.Clone(p)
		return true
	})
	return got
}

func TestPutLookup(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{Identity: "a"})
	if got := lookup(s, "ns", key("slot"), ""); got != nil {
		t.Fatalf("empty cache gave %q", got)
	}
	if err := s.Put("ns", key("slot"), key("v1"), []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := s.Put("ns", key("slot"), key("v2"), []byte("two")); err != nil {
		t.Fatal(err)
	}
	if got := lookup(s, "ns", key("slot"), "one"); string(got) != "one" {
		t.Errorf("variant one: got %q", got)
	}
	if got := lookup(s, "ns", key("slot"), "two"); string(got) != "two" {
		t.Errorf("variant two: got %q", got)
	}
	if got := lookup(s, "other", key("slot"), ""); got != nil {
		t.Errorf("another namespace gave %q", got)
	}
	if got := lookup(s, "ns", key("other"), ""); got != nil {
		t.Errorf("another slot gave %q", got)
	}
	// Another build of plumb never reads these entries.
	if got := lookup(open(t, dir, Options{Identity: "b"}), "ns", key("slot"), ""); got != nil {
		t.Errorf("another identity gave %q", got)
	}
	st := s.Stats()
	if st.Writes != 2 || st.Hits != 2 || st.Misses != 3 {
		t.Errorf("stats %+v, want 2 writes, 2 hits, 3 misses", st)
	}
}

func TestFilesArePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	s := open(t, dir, Options{})
	if err := s.Put("ns", key("slot"), key("v"), []byte("secret-ish")); err != nil {
		t.Fatal(err)
	}
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v: group and others can read it", p, info.Mode().Perm())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "CACHEDIR.TAG")); err != nil {
		t.Errorf("no CACHEDIR.TAG: %v", err)
	}
}

// entryFiles lists the entry files under dir.
func entryFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() && info.Name() != "CACHEDIR.TAG" {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A damaged entry is a miss and is removed, whatever the damage.
func TestCorruptEntryIsAMiss(t *testing.T) {
	payload := []byte(strings.Repeat("payload ", 20))
	for _, damage := range []struct {
		name string
		f    func([]byte) []byte
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)/2] }},
		{"empty", func([]byte) []byte { return nil }},
		{"bit flipped", func(b []byte) []byte { b[len(b)/2] ^= 1; return b }},
		{"checksum changed", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }},
		{"another format", func(b []byte) []byte { b[0] = 'X'; return b }},
		{"appended", func(b []byte) []byte { return append(b, 0) }},
	} {
		t.Run(damage.name, func(t *testing.T) {
			dir := t.TempDir()
			s := open(t, dir, Options{})
			if err := s.Put("ns", key("slot"), key("v"), payload); err != nil {
				t.Fatal(err)
			}
			files := entryFiles(t, dir)
			if len(files) != 1 {
				t.Fatalf("%d entry files, want 1", len(files))
			}
			data, _ := os.ReadFile(files[0])
			if err := os.WriteFile(files[0], damage.f(data), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := lookup(s, "ns", key("slot"), ""); got != nil {
				t.Fatalf("a damaged entry was taken: %q", got)
			}
			if len(entryFiles(t, dir)) != 0 {
				t.Error("the damaged entry was not removed")
			}
			if s.Stats().Corrupt != 1 {
				t.Errorf("stats %+v, want 1 corrupt", s.Stats())
			}
		})
	}
}

// An entry moved to another slot's place is not taken for that slot.
func TestEntryInTheWrongSlot(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{})
	if err := s.Put("ns", key("a"), key("v"), []byte("a's")); err != nil {
		t.Fatal(err)
	}
	if err := s.Put("ns", key("b"), key("v"), []byte("b's")); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(s.entryFile("ns", key("a"), key("v")))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.entryFile("ns", key("b"), key("v")), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := lookup(s, "ns", key("b"), ""); got != nil {
		t.Fatalf("slot b gave slot a's entry %q", got)
	}
}

func TestVariantsPerSlotAreBounded(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{})
	old := time.Now().Add(-time.Hour)
	for i := 0; i < maxVariants+3; i++ {
		if err := s.Put("ns", key("slot"), key(fmt.Sprint(i)), []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
		// Entries of earlier runs: not protected as this run's.
		f := s.entryFile("ns", key("slot"), key(fmt.Sprint(i)))
		_ = os.Chtimes(f, old.Add(time.Duration(i)*time.Minute), old.Add(time.Duration(i)*time.Minute))
		delete(s.used, f)
	}
	if n := len(entryFiles(t, dir)); n != maxVariants {
		t.Errorf("%d variants kept, want %d", n, maxVariants)
	}
	// The newest stay.
	if got := lookup(s, "ns", key("slot"), fmt.Sprint(maxVariants+2)); got == nil {
		t.Error("the newest variant was removed")
	}
	if got := lookup(s, "ns", key("slot"), "0"); got != nil {
		t.Error("the oldest variant was kept")
	}
}

func TestEvictionKeepsRecentAndThisRun(t *testing.T) {
	dir := t.TempDir()
	payload := bytes.Repeat([]byte("x"), 1000)
	earlier := open(t, dir, Options{MaxBytes: 1 << 30})
	for i := 0; i < 20; i++ {
		if err := earlier.Put("ns", key(fmt.Sprint(i)), key("v"), payload); err != nil {
			t.Fatal(err)
		}
	}
	// Ages: slot i was last used i minutes after a start an hour ago.
	start := time.Now().Add(-time.Hour)
	for i := 0; i < 20; i++ {
		at := start.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(earlier.entryFile("ns", key(fmt.Sprint(i)), key("v")), at, at); err != nil {
			t.Fatal(err)
		}
	}
	// A later run with room for about 10 entries uses the oldest one and
	// writes one.
	run := open(t, dir, Options{MaxBytes: 10 * 1100})
	if lookup(run, "ns", key("0"), "") == nil {
		t.Fatal("slot 0 missing")
	}
	if err := run.Put("ns", key("new"), key("v"), payload); err != nil {
		t.Fatal(err)
	}
	if err := run.Finish(); err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, f := range entryFiles(t, dir) {
		st, _ := os.Stat(f)
		total += st.Size()
	}
	if total > 10*1100 {
		t.Errorf("%d bytes left, want at most %d", total, 10*1100)
	}
	check := open(t, dir, Options{})
	for _, want := range []struct {
		slot string
		kept bool
	}{{"0", true}, {"new", true}, {"19", true}, {"1", false}, {"5", false}} {
		if got := lookup(check, "ns", key(want.slot), "") != nil; got != want.kept {
			t.Errorf("slot %s kept = %v, want %v", want.slot, got, want.kept)
		}
	}
	if run.Stats().Evicted == 0 {
		t.Error("nothing counted as evicted")
	}
}

func TestFinishRemovesAbandonedTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, Options{})
	if err := s.Put("ns", key("slot"), key("v"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	d, _, _ := s.slotDir("ns", key("slot"))
	stale, fresh := filepath.Join(d, tempPrefix+"stale"), filepath.Join(d, tempPrefix+"fresh")
	for _, f := range []string{stale, fresh} {
		if err := os.WriteFile(f, []byte("half an entry"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * staleTemp)
	_ = os.Chtimes(stale, old, old)
	if err := s.Finish(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("an abandoned temporary file stayed")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("a temporary file being written was removed")
	}
}

// Writers and readers in parallel, in one process or several sharing the
// directory, only ever see whole entries.
func TestConcurrentWritersAndReaders(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		s := open(t, dir, Options{MaxBytes: 64 << 10})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				slot := key(fmt.Sprint(i % 5))
				want := bytes.Repeat([]byte{byte(i % 5)}, 2000+i%5)
				if err := s.Put("ns", slot, key(fmt.Sprint(i%5)), want); err != nil {
					t.Error(err)
					return
				}
				s.Lookup("ns", slot, func(p []byte) bool {
					if !bytes.Equal(p, want) {
						t.Errorf("slot %d: read %d bytes that are not what was written", i%5, len(p))
					}
					return true
				})
				if i%10 == 0 {
					if err := s.Finish(); err != nil {
						t.Error(err)
					}
				}
			}
		}()
	}
	wg.Wait()
}

// TestSlotsSharingADirectory puts more slots than there are directories
// per namespace, so that some share one: each slot finds only its own
// variants.
func TestSlotsSharingADirectory(t *testing.T) {
	s := open(t, t.TempDir(), Options{})
	const slots = 100
	for i := 0; i < slots; i++ {
		if err := s.Put("ns", key(fmt.Sprint(i)), key("v"), []byte(fmt.Sprint(i, "/"))); err != nil {
			t.Fatal(err)
		}
	}
	dirs := map[string]int{}
	for i := 0; i < slots; i++ {
		d, _, _ := s.slotDir("ns", key(fmt.Sprint(i)))
		dirs[d]++
		if got := lookup(s, "ns", key(fmt.Sprint(i)), ""); string(got) != fmt.Sprint(i, "/") {
			t.Fatalf("slot %d: got %q", i, got)
		}
	}
	if len(dirs) > 16 {
		t.Errorf("%d slots in %d directories: want them shared among at most 16", slots, len(dirs))
	}
}
