// Package testcorpus finds the shared corpus for tests: ../shared/corpus
// beside the module root, where CI puts it. Tests that need it skip, with
// a message, when it is absent; only test files import this package.
package testcorpus

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the corpus directory joined with elem (a repository of
// realworld/, a file), or skips the test when it does not exist.
func Dir(tb testing.TB, elem ...string) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Skip("no go.mod above the test directory: the shared corpus cannot be found")
		}
		dir = parent
	}
	p := filepath.Join(append([]string{dir, "..", "shared", "corpus"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("the shared corpus is absent (%s): skipping", p)
	}
	return p
}
