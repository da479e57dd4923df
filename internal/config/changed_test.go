package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

// --changed: the arguments are the changed files (repository-relative), the
// inputs are the configuration's paths, and a change to plumb's own
// settings turns the narrowing off.
func TestChangedFiles(t *testing.T) {
	repo := t.TempDir()
	for name, content := range map[string]string{
		".plumb.yaml":            "paths: [apps]\nrules:\n  files: [policy/rules.yaml]\nchecks:\n  dirs: [policy/checks]\n",
		"policy/rules.yaml":      "[]\n",
		"policy/checks/X1.yaml":  "id: X1\n",
		"apps/web/deploy.yaml":   "kind: Deployment\n",
		"apps/web/service.yaml":  "kind: Service\n",
		"apps/api/settings.yaml": "kind: ConfigMap\n",
	} {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	load := func(args ...string) *Config {
		t.Helper()
		fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
		fl := BindCheckFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		fl.Paths = fs.Args()
		cfg, err := Load(fl, repo)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}

	cfg := load("--changed", "apps/web/deploy.yaml", filepath.Join(repo, "apps/api/settings.yaml"))
	if !cfg.ChangedOnly || !slices.Equal(cfg.Changed, []string{"apps/web/deploy.yaml", "apps/api/settings.yaml"}) || !slices.Equal(cfg.Paths, []string{"apps"}) {
		t.Errorf("changed %v (only: %v), paths %v", cfg.Changed, cfg.ChangedOnly, cfg.Paths)
	}
	for _, settings := range []string{".plumb.yaml", "policy/rules.yaml", "policy/checks/X1.yaml"} {
		if cfg := load("--changed", "apps/web/deploy.yaml", settings); cfg.ChangedOnly {
			t.Errorf("%s changed: still narrowed to the changed files", settings)
		}
	}
	if cfg := load("apps/web"); cfg.ChangedOnly || !slices.Equal(cfg.Paths, []string{"apps/web"}) {
		t.Errorf("without --changed the arguments are inputs: %v %v", cfg.ChangedOnly, cfg.Paths)
	}

	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := BindCheckFlags(fs)
	if err := fs.Parse([]string{"--changed"}); err != nil {
		t.Fatal(err)
	}
	fl.Paths = []string{"../outside.yaml"}
	if _, err := Load(fl, repo); err == nil {
		t.Error("a changed file outside the repository was accepted")
	}
}
