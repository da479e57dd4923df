package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeTree creates files under a temporary repository root.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func openRoot(t *testing.T, root string) *os.Root {
	t.Helper()
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"

// Helm chart directories and tool dotfiles are not manifests: a walk or a
// glob skips them and records them as skipped; a file named explicitly is
// read whatever it is.
func TestLoadSkipsChartsAndDotfiles(t *testing.T) {
	root := writeTree(t, map[string]string{
		"apps/web/a.yaml":                   cm,
		"apps/web/.pre-commit-config.yaml":  "repos: []\n",
		"charts/web/Chart.yaml":             "apiVersion: v2\nname: web\nversion: 1.0.0\n",
		"charts/web/values.yaml":            "replicas: 1\n",
		"charts/web/templates/deploy.yaml":  "{{ if .Values.x }}\nkind: Deployment\n{{ end }}\n",
		"charts/web/templates/_helpers.tpl": "{{ define \"x\" }}{{ end }}\n",
		"deploy/chart/Chart.yaml":           "apiVersion: v2\nname: other\n",
		".yamllint.yml":                     "rules: {}\n",
	})
	fsys := openRoot(t, root).FS()
	set := Load(fsys, []string{"."}, LoadOptions{})
	if want := []string{"apps/web/a.yaml"}; !slices.Equal(set.Files, want) {
		t.Errorf("files = %v, want %v", set.Files, want)
	}
	if want := []string{"charts/web", "deploy/chart"}; !slices.Equal(set.Charts, want) {
		t.Errorf("charts = %v, want %v", set.Charts, want)
	}
	want := []Skipped{
		{Path: ".yamllint.yml", Reason: SkipToolConfig},
		{Path: "apps/web/.pre-commit-config.yaml", Reason: SkipToolConfig},
	}
	if !slices.Equal(set.Skipped, want) {
		t.Errorf("skipped = %+v\nwant %+v", set.Skipped, want)
	}
	if len(set.Problems) != 0 {
		t.Errorf("problems = %v", set.Problems)
	}
	// A glob skips what a walk skips; a chart directory named explicitly
	// is still a chart; a file named explicitly is read.
	set = Load(fsys, []string{"**/*.yaml"}, LoadOptions{})
	if want := []string{"apps/web/a.yaml"}; !slices.Equal(set.Files, want) || !slices.Equal(set.Charts, []string{"charts/web", "deploy/chart"}) {
		t.Errorf("glob: files %v, charts %v", set.Files, set.Charts)
	}
	set = Load(fsys, []string{"charts/web"}, LoadOptions{})
	if len(set.Files) != 0 || !slices.Equal(set.Charts, []string{"charts/web"}) {
		t.Errorf("chart named: files %v, charts %v", set.Files, set.Charts)
	}
	set = Load(fsys, []string{"charts/web/values.yaml", "apps/web/.pre-commit-config.yaml"}, LoadOptions{})
	if want := []string{"apps/web/.pre-commit-config.yaml", "charts/web/values.yaml"}; !slices.Equal(set.Files, want) || len(set.Skipped) != 0 {
		t.Errorf("explicit files: %v, skipped %v", set.Files, set.Skipped)
	}
}

func TestLoadWalksDirectoriesAndGlobs(t *testing.T) {
	root := writeTree(t, map[string]string{
		"apps/web/a.yaml":          cm,
		"apps/web/b.yml":           cm,
		"apps/web/c.json":          `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`,
		"apps/web/notes.txt":       "not yaml",
		"apps/.hidden/d.yaml":      cm,
		"apps/api/e.yaml":          cm,
		".github/workflows/ci.yml": "on: push\n",
		"charts/x/values.yaml":     "a: 1\n",
		"extra/explicit.manifest":  cm,
	})
	fsys := openRoot(t, root).FS()
	set := Load(fsys, []string{".", "extra/explicit.manifest"}, LoadOptions{Exclude: []string{"charts/**"}})
	want := []string{"apps/api/e.yaml", "apps/web/a.yaml", "apps/web/b.yml", "apps/web/c.json", "extra/explicit.manifest"}
	if !slices.Equal(set.Files, want) {
		t.Errorf("files = %v, want %v", set.Files, want)
	}
	if len(set.Problems) != 0 {
		t.Errorf("problems = %v", set.Problems)
	}
	if len(set.Documents) != 5 {
		t.Errorf("documents = %d", len(set.Documents))
	}

	// A glob, like a walk, leaves out hidden directories.
	set = Load(fsys, []string{"apps/**/*.yaml"}, LoadOptions{})
	if want := []string{"apps/api/e.yaml", "apps/web/a.yaml"}; !slices.Equal(set.Files, want) {
		t.Errorf("glob files = %v, want %v", set.Files, want)
	}

	// A hidden directory named explicitly is read.
	set = Load(fsys, []string{".github"}, LoadOptions{})
	if !slices.Equal(set.Files, []string{".github/workflows/ci.yml"}) {
		t.Errorf("explicit hidden dir: %v", set.Files)
	}
}

func TestLoadReportsMissingPathsAndKeepsGoing(t *testing.T) {
	root := writeTree(t, map[string]string{"ok.yaml": cm, "bad.yaml": "a: [\n"})
	set := Load(openRoot(t, root).FS(), []string{"nope", "ok.yaml", "bad.yaml", "nothing/*.yaml"}, LoadOptions{})
	if len(set.Documents) != 1 {
		t.Errorf("documents = %d, want 1", len(set.Documents))
	}
	var msgs []string
	for _, p := range set.Problems {
		if !p.Input {
			t.Errorf("%v should be an input error", p)
		}
		msgs = append(msgs, p.Error())
	}
	want := []string{
		"nope:1:1: cannot read the file: no such file or directory",
		"nothing/*.yaml: the pattern matches no files",
		"bad.yaml:1:1: YAML syntax error: did not find expected node content",
	}
	if !slices.Equal(msgs, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(want, "\n"))
	}
}

func TestLoadRefusesSymlinksOutOfTheRepository(t *testing.T) {
	outside := writeTree(t, map[string]string{"secret.yaml": cm})
	root := writeTree(t, map[string]string{"apps/ok.yaml": cm, "apps/inner.yaml": cm})
	if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(root, "apps", "leak.yaml")); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	if err := os.Symlink("inner.yaml", filepath.Join(root, "apps", "alias.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "apps", "outdir")); err != nil {
		t.Fatal(err)
	}
	set := Load(openRoot(t, root).FS(), []string{"apps", "../outside.yaml"}, LoadOptions{})
	if len(set.Documents) != 3 { // ok, inner, and alias -> inner
		t.Errorf("documents = %d, want 3", len(set.Documents))
	}
	var rules []string
	for _, p := range set.Problems {
		rules = append(rules, p.Rule+" "+p.Location.File)
	}
	slices.Sort(rules)
	want := []string{"manifest/outside-repository ../outside.yaml", "manifest/outside-repository apps/leak.yaml"}
	if !slices.Equal(rules, want) {
		t.Errorf("problems = %v, want %v", rules, want)
	}
}

func TestLoadFileSizeLimit(t *testing.T) {
	big := cm + strings.Repeat("# padding\n", 200)
	root := writeTree(t, map[string]string{"big.yaml": big, "small.yaml": cm})
	set := Load(openRoot(t, root).FS(), []string{"."}, LoadOptions{Limits: Limits{MaxFileBytes: 1000}})
	if len(set.Documents) != 1 || len(set.Problems) != 1 || set.Problems[0].Rule != RuleTooLarge {
		t.Fatalf("documents=%d problems=%v", len(set.Documents), set.Problems)
	}
	want := fmt.Sprintf("big.yaml:1:1: file is %d bytes, over the 1000-byte limit (raise it with --max-file-size)", len(big))
	if got := set.Problems[0].Error(); got != want {
		t.Errorf("message = %q", got)
	}
}

func TestLoadIsDeterministic(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 50; i++ {
		files[filepath.Join("d", string(rune('a'+i%26)), strings.Repeat("x", i+1)+".yaml")] = cm
	}
	fsys := openRoot(t, writeTree(t, files)).FS()
	first := Load(fsys, []string{"."}, LoadOptions{Workers: 8})
	for i := 0; i < 5; i++ {
		again := Load(fsys, []string{"."}, LoadOptions{Workers: 1 + i})
		if !slices.Equal(first.Files, again.Files) || len(first.Documents) != len(again.Documents) {
			t.Fatal("load order depends on scheduling")
		}
		for j := range first.Documents {
			if first.Documents[j].File != again.Documents[j].File {
				t.Fatal("document order depends on scheduling")
			}
		}
	}
}
