// Package golden compares test output with the golden files under a
// package's testdata directory. It is the repository's one golden helper:
// `go test ./... -update` rewrites every golden file from the current
// output, and a review of the diff is the check that the change is right.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files from the current output")

// Updating reports whether the run rewrites golden files (-update), for
// tests whose expectations are files of another shape than one output.
func Updating() bool { return *update }

// Assert compares got with the file at path (relative to the test's
// package directory, e.g. "testdata/report.json"). With -update it writes
// got there instead, creating the directories it needs.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (go test -update rewrites it; review the diff):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// AssertString is Assert for text.
func AssertString(t testing.TB, path, got string) {
	t.Helper()
	Assert(t, path, []byte(got))
}
