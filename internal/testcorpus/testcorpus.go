// Package testcorpus finds the shared corpus for tests: ../shared/corpus
// beside the module root, where CI puts it. Tests that need it skip, with
// a message, when it is absent; and walks the YAML files of it and of the
// test data. Only test files import this package.
package testcorpus

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// WalkYAML calls visit with the path and content of every .yaml and .yml
// file below each of dirs, and fails the test on a walk or read error.
func WalkYAML(tb testing.TB, dirs []string, visit func(path string, data []byte)) {
	tb.Helper()
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			visit(path, data)
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
}
