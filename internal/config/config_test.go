package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestUnknownKeysNameTheLine(t *testing.T) {
	_, err := ParseFile(".plumb.yaml", []byte("paths: [a]\nfail_onn: warning\nlimits:\n  max_depht: 3\n"))
	if err == nil {
		t.Fatal("unknown keys accepted")
	}
	want := []string{
		`.plumb.yaml:2:1: unknown key "fail_onn" (known keys: base_ref, cache, checks, exclude, fail_on, format, gate, helm, include, kubernetes_version, kubevirt, limits, params, paths, policies, reference, remote, rules, schema, suppressions, targets, template_params)`,
		`.plumb.yaml:4:3: unknown key "max_depht" in limits (known keys: max_alias_nodes, max_depth, max_file_size, max_target_size, max_target_time)`,
	}
	if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", err, strings.Join(want, "\n"))
	}
}

func TestTypeErrorsNameTheLine(t *testing.T) {
	_, err := ParseFile("c.yaml", []byte("paths: [a]\nlimits:\n  max_depth: deep\n"))
	if err == nil || err.Error() != `c.yaml:3:14: limits.max_depth: the value is the string "deep", want a whole number` {
		t.Fatalf("err = %v", err)
	}
	// Located as the loader locates a manifest's syntax error: where the
	// document stops being valid (here its end).
	_, err = ParseFile("c.yaml", []byte("paths: [a\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "c.yaml:2:1: YAML syntax error:") {
		t.Fatalf("syntax err = %v", err)
	}
}

func TestEmptyFile(t *testing.T) {
	f, err := ParseFile("c.yaml", []byte("# nothing\n"))
	if err != nil || f == nil {
		t.Fatalf("%v %v", f, err)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"10MiB": 10 << 20, "512KiB": 512 << 10, "1Gi": 1 << 30, "2MB": 2e6, "100": 100, "7 B": 7} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "ten", "-1", "0", "1.5MiB", "99999999999GiB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
}

func TestFlagsWinOverFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, DefaultFile), []byte("paths: [apps]\nfail_on: warning\nformat: [json]\nexclude: [a/**]\nlimits: {max_file_size: 1MiB, max_depth: 50}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := BindCheckFlags(fs)
	if err := fs.Parse([]string{"--fail-on", "never", "--max-depth", "70", "--exclude", "b/**"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(fl, dir)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.File != DefaultFile || cfg.FailOn != FailOnNever || cfg.Limits.MaxDepth != 70 || cfg.Limits.MaxFileBytes != 1<<20 {
		t.Errorf("cfg = %+v", cfg)
	}
	if !slices.Equal(cfg.Paths, []string{"apps"}) || !slices.Equal(cfg.Formats, []string{"json"}) || !slices.Equal(cfg.Exclude, []string{"a/**", "b/**"}) {
		t.Errorf("paths %v formats %v exclude %v", cfg.Paths, cfg.Formats, cfg.Exclude)
	}
	// Positional paths replace the file's paths.
	fl.Paths = []string{"other"}
	if cfg, err = Load(fl, dir); err != nil || !slices.Equal(cfg.Paths, []string{"other"}) {
		t.Errorf("paths = %v, %v", cfg.Paths, err)
	}
}

func TestBadValuesAreReportedTogether(t *testing.T) {
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := BindCheckFlags(fs)
	if err := fs.Parse([]string{"--root", "/repo", "--fail-on", "sometimes", "--max-file-size", "huge", "/elsewhere"}); err != nil {
		t.Fatal(err)
	}
	fl.Paths = fs.Args()
	_, err := Resolve(nil, fl, "/repo")
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"/elsewhere: outside the repository root /repo", `fail-on "sometimes"`, `--max-file-size: size "huge"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

func TestMissingConfigFile(t *testing.T) {
	fl := BindCheckFlags(pflag.NewFlagSet("x", pflag.ContinueOnError))
	fl.ConfigFile = filepath.Join(t.TempDir(), "nope.yaml")
	if _, err := Load(fl, t.TempDir()); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("err = %v", err)
	}
}

func TestKubeVirtTemplates(t *testing.T) {
	file, err := ParseFile(".plumb.yaml", []byte("kubevirt:\n  templates: [vendor/templates/, /abs/dir]\n"))
	if err != nil {
		t.Fatal(err)
	}
	fl := &Flags{KubeVirtTemplates: []string{"more"}}
	cfg, err := Resolve(file, fl, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.KubeVirt.TemplateDirs, ","); got != "vendor/templates,/abs/dir,more" {
		t.Errorf("template dirs %q", got)
	}
	if _, err := ParseFile(".plumb.yaml", []byte("kubevirt:\n  template: [x]\n")); err == nil || !strings.Contains(err.Error(), `.plumb.yaml:2:3: unknown key "template" in kubevirt (known keys: templates)`) {
		t.Errorf("unknown key: %v", err)
	}
}

// TestBadFileValuesNameTheLine: a value of the right type but not a valid
// one is reported at its line too.
func TestBadFileValuesNameTheLine(t *testing.T) {
	file, err := ParseFile(".plumb.yaml", []byte(
		"fail_on: sometimes\ngate: old\nexclude: [ok/**, \"[a\"]\nlimits:\n  max_file_size: lots\n  max_depth: 0\n  max_alias_nodes: -5\nrules:\n  mask_secrets: maybe\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Resolve(file, BindCheckFlags(pflag.NewFlagSet("check", pflag.ContinueOnError)), t.TempDir())
	if err == nil {
		t.Fatal("accepted")
	}
	want := []string{
		`.plumb.yaml:3:18: exclude "[a": not a valid pattern (doublestar syntax, e.g. 'charts/**')`,
		`.plumb.yaml:1:10: fail_on "sometimes": want error, warning or never`,
		`.plumb.yaml:5:18: limits.max_file_size: size "lots": want a positive number of bytes, optionally with a unit such as KiB or MiB`,
		`.plumb.yaml:6:14: limits.max_depth 0: want a positive number`,
		`.plumb.yaml:7:20: limits.max_alias_nodes -5: want a positive number`,
		`.plumb.yaml:9:17: rules.mask_secrets "maybe": want always, never or sensitive`,
		`.plumb.yaml:2:7: gate "old": want new or all`,
	}
	if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", err, strings.Join(want, "\n"))
	}
}

func TestLimitFlagsMustBePositive(t *testing.T) {
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := BindCheckFlags(fs)
	if err := fs.Parse([]string{"--max-depth", "0", "--max-alias-nodes", "-1", "--exclude", "a/{b"}); err != nil {
		t.Fatal(err)
	}
	_, err := Resolve(nil, fl, t.TempDir())
	for _, want := range []string{"--max-depth 0: want a positive number", "--max-alias-nodes -1: want a positive number", `--exclude "a/{b": not a valid pattern`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not mention %q", err, want)
		}
	}
}

// TestSelectFromTheDefaultFileNamesIt: problems with the checks.select
// list of the .plumb.yaml found in the working directory name that file.
func TestSelectFromTheDefaultFileNamesIt(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, DefaultFile), []byte("checks:\n  select: [A10001]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(BindCheckFlags(pflag.NewFlagSet("check", pflag.ContinueOnError)), dir)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Checks.SelectSource != DefaultFile {
		t.Errorf("select source %q, want %q", cfg.Checks.SelectSource, DefaultFile)
	}
}
