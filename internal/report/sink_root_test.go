package report

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A report path given relative to the repository (on the command line, as
// an action input or in .plumb.yaml) is written inside it without
// following a symbolic link the repository holds out of it or into .git:
// the link is the pull request's, not the workflow's. A link that stays
// inside is followed for directories and replaced at the report's name;
// an absolute path goes where it says.
func TestReportInsideTheRepositoryNeverFollowsItsLinks(t *testing.T) {
	base := t.TempDir()
	repo, outside := filepath.Join(base, "repo"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(repo, ".git", "hooks"), filepath.Join(repo, "reports"), filepath.Join(repo, "leaf"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "file"), []byte("kept"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"out":         outside,
		"leaf/x.json": filepath.Join(outside, "file"),
		"hooks":       filepath.Join(repo, ".git", "hooks"),
		"leaf/hook":   filepath.Join(repo, ".git", "hooks", "post-checkout"),
		"alias":       "reports",
		"leaf/y.json": "../reports/y.json",
	} {
		if err := os.Symlink(target, filepath.Join(repo, link)); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(repo)
	for _, c := range []struct {
		file, err string
		// written is where the report must be (and no file outside).
		written string
	}{
		{"out/x.json", "writing the json report to out/x.json: the directory out leads outside the repository through a symbolic link", ""},
		{"out/sub/../x.json", "writing the json report to out/sub/../x.json: the directory out leads outside the repository through a symbolic link", ""},
		{"leaf/x.json", "writing the json report to leaf/x.json: it is a symbolic link out of the repository", ""},
		{"hooks/post-checkout", "writing the json report to hooks/post-checkout: the directory hooks leads into .git through a symbolic link", ""},
		{"leaf/hook", "writing the json report to leaf/hook: it is a symbolic link into .git", ""},
		{"alias/a.json", "", filepath.Join(repo, "reports", "a.json")},
		{"leaf/y.json", "", filepath.Join(repo, "leaf", "y.json")},
		{"./reports/b.json", "", filepath.Join(repo, "reports", "b.json")},
		// The workflow names .git itself, or a path outside: its choice.
		{".git/plumb.json", "", filepath.Join(repo, ".git", "plumb.json")},
		{"../outside/rel.json", "", filepath.Join(outside, "rel.json")},
		{filepath.Join(repo, "out", "abs.json"), "", filepath.Join(outside, "abs.json")},
	} {
		t.Run(c.file, func(t *testing.T) {
			outs := []Output{{Format: "json", File: c.file}}
			WithinRoot(outs, repo)
			err := WriteAll(outs, &Report{Version: "x"}, io.Discard)
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("error %v, want %q", err, c.err)
			}
			if c.written != "" {
				if st, err := os.Lstat(c.written); err != nil || !st.Mode().IsRegular() {
					t.Errorf("%s is not a written file: %v", c.written, err)
				}
			}
			entries, _ := os.ReadDir(outside)
			for _, e := range entries {
				if p := filepath.Join(outside, e.Name()); p != c.written && e.Name() != "file" && e.Name() != "rel.json" && e.Name() != "abs.json" {
					t.Errorf("%s was written outside", p)
				}
			}
			if b, _ := os.ReadFile(filepath.Join(outside, "file")); string(b) != "kept" {
				t.Errorf("the file outside was overwritten: %q", b)
			}
			if _, err := os.Lstat(filepath.Join(repo, ".git", "hooks", "post-checkout")); err == nil {
				t.Error("a hook was written")
			}
		})
	}
}
