package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}

func TestAssert(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	if err := os.WriteFile(path, []byte("same\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path, got string
		fails     bool
	}{
		{path, "same\n", false},
		{path, "other\n", true},
		{filepath.Join(filepath.Dir(path), "missing.txt"), "x", true},
	} {
		r := &recorder{TB: t}
		AssertString(r, c.path, c.got)
		if r.failed != c.fails {
			t.Errorf("Assert(%s, %q) failed=%v, want %v", filepath.Base(c.path), c.got, r.failed, c.fails)
		}
	}
}

func TestAssertUpdates(t *testing.T) {
	*update = true
	defer func() { *update = false }()
	path := filepath.Join(t.TempDir(), "new", "out.txt")
	AssertString(t, path, "written\n")
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "written\n" {
		t.Fatalf("-update wrote %q, %v", got, err)
	}
}
