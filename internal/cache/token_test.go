package cache

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/plumb-ci/plumb/internal/redact"
)

// An entry that holds a token of the process is not stored: not in the
// pack, and a lookup misses.
func TestEntriesHoldingATokenAreNotStored(t *testing.T) {
	const token = "ghs_PLANTEDcacheToken0123456789abcdef"
	redact.Install(redact.New(token))
	defer redact.Install(nil)
	dir := t.TempDir()
	s := open(t, dir, Options{Identity: "a"})
	if err := s.Put("ns", key("leak"), key("v"), []byte("config: extraheader "+token)); err == nil {
		t.Error("Put stored an entry holding the token")
	}
	if err := s.Put("ns", key("fine"), key("v"), []byte("config: nothing")); err != nil {
		t.Fatal(err)
	}
	if got := lookup(s, "ns", key("leak"), ""); got != nil {
		t.Errorf("the entry holding the token reads back: %q", got)
	}
	if got := lookup(s, "ns", key("fine"), ""); string(got) != "config: nothing" {
		t.Errorf("the other entry: %q", got)
	}
	if err := s.Finish(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	for _, f := range files {
		if b, _ := os.ReadFile(f); bytes.Contains(b, []byte(token)) {
			t.Errorf("%s holds the token", f)
		}
	}
	if len(files) == 0 {
		t.Error("nothing was written")
	}
}
