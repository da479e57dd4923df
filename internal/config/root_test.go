package config

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/spf13/pflag"
)

// tree makes directories and files (a name ending in "/" is a directory)
// under a temporary directory and returns it.
func tree(t *testing.T, entries ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, e := range entries {
		p := filepath.Join(dir, filepath.FromSlash(e))
		if e[len(e)-1] == '/' {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func resolveIn(t *testing.T, cwd string, args ...string) *Config {
	t.Helper()
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := BindCheckFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	fl.Paths = fs.Args()
	cfg, err := Load(fl, cwd)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The root is the git top level of the working directory, so a check run
// in an overlay builds it with its bases and reports repository paths; a
// path outside it (another repository) takes that one's top level; without
// git, the working directory or the paths' common parent.
func TestRootDiscovery(t *testing.T) {
	base := tree(t, "repo/.git/", "repo/apps/shop/overlays/dev/", "other/.git", "other/deploy/", "plain/a/", "plain/b/", "loose/x/")
	repo, other, plain := filepath.Join(base, "repo"), filepath.Join(base, "other"), filepath.Join(base, "plain")
	// A kustomize tree without git: the overlay reaches ../../base, which
	// reaches ../components/tls (a remote entry and a file are not dirs
	// to follow).
	kust := filepath.Join(base, "kust")
	for name, data := range map[string]string{
		"overlays/prod/kustomization.yaml":  "resources:\n  - ../../base\n  - github.com/org/repo//x?ref=v1\n  - extra.yaml\n",
		"overlays/prod/extra.yaml":          "{}\n",
		"base/kustomization.yaml":           "resources: [deploy.yaml]\ncomponents: [../components/tls]\n",
		"base/deploy.yaml":                  "{}\n",
		"components/tls/kustomization.yaml": "kind: Component\n",
	} {
		writeFile(t, filepath.Join(kust, name), data)
	}
	dev := filepath.Join(repo, "apps/shop/overlays/dev")
	for _, c := range []struct {
		name, cwd string
		args      []string
		root      string
		paths     []string
	}{
		{"from a subdirectory", dev, []string{"."}, repo, []string{"apps/shop/overlays/dev"}},
		{"default path", dev, nil, repo, []string{"apps/shop/overlays/dev"}},
		{"another repository (worktree .git file)", dev, []string{filepath.Join(other, "deploy")}, other, []string{"deploy"}},
		{"another repository's root", dev, []string{other}, other, []string{"."}},
		{"no git: the working directory", filepath.Join(plain, "a"), []string{"."}, filepath.Join(plain, "a"), []string{"."}},
		{"no git: the common parent", filepath.Join(base, "loose"), []string{filepath.Join(plain, "a"), filepath.Join(plain, "b")}, plain, []string{"a", "b"}},
		{"--root wins", dev, []string{"--root", dev, "."}, dev, []string{"."}},
		{"no git: an overlay with its bases", filepath.Join(kust, "overlays/prod"), []string{"."}, kust, []string{"overlays/prod"}},
		{"no git: an overlay by absolute path", filepath.Join(base, "loose"), []string{filepath.Join(kust, "overlays/prod")}, kust, []string{"overlays/prod"}},
		{"no git: an overlay, no path", filepath.Join(kust, "overlays/prod"), nil, kust, []string{"overlays/prod"}},
	} {
		cfg := resolveIn(t, c.cwd, c.args...)
		if cfg.Root != c.root || !slices.Equal(cfg.Paths, c.paths) {
			t.Errorf("%s: root %s paths %v, want %s %v", c.name, cfg.Root, cfg.Paths, c.root, c.paths)
		}
	}
}

// The .plumb.yaml that applies is the nearest one from the working
// directory up to the root; its paths are relative to where it is.
func TestConfigFileFromTheRoot(t *testing.T) {
	base := tree(t, "repo/.git/", "repo/apps/web/", "repo/policy/")
	repo := filepath.Join(base, "repo")
	conf := "checks:\n  dirs: [policy]\nschema:\n  crds: [policy]\nexclude: [charts/]\nfail_on: warning\n"
	if err := os.WriteFile(filepath.Join(repo, ".plumb.yaml"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := resolveIn(t, filepath.Join(repo, "apps/web"))
	if cfg.File != ".plumb.yaml" || cfg.FailOn != FailOnWarning {
		t.Errorf("config file %q, fail-on %s", cfg.File, cfg.FailOn)
	}
	if len(cfg.Checks.Dirs) != 1 || cfg.Checks.Dirs[0].Path != filepath.Join(repo, "policy") || cfg.Checks.Dirs[0].Display != "policy" {
		t.Errorf("checks dirs %+v", cfg.Checks.Dirs)
	}
	if len(cfg.Schema.CRDs) != 1 || cfg.Schema.CRDs[0].Path != filepath.Join(repo, "policy") || cfg.Schema.CRDs[0].Display != "policy" {
		t.Errorf("schema crds %+v", cfg.Schema.CRDs)
	}
	// A trailing slash names the directory.
	if !slices.Equal(cfg.Exclude, []string{"charts"}) {
		t.Errorf("exclude %v", cfg.Exclude)
	}
	// From outside the repository, the root's own file applies.
	cfg = resolveIn(t, base, filepath.Join(repo, "apps"))
	if cfg.File != ".plumb.yaml" || cfg.Root != repo || cfg.Checks.Dirs[0].Path != filepath.Join(repo, "policy") {
		t.Errorf("from outside: file %q root %s dirs %+v", cfg.File, cfg.Root, cfg.Checks.Dirs)
	}
}

func writeFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A kustomization reaching /etc or the home directory does not make it
// the root: the entry then leads outside, as under git.
func TestRootWithoutGitStaysOutOfSystemDirectories(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	project := filepath.Join(home, "src", "shop")
	writeFile(t, filepath.Join(project, "overlays/prod/kustomization.yaml"), "resources:\n  - ../../../../.ssh\n  - ../../../../../../../../../../../etc\n")
	writeFile(t, filepath.Join(home, ".ssh/kustomization.yaml"), "resources: []\n")
	cfg := resolveIn(t, filepath.Join(project, "overlays/prod"), ".")
	if cfg.Root != filepath.Join(project, "overlays/prod") {
		t.Errorf("root %s, want the overlay's directory", cfg.Root)
	}
	if widened("/srv/a", "/") != "/srv/a" || widened("/srv/a/b", "/srv") != "/srv/a/b" || widened("/srv/a/b", "/srv/a") != "/srv/a" {
		t.Error("widened allows a top-level directory")
	}
}
