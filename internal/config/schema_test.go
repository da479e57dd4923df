package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestSchemaSettings(t *testing.T) {
	cwd := t.TempDir()
	resolve := func(file string, args ...string) (*Config, error) { return resolveText(t, cwd, file, args...) }
	cfg, err := resolve("")
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Schema.Enabled || cfg.Schema.KubernetesVersion != DefaultKubernetesVersion || len(cfg.Schema.CRDs) > 0 {
		t.Errorf("defaults: %+v", cfg.Schema)
	}
	cfg, err = resolve("kubernetes_version: '1.30'\nschema:\n  enabled: false\n  kubernetes_version: '1.24'\n  crds: [vendor/crds]\n  skip_kinds: [SealedSecret, 'monitoring.coreos.com/*']\n",
		"--crds", "extra.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Schema
	if s.Enabled || s.KubernetesVersion.Minor != 24 || cfg.KubernetesVersion.Minor != 30 || len(s.SkipKinds) != 2 {
		t.Errorf("file: %+v", s)
	}
	if len(s.CRDs) != 2 || s.CRDs[0].Path != filepath.Join(cwd, "vendor/crds") || s.CRDs[0].Display != "vendor/crds" || s.CRDs[1].Display != "extra.yaml" {
		t.Errorf("crds: %+v", s.CRDs)
	}
	cfg, err = resolve("schema:\n  kubernetes_version: '1.24'\n", "--kubernetes-version", "1.28")
	if err != nil || cfg.Schema.KubernetesVersion.Minor != 28 {
		t.Errorf("--kubernetes-version wins: %v %+v", err, cfg)
	}
	for file, want := range map[string]string{
		"schema:\n  kubernetes_version: two\n": ".plumb.yaml:2:23: kubernetes version \"two\"",
		"schema:\n  skip_kinds: ['[']\n":       "not a valid pattern",
		"schema:\n  crd: [x]\n":                "unknown key \"crd\"",
	} {
		if _, err := resolve(file); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", file, err, want)
		}
	}
}

// resolveText resolves the configuration file text with the check flags
// args, as plumb check run in cwd would.
func resolveText(t *testing.T, cwd, file string, args ...string) (*Config, error) {
	t.Helper()
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := BindCheckFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	f, err := ParseFile(".plumb.yaml", []byte(file))
	if err != nil {
		return nil, err
	}
	return Resolve(f, fl, cwd)
}

// The CRDs the workflow names (--crds, schema.crds of a configuration file
// outside the repository) are marked: they win over the repository's.
func TestWorkflowCRDsAreMarked(t *testing.T) {
	base := tree(t, "repo/.git/", "repo/crds/", "ci/crds/")
	repo := filepath.Join(base, "repo")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(repo, ".plumb.yaml"), "schema:\n  crds: [crds]\n")
	write(filepath.Join(base, "ci", "plumb.yaml"), "schema:\n  crds: [crds]\n")
	workflow := func(cfg *Config) []bool {
		var out []bool
		for _, p := range cfg.Schema.CRDs {
			out = append(out, p.Workflow)
		}
		return out
	}
	if got := workflow(resolveIn(t, repo, "--crds", filepath.Join(base, "ci", "crds"))); !slices.Equal(got, []bool{false, true}) {
		t.Errorf("the repository's .plumb.yaml and --crds: %v, want [false true]", got)
	}
	if got := workflow(resolveIn(t, repo, "--config", filepath.Join(base, "ci", "plumb.yaml"))); !slices.Equal(got, []bool{true}) {
		t.Errorf("a configuration file outside the repository: %v, want [true]", got)
	}
}
