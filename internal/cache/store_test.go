package cache

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	st := s.Stats()
	if st.Writes != 2 || st.Hits != 2 || st.Misses != 3 || st.Copied != 0 {
		t.Errorf("stats %+v, want 2 writes, 2 hits, 3 misses", st)
	}
	finish(t, s)
	// A later run finds both; another build of plumb never reads them.
	later := open(t, dir, Options{Identity: "a"})
	if got := lookup(later, "ns", key("slot"), "one"); string(got) != "one" {
		t.Errorf("a later run: variant one: got %q", got)
	}
	if got := lookup(open(t, dir, Options{Identity: "b"}), "ns", key("slot"), ""); got != nil {
		t.Errorf("another identity gave %q", got)
	}
}

func TestFilesArePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	s := open(t, dir, Options{})
	if err := s.Put("ns", key("slot"), key("v"), []byte("secret-ish")); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(); err != nil {
		t.Fatal(err)
	}
	if n := len(cacheFiles(t, dir)); n != 2 {
		t.Errorf("%d files, want the run's pack and its index", n)
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

func finish(t *testing.T, s *Store) {
	t.Helper()
	if err := s.Finish(); err != nil {
		t.Fatal(err)
	}
}

// cacheFiles lists the files of the format directory under dir.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, formatDir))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, filepath.Join(dir, formatDir, e.Name()))
	}
	return out
}

// packs lists the packs under dir that have an index.
func packs(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, f := range cacheFiles(t, dir) {
		if strings.HasSuffix(f, indexSuffix) {
			out = append(out, strings.TrimSuffix(f, indexSuffix)+packSuffix)
		}
	}
	return out
}

// run is one run of plumb: it puts the entries named and finishes, and
// returns its pack's path.
func run(t *testing.T, dir string, opts Options, slots ...string) string {
	t.Helper()
	s := open(t, dir, opts)
	for _, slot := range slots {
		if err := s.Put("ns", key(slot), key("v"), []byte(slot)); err != nil {
			t.Fatal(err)
		}
	}
	finish(t, s)
	return ownPath(dir, s)
}

// ownPath is the path of a store's own pack under dir.
func ownPath(dir string, s *Store) string {
	return filepath.Join(dir, formatDir, s.own.packName)
}

// formatRoot opens the format directory under dir.
func formatRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(filepath.Join(dir, formatDir))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// setAge makes a pack look last used at the given time.
func setAge(t *testing.T, packPath string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(strings.TrimSuffix(packPath, packSuffix)+indexSuffix, at, at); err != nil {
		t.Fatal(err)
	}
}

// A damaged entry is a miss, whatever the damage; the run writes it again
// and the damaged copy goes with its pack.
func TestCorruptEntryIsAMiss(t *testing.T) {
	payload := []byte(strings.Repeat("payload ", 20))
	for _, damage := range []struct {
		name    string
		f       func([]byte) []byte
		corrupt int // entries read back damaged
	}{
		{"pack truncated", func(b []byte) []byte { return b[:len(b)/2] }, 0},
		{"pack empty", func([]byte) []byte { return nil }, 0},
		{"bit flipped", func(b []byte) []byte { b[len(b)/2] ^= 1; return b }, 1},
		{"checksum changed", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }, 1},
		{"another format", func(b []byte) []byte { b[len(packMagic)] = 'X'; return b }, 1},
		{"slot key changed", func(b []byte) []byte { b[len(packMagic)+len(magic)] ^= 1; return b }, 1},
		{"nonce changed", func(b []byte) []byte { b[len(packMagic)+entryHead] ^= 1; return b }, 1},
	} {
		t.Run(damage.name, func(t *testing.T) {
			dir := t.TempDir()
			damaged := run(t, dir, Options{}, "slot")
			data, _ := os.ReadFile(damaged)
			if err := os.WriteFile(damaged, damage.f(data), 0o600); err != nil {
				t.Fatal(err)
			}
			s := open(t, dir, Options{})
			if got := lookup(s, "ns", key("slot"), ""); got != nil {
				t.Fatalf("a damaged entry was taken: %q", got)
			}
			if st := s.Stats(); st.Corrupt != damage.corrupt || st.Misses != 1 {
				t.Errorf("stats %+v, want %d corrupt, 1 miss", st, damage.corrupt)
			}
			if err := s.Put("ns", key("slot"), key("v"), payload); err != nil {
				t.Fatal(err)
			}
			finish(t, s)
			if _, err := os.Stat(damaged); err == nil {
				t.Error("the damaged pack stayed after its entry was written again")
			}
			if got := lookup(open(t, dir, Options{}), "ns", key("slot"), ""); !bytes.Equal(got, payload) {
				t.Errorf("the entry written again: got %q", got)
			}
		})
	}
}

// A damaged index makes its pack unreadable: a miss, and both go.
func TestCorruptIndexIsAMiss(t *testing.T) {
	for _, damage := range []func([]byte) []byte{
		func(b []byte) []byte { b[len(b)/2] ^= 1; return b },
		func(b []byte) []byte { return b[:len(b)-1] },
		func(b []byte) []byte { return append(b, 0) },
		func([]byte) []byte { return nil },
	} {
		dir := t.TempDir()
		p := run(t, dir, Options{}, "slot")
		idx := strings.TrimSuffix(p, packSuffix) + indexSuffix
		data, _ := os.ReadFile(idx)
		if err := os.WriteFile(idx, damage(data), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := lookup(open(t, dir, Options{}), "ns", key("slot"), ""); got != nil {
			t.Fatalf("an entry of a damaged index was taken: %q", got)
		}
		// An empty index is not one plumb wrote (it writes an index
		// whole, then renames it into place): it stays, unread.
		want := 0
		if len(damage(append([]byte(nil), indexMagic...))) == 0 {
			want = 1
		}
		if n := len(cacheFiles(t, dir)); n != want {
			t.Errorf("%d files left, want the damaged index and its pack gone", n)
		}
	}
}

// An index that points a slot at another slot's entry (a well-formed
// index, checksum and all) gives a miss: every entry carries its slot.
func TestEntryInTheWrongSlot(t *testing.T) {
	dir := t.TempDir()
	p := run(t, dir, Options{}, "a", "b")
	idx := strings.TrimSuffix(p, packSuffix) + indexSuffix
	data, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	entries, err := parseIndex(data, st.Size())
	if err != nil || len(entries) != 2 {
		t.Fatalf("index: %v, %d entries", err, len(entries))
	}
	// Slot b's entry is slot a's (an index whose entries overlap is
	// damaged as a whole: b is listed alone).
	entries = []indexEntry{{slot: entries[1].slot, variant: entries[1].variant, off: entries[0].off, n: entries[0].n}}
	pk := newPack(formatRoot(t, dir), strings.TrimSuffix(filepath.Base(p), packSuffix))
	if err := writeIndex(pk, entries); err != nil {
		t.Fatal(err)
	}
	s := open(t, dir, Options{})
	if got := lookup(s, "ns", key("b"), ""); got != nil {
		t.Fatalf("slot b gave slot a's entry %q", got)
	}
	if st := s.Stats(); st.Corrupt != 1 {
		t.Errorf("%+v: want the entry of another slot counted as damaged", st)
	}
}

// A slot's lookups try its most recently used variants only, and a pack
// holding nothing but older ones goes.
func TestVariantsPerSlotAreBounded(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	var first string
	for i := 0; i < maxVariants+3; i++ {
		s := open(t, dir, Options{})
		if err := s.Put("ns", key("slot"), key(fmt.Sprint(i)), []byte(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
		finish(t, s)
		setAge(t, ownPath(dir, s), old.Add(time.Duration(i)*time.Minute))
		if i == 0 {
			first = ownPath(dir, s)
		}
	}
	if n := len(packs(t, dir)); n != maxVariants {
		t.Errorf("%d packs kept, want %d (one per variant kept)", n, maxVariants)
	}
	if _, err := os.Stat(first); err == nil {
		t.Error("the oldest variant's pack stayed")
	}
	s := open(t, dir, Options{})
	if got := lookup(s, "ns", key("slot"), fmt.Sprint(maxVariants+2)); got == nil {
		t.Error("the newest variant was not found")
	}
	if got := lookup(s, "ns", key("slot"), "2"); got != nil {
		t.Error("a variant older than the newest 8 was tried")
	}
}

// Eviction by size removes the least recently used packs and keeps what
// the last run used (copied into its pack) and wrote.
func TestEvictionKeepsRecentAndThisRun(t *testing.T) {
	dir := t.TempDir()
	payload := bytes.Repeat([]byte("x"), 1000)
	start := time.Now().Add(-time.Hour)
	for i := 0; i < 20; i++ {
		s := open(t, dir, Options{MaxBytes: 1 << 30})
		if err := s.Put("ns", key(fmt.Sprint(i)), key("v"), payload); err != nil {
			t.Fatal(err)
		}
		finish(t, s)
		// Slot i was last used i minutes after a start an hour ago.
		setAge(t, ownPath(dir, s), start.Add(time.Duration(i)*time.Minute))
	}
	// A later run with room for about 10 entries uses the oldest one and
	// writes one.
	const bound = 10 * 1200
	r := open(t, dir, Options{MaxBytes: bound})
	if lookup(r, "ns", key("0"), "") == nil {
		t.Fatal("slot 0 missing")
	}
	if err := r.Put("ns", key("new"), key("v"), payload); err != nil {
		t.Fatal(err)
	}
	finish(t, r)
	var total int64
	for _, f := range cacheFiles(t, dir) {
		st, _ := os.Stat(f)
		total += st.Size()
	}
	if total > bound {
		t.Errorf("%d bytes left, want at most %d", total, bound)
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
	if st := r.Stats(); st.Evicted == 0 || st.Copied != 1 {
		t.Errorf("%+v: want evictions counted, and slot 0 copied", st)
	}
}

// An entry a run uses from an earlier run's pack is copied into its own;
// a pack whose every entry has a newer copy goes, so a warm run leaves one
// pack behind, not one more.
func TestCopyForward(t *testing.T) {
	dir := t.TempDir()
	first := run(t, dir, Options{}, "a", "b")

	// The second run uses a only: the first pack still holds the only b.
	s := open(t, dir, Options{})
	if string(lookup(s, "ns", key("a"), "")) != "a" {
		t.Fatal("a missing")
	}
	if string(lookup(s, "ns", key("a"), "")) != "a" {
		t.Fatal("a missing the second time")
	}
	finish(t, s)
	if st := s.Stats(); st.Copied != 1 || st.Writes != 0 || st.Hits != 2 {
		t.Errorf("second run %+v, want a copied once, nothing written", st)
	}
	second := ownPath(dir, s)
	if got := len(packs(t, dir)); got != 2 {
		t.Errorf("%d packs after the second run, want 2", got)
	}

	// The third uses both: the earlier packs are superseded.
	s = open(t, dir, Options{})
	for _, slot := range []string{"b", "a"} {
		if string(lookup(s, "ns", key(slot), "")) != slot {
			t.Fatalf("%s missing", slot)
		}
	}
	finish(t, s)
	if st := s.Stats(); st.Copied != 2 || st.Writes != 0 {
		t.Errorf("third run %+v, want a and b copied", st)
	}
	for _, p := range []string{first, second} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s stayed: every entry in it has a newer copy", filepath.Base(p))
		}
	}
	if got := packs(t, dir); len(got) != 1 || got[0] != ownPath(dir, s) {
		t.Errorf("packs %v, want only the third run's", got)
	}
	s = open(t, dir, Options{})
	for _, slot := range []string{"a", "b"} {
		if string(lookup(s, "ns", key(slot), "")) != slot {
			t.Errorf("%s missing after copying", slot)
		}
	}
}

// A run that crashed left a pack without an index: later runs do not read
// it, and remove it once it is stale (not while a run may be writing it).
func TestCrashedRunsPack(t *testing.T) {
	dir := t.TempDir()
	crashed := open(t, dir, Options{})
	if err := crashed.Put("ns", key("slot"), key("v"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	crashed.own.close() // no Finish: the process died
	s := open(t, dir, Options{})
	if got := lookup(s, "ns", key("slot"), ""); got != nil {
		t.Fatalf("an entry of a pack without an index was taken: %q", got)
	}
	if err := s.Put("ns", key("other"), key("v"), []byte("y")); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, formatDir, tempName())
	foreign := filepath.Join(dir, formatDir, tempPrefix+"stale")
	old := time.Now().Add(-2 * staleTemp)
	for _, f := range []string{stale, foreign} {
		if err := os.WriteFile(f, append(slices.Clip(indexMagic), "half an index"...), 0o600); err != nil {
			t.Fatal(err)
		}
		_ = os.Chtimes(f, old, old)
	}
	finish(t, s)
	if _, err := os.Stat(foreign); err != nil {
		t.Error("a file not named as plumb names its temporary files was removed")
	}
	if _, err := os.Stat(ownPath(dir, crashed)); err != nil {
		t.Error("a pack without an index was removed while its run may still be writing it")
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("an abandoned temporary file stayed")
	}
	_ = os.Chtimes(ownPath(dir, crashed), old, old)
	run(t, dir, Options{}, "third")
	if _, err := os.Stat(ownPath(dir, crashed)); err == nil {
		t.Error("a crashed run's stale pack stayed")
	}
}

// A cold run writes one pack and its index, whatever its number of
// entries.
func TestAColdRunWritesTwoFiles(t *testing.T) {
	dir := t.TempDir()
	slots := make([]string, 300)
	for i := range slots {
		slots[i] = fmt.Sprint(i)
	}
	run(t, dir, Options{}, slots...)
	if files := cacheFiles(t, dir); len(files) != 2 {
		t.Errorf("files %v, want a pack and its index", files)
	}
	s := open(t, dir, Options{})
	for _, slot := range slots {
		if got := lookup(s, "ns", key(slot), ""); string(got) != slot {
			t.Fatalf("slot %s: got %q", slot, got)
		}
	}
}

// Writers and readers in parallel, in one process or several sharing the
// directory, only ever see whole entries.
func TestConcurrentWritersAndReaders(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(dir, Options{MaxBytes: 64 << 10})
			if err != nil {
				t.Error(err)
				return
			}
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
			if err := s.Finish(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
}

// writerEnv names the directory a child test process writes to.
const writerEnv = "PLUMB_CACHE_TEST_WRITER"

// writeAsRun is one run writing and reading its own and a shared set of
// slots, then finishing.
func writeAsRun(dir, name string) error {
	s, err := Open(dir, Options{})
	if err != nil {
		return err
	}
	for i := 0; i < 40; i++ {
		own, shared := name+fmt.Sprint(i), fmt.Sprint("shared", i%5)
		for _, slot := range []string{own, shared} {
			want := []byte(slot + strings.Repeat("/", 1000+i))
			if !s.Lookup("ns", key(slot), func([]byte) bool { return true }) {
				if err := s.Put("ns", key(slot), key(string(want)), want); err != nil {
					return err
				}
			}
		}
	}
	return s.Finish()
}

// TestWriterProcess is the child of TestTwoProcessesShareADirectory.
func TestWriterProcess(t *testing.T) {
	dir := os.Getenv(writerEnv)
	if dir == "" {
		t.Skip("run by TestTwoProcessesShareADirectory")
	}
	if err := writeAsRun(dir, "child"+fmt.Sprint(os.Getpid())+"-"); err != nil {
		t.Fatal(err)
	}
}

// Two processes and this one write and read one directory at once; a later
// run finds every entry each wrote, each whole and in its slot.
func TestTwoProcessesShareADirectory(t *testing.T) {
	dir := t.TempDir()
	var children []*exec.Cmd
	var outs []*bytes.Buffer
	for range 2 {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestWriterProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), writerEnv+"="+dir)
		out := &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children, outs = append(children, cmd), append(outs, out)
	}
	if err := writeAsRun(dir, "parent-"); err != nil {
		t.Fatal(err)
	}
	var names []string
	for i, cmd := range children {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("child: %v: %s", err, outs[i])
		}
		names = append(names, fmt.Sprint("child", cmd.Process.Pid, "-"))
	}
	s := open(t, dir, Options{})
	for _, name := range append(names, "parent-") {
		for i := 0; i < 40; i++ {
			for _, slot := range []string{name + fmt.Sprint(i), fmt.Sprint("shared", i%5)} {
				got := lookup(s, "ns", key(slot), "")
				if !bytes.HasPrefix(got, []byte(slot+"/")) || strings.Trim(string(got[len(slot):]), "/") != "" {
					t.Fatalf("slot %s: got %.40q", slot, got)
				}
			}
		}
	}
	if st := s.Stats(); st.Corrupt != 0 {
		t.Errorf("%+v: no entry should read back damaged", st)
	}
}
