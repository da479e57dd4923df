package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// cliReferenceDir is where the generated CLI reference is committed,
// relative to this package.
const cliReferenceDir = "../../docs/cli"

// regenerateCLIReference is the one command that rewrites docs/cli.
const regenerateCLIReference = "go generate ./cmd/plumb"

var updateCLIReference = flag.Bool("update-cli-reference", false, "rewrite docs/cli from the commands ("+regenerateCLIReference+")")

// TestCLIReferenceIsCurrent generates the Markdown reference of every
// command (spf13/cobra/doc) and compares it with docs/cli, so a flag added
// without regenerating the reference fails here.
func TestCLIReferenceIsCurrent(t *testing.T) {
	want := generateCLIReference(t)
	if *updateCLIReference {
		writeCLIReference(t, want)
		return
	}
	got := map[string][]byte{}
	entries, err := os.ReadDir(cliReferenceDir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(cliReferenceDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name()] = b
	}
	var stale []string
	for name, b := range want {
		if g, ok := got[name]; !ok {
			stale = append(stale, name+" is missing")
		} else if !bytes.Equal(g, b) {
			stale = append(stale, name+" differs from the commands")
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			stale = append(stale, name+" names no command")
		}
	}
	if len(stale) > 0 {
		sort.Strings(stale)
		t.Fatalf("the CLI reference in docs/cli is stale; regenerate it with `%s` and commit the result:\n  %s",
			regenerateCLIReference, strings.Join(stale, "\n  "))
	}
}

// generateCLIReference returns the reference pages by file name.
func generateCLIReference(t *testing.T) map[string][]byte {
	t.Helper()
	root := newRootCommand(io.Discard, io.Discard)
	dir := t.TempDir()
	var disableDate func(*cobra.Command)
	disableDate = func(c *cobra.Command) {
		c.DisableAutoGenTag = true // no generation date: the pages must be reproducible
		for _, sub := range c.Commands() {
			disableDate(sub)
		}
	}
	disableDate(root)
	if err := doc.GenMarkdownTree(root, dir); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		pages[e.Name()] = b
	}
	return pages
}

func writeCLIReference(t *testing.T, pages map[string][]byte) {
	t.Helper()
	if err := os.RemoveAll(cliReferenceDir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(cliReferenceDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range pages {
		if err := os.WriteFile(filepath.Join(cliReferenceDir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("wrote %d pages to docs/cli", len(pages))
}
