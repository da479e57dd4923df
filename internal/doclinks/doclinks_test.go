package doclinks

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDocumentationLinksResolve is the project's own check: every relative
// link of README.md and docs/ names a file that exists and, with an #anchor,
// a heading of that page.
func TestDocumentationLinksResolve(t *testing.T) {
	root := moduleRoot(t)
	pages := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(root, path)
			pages = append(pages, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 10 {
		t.Fatalf("found only %d pages (%v): is docs/ there?", len(pages), pages)
	}
	problems, err := Check(root, pages)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

func TestSlugMatchesGitHub(t *testing.T) {
	for heading, want := range map[string]string{
		"Forks: analyse on `pull_request`, post from `workflow_run`": "forks-analyse-on-pull_request-post-from-workflow_run",
		"`plumb checks eval`: unit-testing checks":                   "plumb-checks-eval-unit-testing-checks",
		"kube-compare's quirks, and what plumb does":                 "kube-compares-quirks-and-what-plumb-does",
		"What cannot be rendered (`render/...` findings)":            "what-cannot-be-rendered-render-findings",
		"Configuration: `.plumb.yaml`":                               "configuration-plumbyaml",
		"new, unchanged, fixed":                                      "new-unchanged-fixed",
		"See [the action](github-action.md) — twice":                 "see-the-action--twice",
		"plumb: 14 errors, 38 warnings · 1 new, 0 fixed":             "plumb-14-errors-38-warnings--1-new-0-fixed",
	} {
		if got := Slug(heading); got != want {
			t.Errorf("Slug(%q) = %q, want %q", heading, got, want)
		}
	}
}

func TestCheckReportsWhatDoesNotResolve(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", strings.Join([]string{
		"# Title",
		"[ok](docs/a.md) [ok anchor](docs/a.md#second-1) [here](#title)",
		"[missing file](docs/nope.md) [missing anchor](docs/a.md#third)",
		"[web](https://example.com/x#y) `[in code](nope.md)`",
		"```",
		"[in a fence](nope.md)",
		"# not a heading",
		"```",
		"[fenced heading](#not-a-heading) [dir](docs) [anchor on a dir](docs#x)",
		"[out](../outside.md)",
	}, "\n"))
	write("docs/a.md", "# Second\n\n## Second\n\n> ### Quoted heading\n\n[back](../README.md#title) [quoted](#quoted-heading)\n")

	problems, err := Check(root, []string{"README.md", "docs/a.md"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	want := []string{
		`README.md:3: link "docs/nope.md" names a file that does not exist (docs/nope.md)`,
		`README.md:3: link "docs/a.md#third" names no heading of docs/a.md`,
		`README.md:9: link "#not-a-heading" names no heading of README.md`,
		`README.md:9: link "docs#x" has an anchor but docs is not a Markdown page`,
		`README.md:10: link "../outside.md" leaves the repository`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// moduleRoot is the directory holding go.mod, above the test's directory.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}
