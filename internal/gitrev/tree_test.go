package gitrev_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plumb-ci/plumb/internal/gitrev"
	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
	"github.com/plumb-ci/plumb/internal/manifest"
)

func open(t *testing.T, dir, ref string, opts gitrev.Options) *gitrev.Tree {
	t.Helper()
	tree, err := gitrev.Open(context.Background(), dir, ref, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", ref, err)
	}
	t.Cleanup(func() { tree.Close() })
	return tree
}

func TestTreeIsTheCommitNotTheWorkingTree(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{
		"apps/web/deploy.yaml": "kind: Deployment\n",
		"apps/web/svc.yaml":    "kind: Service\n",
		"base/cm.yaml":         "kind: ConfigMap\n",
		"README.md":            "hello\n",
	})
	r.Symlink("../../base/cm.yaml", "apps/web/cm.yaml")
	r.Symlink("base", "current")
	base := r.Commit("base")
	// The working tree moves on: the tree must not see any of it.
	r.Write(map[string]string{"apps/web/deploy.yaml": "kind: StatefulSet\n", "apps/new.yaml": "x\n"})
	r.Remove("README.md")
	r.Commit("head")
	r.Write(map[string]string{"apps/web/svc.yaml": "uncommitted\n"})
	status := r.Git("status", "--porcelain")

	tree := open(t, r.Dir, base, gitrev.Options{})
	if tree.Commit != base {
		t.Errorf("commit %s, want %s", tree.Commit, base)
	}
	if err := fstest.TestFS(tree, "apps/web/deploy.yaml", "apps/web/svc.yaml", "apps/web/cm.yaml", "base/cm.yaml", "README.md"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"apps/web/deploy.yaml": "kind: Deployment\n",
		"apps/web/svc.yaml":    "kind: Service\n",
		"apps/web/cm.yaml":     "kind: ConfigMap\n", // through the link
		"current/cm.yaml":      "kind: ConfigMap\n", // through a directory link
		"README.md":            "hello\n",
	} {
		got, err := fs.ReadFile(tree, name)
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := fs.Stat(tree, "apps/new.yaml"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a file added after the commit: %v", err)
	}
	if target, err := tree.ReadLink("current"); err != nil || target != "base" {
		t.Errorf("ReadLink: %q, %v", target, err)
	}
	if st, err := tree.Lstat("current"); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat: %v, %v", st, err)
	}
	if after := r.Git("status", "--porcelain"); after != status {
		t.Errorf("reading the revision changed the working tree:\n%s\nbecame\n%s", status, after)
	}
}

func TestTreeOfASubdirectory(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{
		"deploy/a.yaml":     "a\n",
		"deploy/sub/b.yaml": "b\n",
		"secrets/key.pem":   "KEY\n",
	})
	r.Symlink("../secrets/key.pem", "deploy/escape.yaml")
	r.Symlink("/etc/passwd", "deploy/absolute.yaml")
	r.Symlink("loop2.yaml", "deploy/loop1.yaml")
	r.Symlink("loop1.yaml", "deploy/loop2.yaml")
	r.Symlink("sub/../sub/b.yaml", "deploy/inside.yaml")
	commit := r.Commit("c")

	tree := open(t, filepath.Join(r.Dir, "deploy"), "HEAD", gitrev.Options{})
	if tree.Commit != commit {
		t.Errorf("commit %s, want %s", tree.Commit, commit)
	}
	entries, err := fs.ReadDir(tree, ".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "a.yaml absolute.yaml escape.yaml inside.yaml loop1.yaml loop2.yaml sub" {
		t.Errorf("root entries: %s", got)
	}
	for _, name := range []string{"escape.yaml", "absolute.yaml"} {
		if _, err := fs.ReadFile(tree, name); !errors.Is(err, gitrev.ErrEscapes) {
			t.Errorf("%s: %v, want the escape refused", name, err)
		}
	}
	if _, err := fs.ReadFile(tree, "loop1.yaml"); err == nil || !strings.Contains(err.Error(), "too many levels") {
		t.Errorf("loop: %v", err)
	}
	if got, err := fs.ReadFile(tree, "inside.yaml"); err != nil || string(got) != "b\n" {
		t.Errorf("inside link: %q, %v", got, err)
	}
	if _, err := fs.Stat(tree, "../secrets/key.pem"); err == nil {
		t.Error("a path outside the root was accepted")
	}
}

func TestLoaderReportsEscapesAndLimitsAsInTheWorkingTree(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{
		"ok.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n",
		"big.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata: {k: " + strings.Repeat("x", 2000) + "}\n",
		"outside.yaml": "x: 1\n",
	})
	r.Commit("c")
	r.Remove("outside.yaml")
	r.Symlink("../../etc/hostname", "outside.yaml")
	r.Commit("link")

	tree := open(t, r.Dir, "HEAD", gitrev.Options{MaxFileBytes: 1000})
	set := manifest.Load(tree, []string{"."}, manifest.LoadOptions{Limits: manifest.Limits{MaxFileBytes: 1000}})
	rules := map[string]string{}
	for _, p := range set.Problems {
		rules[p.Location.File] = p.Rule
	}
	if rules["big.yaml"] != manifest.RuleTooLarge {
		t.Errorf("big.yaml: %q, want %s (problems %v)", rules["big.yaml"], manifest.RuleTooLarge, set.Problems)
	}
	if rules["outside.yaml"] != manifest.RuleOutsideRepo {
		t.Errorf("outside.yaml: %q, want %s (problems %v)", rules["outside.yaml"], manifest.RuleOutsideRepo, set.Problems)
	}
	if len(set.Documents) != 1 || set.Documents[0].File != "ok.yaml" {
		t.Errorf("documents: %v", set.Documents)
	}
	f, err := tree.Open("big.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := f.Stat(); st.Size() <= 1000 {
		t.Errorf("Stat size %d", st.Size())
	}
	if _, err := io.ReadAll(f); err == nil || !strings.Contains(err.Error(), "over the 1000-byte limit") {
		t.Errorf("reading a file over the limit: %v", err)
	}
}

func TestShallowCloneSaysHowToFetchTheBase(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{"a.yaml": "a: 1\n"})
	base := r.Commit("base")
	r.Write(map[string]string{"a.yaml": "a: 2\n"})
	r.Commit("head")

	clone := t.TempDir()
	gittest.Run(t, clone, "clone", "-q", "--depth=1", "file://"+r.Dir, ".")
	_, err := gitrev.Open(context.Background(), clone, base, gitrev.Options{})
	if err == nil {
		t.Fatal("a missing base commit was accepted")
	}
	for _, want := range []string{"shallow", "git fetch --no-tags --depth=1 origin " + base, "fetch-depth: 0"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %v", want, err)
		}
	}
	// After the fetch the message recommends, the base is readable.
	gittest.Run(t, clone, "fetch", "-q", "--no-tags", "--depth=1", "origin", base)
	tree := open(t, clone, base, gitrev.Options{})
	if got, _ := fs.ReadFile(tree, "a.yaml"); string(got) != "a: 1\n" {
		t.Errorf("base content %q", got)
	}

	_, err = gitrev.Open(context.Background(), clone, "origin/release", gitrev.Options{})
	if err == nil || !strings.Contains(err.Error(), "+refs/heads/release:refs/remotes/origin/release") {
		t.Errorf("missing branch: %v", err)
	}
}

func TestBadRevisionsAndDirectories(t *testing.T) {
	r := gittest.New(t)
	r.Write(map[string]string{"a.yaml": "a: 1\n"})
	r.Commit("c")
	for _, ref := range []string{"no-such-branch", "--output=/tmp/x", ""} {
		if _, err := gitrev.Open(context.Background(), r.Dir, ref, gitrev.Options{}); err == nil {
			t.Errorf("%q accepted", ref)
		} else if !strings.Contains(err.Error(), "base revision") {
			t.Errorf("%q: %v", ref, err)
		}
	}
	notRepo := t.TempDir()
	if _, err := gitrev.Open(context.Background(), notRepo, "HEAD", gitrev.Options{}); err == nil || !strings.Contains(err.Error(), "not inside a git repository") {
		t.Errorf("not a repository: %v", err)
	}
}
