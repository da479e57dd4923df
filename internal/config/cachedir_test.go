package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
)

// resolveRepoFile resolves the repository's own .plumb.yaml (content) in
// the repository dir, with the flags.
func resolveRepoFile(t *testing.T, dir, content string, args ...string) (*Config, error) {
	t.Helper()
	f, err := ParseFile(".plumb.yaml", []byte(content))
	if err != nil {
		t.Fatal(err)
	}
	f.path = filepath.Join(dir, ".plumb.yaml")
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := BindCheckFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return Resolve(f, fl, dir)
}

// The repository's .plumb.yaml chooses a cache directory inside the
// repository that is not its content, or the run stops at the line: not
// outside, not in .git, not through a link, not the root, not holding a
// path plumb checks or files the commit tracks. The workflow's
// --cache-dir may name anything; a directory of the checkout holding
// committed files, or reached through a link there, is not used (a
// warning), and is not left out of the inputs.
func TestCacheDirInTheRepositorysConfiguration(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{
		"deploy/pod.yaml":      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",
		"docs/cache/notes.txt": "tracked\n",
		".gitignore":           ".plumb-cache/\n",
	})
	r.Symlink("/tmp", "out")
	r.Symlink(".git", "gitlink")
	r.Symlink("deploy", "inside")
	r.Commit("repo")
	root := r.Dir
	outside := filepath.Join(t.TempDir(), "c")
	for _, c := range []struct {
		dir, paths, want string
	}{
		{dir: outside, want: "it is an absolute path"},
		{dir: "../elsewhere", want: "it leads outside the repository"},
		{dir: ".git/plumb", want: "it leads into .git"},
		{dir: ".GIT/plumb", want: "it leads into .git"},
		{dir: "out/plumb", want: "it leads outside the repository through a symbolic link"},
		{dir: "gitlink/plumb", want: "through a symbolic link, it leads into .git"},
		{dir: "inside/.cache", want: "inside is a symbolic link: a cache directory in the repository's configuration is reached without links"},
		{dir: ".", want: "it is the repository root"},
		{dir: "deploy/..", want: "it is the repository root"},
		{dir: "deploy", paths: "paths: [deploy/pod.yaml]\n", want: "it holds deploy/pod.yaml, a path plumb checks"},
		{dir: "deploy", want: "it holds files the checked-out commit tracks"},
		{dir: "docs/cache", want: "it holds files the checked-out commit tracks"},
	} {
		_, err := resolveRepoFile(t, root, c.paths+"cache:\n  dir: "+c.dir+"\n")
		line := strings.Count(c.paths, "\n") + 2
		wantAt := ".plumb.yaml:" + string(rune('0'+line)) + ":8: cache.dir "
		if err == nil || !strings.Contains(err.Error(), wantAt) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("cache.dir %s: %v, want %q at %s", c.dir, err, c.want, wantAt)
		}
	}
	// A directory git does not track, existing or not, is used and left
	// out of the inputs.
	if err := os.MkdirAll(filepath.Join(root, ".plumb-cache"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".plumb-cache", "build/cache", "deploy/.cache"} {
		cfg, err := resolveRepoFile(t, root, "paths: [deploy]\ncache:\n  dir: "+d+"\n")
		if err != nil || cfg.Cache.Dir != filepath.Join(root, d) || cfg.Cache.Refused != "" || !slices.Contains(cfg.Exclude, d+"/**") {
			t.Errorf("cache.dir %s: %+v, %v; want it used and excluded", d, cfg, err)
		}
	}
	// The workflow's directory may be anywhere; in the checkout, a
	// committed one or one reached through a link is not used.
	for _, c := range []struct {
		dir, refused string
	}{
		{dir: outside},
		{dir: filepath.Join(root, ".git", "plumb")},
		{dir: filepath.Join(root, ".plumb-cache")},
		{dir: filepath.Join(root, "deploy"), refused: "holds files the checked-out commit tracks"},
		{dir: filepath.Join(root, "inside"), refused: "holds files the checked-out commit tracks"},
		{dir: filepath.Join(root, "out", "plumb"), refused: "is reached through the symbolic link out in the repository"},
	} {
		cfg, err := resolveRepoFile(t, root, "cache:\n  dir: ../ignored\n", "--cache-dir", c.dir)
		if err != nil {
			t.Errorf("--cache-dir %s: %v", c.dir, err)
			continue
		}
		excluded := slices.ContainsFunc(cfg.Exclude, func(p string) bool { return strings.HasSuffix(p, "/**") })
		if cfg.Cache.Dir != c.dir || !strings.Contains(cfg.Cache.Refused, c.refused) || (c.refused == "") != (cfg.Cache.Refused == "") ||
			(c.refused != "" && excluded) {
			t.Errorf("--cache-dir %s: refused %q, excludes %q; want refused %q and, if refused, nothing excluded", c.dir, cfg.Cache.Refused, cfg.Exclude, c.refused)
		}
	}
}
