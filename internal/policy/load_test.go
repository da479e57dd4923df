package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

func TestLoadReadsPoliciesAndBindingsOnly(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "vap.yaml"), docsDemoPolicy+"---\n"+deployment("d", "test", 1, "nginx"))
	objs, problems := Load([]manifest.Source{{Path: dir, Display: "policies"}}, manifest.DefaultLimits)
	if len(problems) != 0 {
		t.Fatalf("problems: %+v", problems)
	}
	if len(objs) != 2 || objs[0].ID.Kind != kindPolicy || objs[1].ID.Kind != kindBinding || objs[0].Doc.File != "policies/vap.yaml" {
		t.Fatalf("objects: %+v", objs)
	}
	_, problems = Load([]manifest.Source{{Path: filepath.Join(dir, "missing"), Display: "missing"}}, manifest.DefaultLimits)
	if len(problems) != 1 || !problems[0].Config || !strings.Contains(problems[0].Message, "--policies missing: no such file or directory") {
		t.Fatalf("problems: %+v", problems)
	}
}

// A link in a --policies directory that leads out of it is not followed:
// the directory is content like a repository (manifest.OpenContent).
func TestLoadRefusesLinksOutOfTheDirectory(t *testing.T) {
	outside := t.TempDir()
	write(t, filepath.Join(outside, "secret.yaml"), docsDemoPolicy)
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(dir, "link.yaml")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, ".git", "config.yaml"), docsDemoPolicy)
	objs, problems := Load([]manifest.Source{{Path: dir, Display: "policies"}}, manifest.DefaultLimits)
	if len(objs) != 0 {
		t.Fatalf("read through the link or .git: %+v", objs)
	}
	for _, p := range problems {
		if strings.Contains(p.Message, "demo-policy") {
			t.Fatalf("a problem quotes the file outside: %s", p.Message)
		}
	}
}

func write(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
