package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

const checksConfig = `checks:
  dirs: [policy/checks]
  default_catalog: false
  select: [A10001, E10001]
  env:
    environment: prod
    replicas: 3
  customizations:
    E10001:
      min_replicas: 2
`

func TestChecksSection(t *testing.T) {
	f, err := ParseFile(".plumb.yaml", []byte(checksConfig))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Checks
	if !reflect.DeepEqual(c.Dirs, []string{"policy/checks"}) || c.DefaultCatalog == nil || *c.DefaultCatalog || !reflect.DeepEqual(c.Select, []SelectedCheck{{"A10001", 4, 12}, {"E10001", 4, 20}}) {
		t.Errorf("checks = %+v", c)
	}
	if c.Env["environment"] != "prod" || c.Env["replicas"] != 3 {
		t.Errorf("env = %v", c.Env)
	}
	if v := c.Customizations["E10001"]["min_replicas"]; v.Value != 2 || v.Line != 10 || v.Column != 21 {
		t.Errorf("customization = %+v", v)
	}
}

func TestChecksSectionErrorsNameTheLine(t *testing.T) {
	for _, c := range []struct{ config, want string }{
		{"checks:\n  dir: [a]\n", `c.yaml:2:3: unknown key "dir" in checks (known keys: customizations, default_catalog, detail, dirs, env, environments, select)`},
		{"checks:\n  detail: some\n", `c.yaml:2:11: checks.detail "some": want summary`},
		{"checks:\n  detail: [full]\n", `c.yaml:2:11: checks.detail`},
		{"checks:\n  default_catalog: maybe\n", `c.yaml:2:20: checks.default_catalog: the value is the string "maybe", want true or false`},
		{"checks:\n  environments: [\"clusters/[\"]\n", `c.yaml:2:18: checks.environments: "clusters/[" is not a pattern of render targets in the repository`},
		{"checks:\n  customizations: [a]\n", "c.yaml:2:19: checks.customizations: the value is a list, want a mapping of keys to values"},
	} {
		_, err := ParseFile("c.yaml", []byte(c.config))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.config, err, c.want)
		}
	}
}

func TestChecksFlagsMergeWithTheFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, DefaultFile), []byte(checksConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := BindCheckFlags(fs)
	if err := fs.Parse([]string{"--checks", "more", "--select", "C10001,C10002", "--select", "D10001", "--env", "environment=staging", "--env", "team=shop"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(fl, dir)
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Checks
	want := []CatalogDir{{Path: filepath.Join(dir, "policy/checks"), Display: "policy/checks"}, {Path: filepath.Join(dir, "more"), Display: "more"}}
	if !reflect.DeepEqual(c.Dirs, want) {
		t.Errorf("dirs = %+v", c.Dirs)
	}
	if c.DefaultCatalog || !reflect.DeepEqual(c.Select, []string{"C10001", "C10002", "D10001"}) || c.SelectSource != "--select" {
		t.Errorf("default %v select %v from %s", c.DefaultCatalog, c.Select, c.SelectSource)
	}
	if !reflect.DeepEqual(c.Env, map[string]any{"environment": "staging", "replicas": 3, "team": "shop"}) {
		t.Errorf("env = %v", c.Env)
	}
	if c.Customizations["E10001"]["min_replicas"].Value != 2 {
		t.Errorf("customizations = %v", c.Customizations)
	}

	// Defaults without a file; --no-default-checks turns the catalog off.
	fs = pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl = BindCheckFlags(fs)
	if err := fs.Parse([]string{"--no-default-checks", "--checks", "/abs/checks"}); err != nil {
		t.Fatal(err)
	}
	cfg, err = Load(fl, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Checks.DefaultCatalog || len(cfg.Checks.Dirs) != 1 || cfg.Checks.Dirs[0].Display != "/abs/checks" || len(cfg.Checks.Env) != 0 {
		t.Errorf("checks = %+v", cfg.Checks)
	}
}

// The checks section's detail is --checks-detail, else checks.detail, else
// the summary.
func TestChecksDetailFlagWinsOverTheFile(t *testing.T) {
	for _, c := range []struct {
		file  string
		args  []string
		want  string
		error string
	}{
		{"", nil, DetailSummary, ""},
		{"checks:\n  detail: full\n", nil, DetailFull, ""},
		{"checks:\n  detail: full\n", []string{"--checks-detail", "summary"}, DetailSummary, ""},
		{"", []string{"--checks-detail", "full"}, DetailFull, ""},
		{"", []string{"--checks-detail", "all"}, "", `--checks-detail "all": want summary`},
	} {
		dir := t.TempDir()
		if c.file != "" {
			if err := os.WriteFile(filepath.Join(dir, DefaultFile), []byte(c.file), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
		fl := BindCheckFlags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(fl, dir)
		if c.error != "" {
			if err == nil || !strings.Contains(err.Error(), c.error) {
				t.Errorf("%q %v: err %v, want %q", c.file, c.args, err, c.error)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q %v: %v", c.file, c.args, err)
		}
		if cfg.Checks.Detail != c.want {
			t.Errorf("%q %v: detail %q, want %q", c.file, c.args, cfg.Checks.Detail, c.want)
		}
	}
}

func TestBadEnvFlag(t *testing.T) {
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := BindCheckFlags(fs)
	if err := fs.Parse([]string{"--env", "novalue"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(fl, t.TempDir()); err == nil || !strings.Contains(err.Error(), `--env "novalue": want key=value`) {
		t.Errorf("err = %v", err)
	}
	if env, err := ParseEnv([]string{"a=b=c", " k =v"}); err != nil || env["a"] != "b=c" || env["k"] != "v" {
		t.Errorf("ParseEnv = %v, %v", env, err)
	}
}
