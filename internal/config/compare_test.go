package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestReferenceSection(t *testing.T) {
	root := t.TempDir()
	f, err := ParseFile(".plumb.yaml", []byte("reference:\n  path: ref\n  diff_config: diff.yaml\n  overrides: ov.yaml\n  targets: [overlays/*]\n"))
	if err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := BindCheckFlags(fs)
	cfg, err := Resolve(f, fl, root)
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Reference
	if r.Path != filepath.Join(root, "ref") || r.Display != "ref" || r.DiffConfigDisplay != "diff.yaml" || r.OverridesDisplay != "ov.yaml" || len(r.Targets) != 1 {
		t.Errorf("reference %+v", r)
	}
	// The reference's own files are never loaded as manifests.
	if got := strings.Join(cfg.Exclude, " "); got != "ref/** diff.yaml ov.yaml" {
		t.Errorf("exclude %q", got)
	}

	// Flags win; a path outside the repository is shown as given.
	if err := fs.Parse([]string{"--reference", "/elsewhere/ref", "--diff-config", "other.yaml"}); err != nil {
		t.Fatal(err)
	}
	cfg, err = Resolve(f, fl, root)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Reference.Path != "/elsewhere/ref" || cfg.Reference.Display != "/elsewhere/ref" || cfg.Reference.DiffConfigDisplay != "other.yaml" {
		t.Errorf("flags: %+v", cfg.Reference)
	}

	// Without a reference nothing is compared; a diff config alone is an error.
	cfg, err = Resolve(&File{}, BindCheckFlags(pflag.NewFlagSet("c", pflag.ContinueOnError)), root)
	if err != nil || cfg.Reference.Path != "" {
		t.Errorf("no reference: %+v %v", cfg.Reference, err)
	}
	if _, err := Resolve(&File{Reference: ReferenceFile{DiffConfig: "d.yaml"}}, BindCheckFlags(pflag.NewFlagSet("c", pflag.ContinueOnError)), root); err == nil || !strings.Contains(err.Error(), "need a reference") {
		t.Errorf("diff config without a reference: %v", err)
	}
	if _, err := ParseFile(".plumb.yaml", []byte("reference:\n  paht: x\n")); err == nil || !strings.Contains(err.Error(), `.plumb.yaml:2:3: unknown key "paht" in reference`) {
		t.Errorf("unknown key: %v", err)
	}
}
