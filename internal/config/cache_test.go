package config

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// resolveWith parses the file content (none when "") and the flags, as the
// CLI resolves them in the repository root dir.
func resolveWith(t *testing.T, dir, file string, args ...string) (*Config, error) {
	t.Helper()
	var f *File
	if file != "" {
		var err error
		if f, err = ParseFile(".plumb.yaml", []byte(file)); err != nil {
			t.Fatal(err)
		}
	}
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := BindCheckFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return Resolve(f, fl, dir)
}

func TestCacheSettings(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", filepath.Join(root, "xdg"))
	outside := filepath.Join(t.TempDir(), "c")
	for _, c := range []struct {
		name, file string
		args       []string
		dir        string
		max        int64
		excluded   string
	}{
		{name: "default", dir: filepath.Join(root, "xdg", "plumb"), max: 1 << 30, excluded: "xdg/plumb/**"},
		{name: "off", args: []string{"--no-cache"}, max: 1 << 30},
		{name: "off wins over a directory", args: []string{"--no-cache", "--cache-dir", outside}, max: 1 << 30},
		{name: "flag", args: []string{"--cache-dir", outside, "--cache-max-size", "200MiB"}, dir: outside, max: 200 << 20},
		{name: "file, relative to the root", file: "cache:\n  dir: .plumb-cache\n  max_size: 2GiB\n", dir: filepath.Join(root, ".plumb-cache"), max: 2 << 30, excluded: ".plumb-cache/**"},
		{name: "flag wins over the file", file: "cache:\n  dir: .plumb-cache\n  max_size: 2GiB\n", args: []string{"--cache-dir", outside, "--cache-max-size", "1MiB"}, dir: outside, max: 1 << 20},
	} {
		cfg, err := resolveWith(t, root, c.file, c.args...)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if cfg.Cache.Dir != c.dir || cfg.Cache.MaxBytes != c.max {
			t.Errorf("%s: cache %+v, want dir %q max %d", c.name, cfg.Cache, c.dir, c.max)
		}
		excluded := slices.ContainsFunc(cfg.Exclude, func(p string) bool { return strings.Contains(p, "cache") || strings.Contains(p, "xdg") })
		if (c.excluded != "") != excluded || (c.excluded != "" && !slices.Contains(cfg.Exclude, c.excluded)) {
			t.Errorf("%s: excludes %q, want %q", c.name, cfg.Exclude, c.excluded)
		}
	}
}

func TestCacheSettingErrors(t *testing.T) {
	root := t.TempDir()
	for _, c := range []struct {
		file string
		args []string
		want string
	}{
		{file: "cache:\n  max_size: huge\n", want: `.plumb.yaml:2:13: cache.max_size "huge": want a size such as 512MiB or 2GiB`},
		{args: []string{"--cache-max-size", "0"}, want: `--cache-max-size "0": want a size such as 512MiB or 2GiB`},
		{args: []string{"--cache-dir", root}, want: "is the repository root: give it a directory of its own"},
	} {
		_, err := resolveWith(t, root, c.file, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %q: err %v, want %q", c.file, c.args, err, c.want)
		}
	}
}
