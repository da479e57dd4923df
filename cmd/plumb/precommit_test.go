package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// hookDefinition is the repository's .pre-commit-hooks.yaml.
type hookDefinition struct {
	ID            string `yaml:"id"`
	Entry         string `yaml:"entry"`
	Language      string `yaml:"language"`
	Files         string `yaml:"files"`
	RequireSerial bool   `yaml:"require_serial"`
}

// TestPreCommitHook runs the hook as pre-commit would: its entry, with the
// changed files that match its files pattern appended, at the top of a
// repository (a copy of the demo).
func TestPreCommitHook(t *testing.T) {
	data, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []hookDefinition
	if err := yaml.Unmarshal(data, &hooks); err != nil {
		t.Fatal(err)
	}
	if len(hooks) != 1 || hooks[0].ID != "plumb" || hooks[0].Language != "golang" || !hooks[0].RequireSerial {
		t.Fatalf("hooks: %+v", hooks)
	}
	hook := hooks[0]
	entry := strings.Fields(hook.Entry)
	if entry[0] != "plumb" {
		t.Fatalf("entry %q does not run plumb (the binary `go install` builds from cmd/plumb)", hook.Entry)
	}
	files := regexp.MustCompile(hook.Files)

	repo := t.TempDir()
	if err := os.CopyFS(repo, os.DirFS("../../fixtures/demo")); err != nil {
		t.Fatal(err)
	}
	commit := func(changed ...string) (proc, []string) {
		t.Helper()
		args := append([]string{}, entry[1:]...)
		for _, f := range changed {
			if files.MatchString(f) {
				args = append(args, f)
			}
		}
		args = append(args, "--format", "json=report.json", "--format", "text")
		p := runBinary(t, procOptions{dir: repo}, args...)
		var report struct{ Targets []struct{ Name string } }
		b, err := os.ReadFile(filepath.Join(repo, "report.json"))
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, p.stderr)
		}
		if err := json.Unmarshal(b, &report); err != nil {
			t.Fatal(err)
		}
		var targets []string
		for _, tg := range report.Targets {
			targets = append(targets, tg.Name)
		}
		return p, targets
	}

	// A change to a kustomize base checks the overlays built on it, and
	// only them; the base's findings are reported at the base's lines.
	p, targets := commit("cart/base/deployment.yaml", "README.md")
	if p.code != 1 || !slices.Equal(targets, []string{"cart/overlays/dev", "cart/overlays/prod"}) {
		t.Errorf("base changed: exit %d, targets %v\n%s", p.code, targets, p.stdout)
	}
	if !strings.Contains(p.stdout, "cart/base/deployment.yaml:10:11: error:") || strings.Contains(p.stdout, "web/") {
		t.Errorf("base changed: findings\n%s", p.stdout)
	}

	// A plain manifest: its directory's target.
	if p, targets = commit("web/service.yaml"); p.code != 1 || !slices.Equal(targets, []string{"web"}) {
		t.Errorf("plain file changed: exit %d, targets %v", p.code, targets)
	}

	// Nothing plumb reads: nothing to check, and the commit goes through.
	if err := os.WriteFile(filepath.Join(repo, "notes.yaml"), []byte("just: notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, targets = commit("notes.yaml", "README.md"); p.code != 0 || len(targets) != 0 {
		// notes.yaml holds no Kubernetes object: a skipped file, no target.
		t.Errorf("unrelated file: exit %d, targets %v\n%s%s", p.code, targets, p.stdout, p.stderr)
	}

	// plumb's own configuration changed: every target is checked.
	if err := os.WriteFile(filepath.Join(repo, ".plumb.yaml"), []byte("fail_on: error\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, targets = commit(".plumb.yaml"); p.code != 1 || len(targets) < 6 {
		t.Errorf("configuration changed: exit %d, targets %v", p.code, targets)
	}
}
