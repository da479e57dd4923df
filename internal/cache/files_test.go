package cache

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// plant writes a file (and its directories) with content and a
// modification time.
func plant(t *testing.T, path, content string, mod time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mod, mod); err != nil {
		t.Fatal(err)
	}
}

// symlink makes a link, failing the test when it cannot.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// victim is a directory outside the cache holding a file of each name a
// link in the cache points at; intact reports any that changed or went.
type victim struct {
	dir   string
	files map[string]string
}

func newVictim(t *testing.T, names ...string) *victim {
	v := &victim{dir: t.TempDir(), files: map[string]string{}}
	old := time.Now().Add(-72 * time.Hour)
	for _, n := range names {
		content := "precious " + n + "\n"
		if strings.HasSuffix(n, ".idx") {
			content = string(indexMagic) + content // as plumb's, but not in the cache
		}
		plant(t, filepath.Join(v.dir, n), content, old)
		v.files[n] = content
	}
	return v
}

func (v *victim) intact(t *testing.T) {
	t.Helper()
	entries, _ := os.ReadDir(v.dir)
	if len(entries) != len(v.files) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the directory a link points at holds %v, want only %d files of its own", names, len(v.files))
	}
	for n, want := range v.files {
		if got, err := os.ReadFile(filepath.Join(v.dir, n)); err != nil || string(got) != want {
			t.Errorf("%s behind a link: %q, %v; want it untouched", n, got, err)
		}
	}
}

// Nothing plumb does in its cache directory follows a link there: not
// writing CACHEDIR.TAG, not reading or removing a pack, an index or a
// temporary file, not cleaning up. Links to a directory and to files
// outside the cache are planted under every name plumb writes or removes,
// and runs that write and evict (a bound of a few entries) leave what they
// point at as it was.
func TestCacheNeverFollowsLinks(t *testing.T) {
	const id = "0000000000000001-0000000000000002"
	v := newVictim(t, "tag", "pack", id+".idx", "temp", "old.pack", "old.idx")
	dir := t.TempDir()
	old := time.Now().Add(-72 * time.Hour)
	symlink(t, filepath.Join(v.dir, "tag"), filepath.Join(dir, "CACHEDIR.TAG"))
	// A dangling link where plumb creates: the target must not appear.
	symlink(t, filepath.Join(v.dir, "created"), filepath.Join(dir, formatDir, "0000000000000009-0000000000000009.idx"))
	symlink(t, filepath.Join(v.dir, "pack"), filepath.Join(dir, formatDir, id+packSuffix))
	symlink(t, filepath.Join(v.dir, id+".idx"), filepath.Join(dir, formatDir, "0000000000000003-0000000000000004.idx"))
	symlink(t, filepath.Join(v.dir, "temp"), filepath.Join(dir, formatDir, tempName()))
	// An old format that is a link, and one whose files are links.
	symlink(t, v.dir, filepath.Join(dir, "v1"))
	symlink(t, filepath.Join(v.dir, "old.pack"), filepath.Join(dir, "v2", "0000000000000005-0000000000000006.pack"))
	symlink(t, filepath.Join(v.dir, "old.idx"), filepath.Join(dir, "v2", "0000000000000005-0000000000000006.idx"))
	for _, l := range []string{"CACHEDIR.TAG", formatDir, "v2"} {
		_ = os.Chtimes(filepath.Join(dir, l), old, old)
	}
	payload := bytes.Repeat([]byte("entry "), 200)
	for i := range 6 {
		s := open(t, dir, Options{MaxBytes: 4000})
		for j := range 3 {
			if err := s.Put("ns", key(string(rune('a'+i*3+j))), key("v"), payload); err != nil {
				t.Fatal(err)
			}
		}
		finish(t, s)
	}
	v.intact(t)
	if _, err := os.Lstat(filepath.Join(v.dir, "created")); err == nil {
		t.Error("a dangling link in the cache was written through")
	}
	for _, l := range []string{"CACHEDIR.TAG", "v1", filepath.Join("v2", "0000000000000005-0000000000000006.idx"), filepath.Join(formatDir, id+packSuffix)} {
		if st, err := os.Lstat(filepath.Join(dir, l)); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: %v, want the link left as it is", l, err)
		}
	}
}

// A link named like the format directory is not used: Open fails (the
// run goes on without the cache), and what it points at is untouched.
func TestFormatDirectoryThatIsALink(t *testing.T) {
	v := newVictim(t, "0000000000000001-0000000000000002.idx", "notes")
	dir := t.TempDir()
	symlink(t, v.dir, filepath.Join(dir, formatDir))
	if _, err := Open(dir, Options{}); err == nil {
		t.Fatal("a format directory that is a link was opened")
	}
	v.intact(t)
}

// Only plumb's files go from the directories plumb writes: a file under a
// name plumb gives its files but without plumb's magic, a file of another
// name, a directory named like a format plumb never wrote, and the files
// of an old format another plumb used recently all stay; an old format's
// own files go once a day old, and its directories with them when
// nothing else is left in them.
func TestOnlyPlumbsFilesAreRemoved(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-72 * time.Hour)
	hex64 := strings.Repeat("ab", 32)
	gone := []string{
		// Format v1: an entry per file, in namespace and key directories.
		filepath.Join("v1", "render-kustomize", "a", hex64+"-"+hex64),
		filepath.Join("v1", "analysis", "ab", hex64, hex64),
		filepath.Join("v1", "analysis", "ab", hex64, ".tmp-12345"),
		// Format v2: packs and indexes.
		filepath.Join("v2", "0000000000000001-0000000000000002.pack"),
		filepath.Join("v2", "0000000000000001-0000000000000002.idx"),
		filepath.Join("v2", ".tmp-777"),
	}
	content := map[string]string{"v1": "PLUMBC1\n", "v2": "PLUMBC2\n"}
	for _, f := range gone {
		c := content[strings.Split(f, string(filepath.Separator))[0]]
		if strings.HasSuffix(f, ".idx") || strings.HasPrefix(filepath.Base(f), ".tmp-") && strings.HasPrefix(f, "v2") {
			c = "PLUMBI2\n"
		}
		plant(t, filepath.Join(dir, f), c+"entry", old)
	}
	stay := map[string]string{
		filepath.Join("v1", "notes.txt"):                                          "mine",
		filepath.Join("v1", "render-kustomize", "b", hex64):                       "not an entry",
		filepath.Join("v7", "data"):                                               "PLUMBC2\nlooks like plumb's, in a format it never wrote",
		filepath.Join("v2x", "0000000000000001-0000000000000002.idx"):             "PLUMBI2\n",
		filepath.Join(formatDir, "notes.idx"):                                     "mine",
		filepath.Join(formatDir, "0000000000000007-0000000000000008.idx"):         "an index plumb did not write",
		filepath.Join(formatDir, "0000000000000007-0000000000000008.pack"):        "a pack plumb did not write",
		filepath.Join(formatDir, "0000000000000009-000000000000000a.idx"):         "no pack beside it, and not plumb's",
		filepath.Join(formatDir, ".tmp-0123456789abcdef"):                         "not a temporary file of plumb's",
		filepath.Join(formatDir, "sub", "0000000000000001-0000000000000002.pack"): string(packMagic),
		"CACHEDIR.TAG.orig": "mine",
	}
	for f, c := range stay {
		plant(t, filepath.Join(dir, f), c, old)
	}
	run(t, dir, Options{MaxBytes: 1}, "slot") // writes, so it cleans
	run(t, dir, Options{MaxBytes: 1}, "other")
	for _, f := range gone {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s: an old format's file unused for three days stayed", f)
		}
	}
	for _, d := range []string{filepath.Join("v1", "analysis"), "v2"} {
		if _, err := os.Lstat(filepath.Join(dir, d)); err == nil {
			t.Errorf("%s: an old format's directory left empty stayed", d)
		}
	}
	for f, c := range stay {
		if got, err := os.ReadFile(filepath.Join(dir, f)); err != nil || string(got) != c {
			t.Errorf("%s: %q, %v; want it untouched", f, got, err)
		}
	}

	// An old format another plumb used within the day stays whole.
	recent := t.TempDir()
	plant(t, filepath.Join(recent, "v2", "0000000000000001-0000000000000002.idx"), "PLUMBI2\n", old)
	plant(t, filepath.Join(recent, "v2", "0000000000000003-0000000000000004.idx"), "PLUMBI2\n", time.Now())
	run(t, recent, Options{}, "slot")
	if _, err := os.Stat(filepath.Join(recent, "v2", "0000000000000001-0000000000000002.idx")); err != nil {
		t.Error("an old format in use was cleaned")
	}
}
