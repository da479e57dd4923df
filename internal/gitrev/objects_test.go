package gitrev_test

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/gitrev"
	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
)

// history commits versions of a few files that change a little each time,
// so that packing stores most of them as deltas. It returns the commits and
// the files of each.
func history(t *testing.T, r *gittest.Repo, n int) ([]string, map[string]map[string]string) {
	var commits []string
	content := map[string]map[string]string{}
	for v := 0; v < n; v++ {
		files := map[string]string{}
		for f := 0; f < 5; f++ {
			var b strings.Builder
			for line := 0; line < 200; line++ {
				fmt.Fprintf(&b, "key%03d: value %d of file %d\n", line, line*(1+f), f)
				if line%40 == v%40 {
					fmt.Fprintf(&b, "changed: version %d\n", v)
				}
			}
			files[fmt.Sprintf("apps/app%d/config.yaml", f)] = b.String()
		}
		r.Write(files)
		c := r.Commit(fmt.Sprintf("v%d", v))
		commits = append(commits, c)
		content[c] = files
	}
	return commits, content
}

// sameFiles checks every file of the tree at commit against what was
// committed.
func sameFiles(t *testing.T, dir, commit string, want map[string]string) {
	t.Helper()
	tree := open(t, dir, commit, gitrev.Options{})
	n := 0
	err := fs.WalkDir(tree, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		got, err := fs.ReadFile(tree, p)
		if err != nil {
			return err
		}
		if string(got) != want[p] {
			return fmt.Errorf("%s at %s differs from what was committed", p, commit[:8])
		}
		if info, _ := d.Info(); info.Size() != int64(len(got)) {
			return fmt.Errorf("%s: size %d, content %d bytes", p, info.Size(), len(got))
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(want) {
		t.Fatalf("%d files, want %d", n, len(want))
	}
}

func TestPackedObjectsWithDeltas(t *testing.T) {
	src := gittest.New(t)
	commits, content := history(t, src, 12)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"offset deltas", []string{"repack", "-adf", "-q"}},
		{"ref deltas", []string{"-c", "repack.usedeltabaseoffset=false", "repack", "-adf", "-q"}},
		{"aggressive", []string{"gc", "--aggressive", "-q"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			gittest.Run(t, dir, "clone", "-q", "--no-local", src.Dir, ".")
			r := gittest.Open(t, dir)
			r.Git(c.args...)
			if loose := r.Git("count-objects"); !strings.HasPrefix(loose, "0 objects") {
				t.Fatalf("objects left loose: %s", loose)
			}
			if !strings.Contains(r.Git("verify-pack", "-v", r.Git("rev-parse", "--git-path", "objects/pack")+"/"+packName(t, r)), "chain length") {
				t.Fatal("the pack has no deltas")
			}
			for _, commit := range []string{commits[0], commits[5], commits[11]} {
				sameFiles(t, dir, commit, content[commit])
			}
		})
	}
}

func packName(t *testing.T, r *gittest.Repo) string {
	matches, _ := filepath.Glob(filepath.Join(r.Dir, ".git", "objects", "pack", "*.idx"))
	if len(matches) != 1 {
		t.Fatalf("packs: %v", matches)
	}
	return filepath.Base(matches[0])
}

func TestRefsTagsAndAbbreviations(t *testing.T) {
	r := gittest.New(t)
	commits, _ := history(t, r, 3)
	r.Git("tag", "light", commits[0])
	r.Git("tag", "-a", "-m", "annotated", "v1", commits[1])
	r.Git("branch", "feature", commits[0])
	r.Git("update-ref", "refs/remotes/origin/main", commits[1])
	r.Git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
	check := func(stage string) {
		t.Helper()
		for ref, want := range map[string]string{
			"HEAD": commits[2], "main": commits[2], "refs/heads/main": commits[2],
			"light": commits[0], "v1": commits[1], "feature": commits[0],
			"origin/main": commits[1], "origin": commits[1], commits[1][:10]: commits[1],
			"HEAD~2": commits[0], "main^": commits[1], "main^{}": commits[2], "main^0": commits[2], "main~1^1": commits[0], "@": commits[2], "v1^{commit}": commits[1],
		} {
			tree, err := gitrev.Open(context.Background(), r.Dir, ref, gitrev.Options{})
			if err != nil {
				t.Errorf("%s: %s: %v", stage, ref, err)
				continue
			}
			if tree.Commit != want {
				t.Errorf("%s: %s is %s, want %s", stage, ref, tree.Commit[:8], want[:8])
			}
			tree.Close()
		}
	}
	check("loose refs")
	// What is not implemented is refused, never resolved to another commit.
	for _, ref := range []string{"main@{1}", "@{u}", "main^{tree}", "main^{/v0}", "main:apps", "main..HEAD"} {
		if _, err := gitrev.Open(context.Background(), r.Dir, ref, gitrev.Options{}); err == nil || !strings.Contains(err.Error(), "give a commit id") {
			t.Errorf("%s: %v", ref, err)
		}
	}
	r.Git("pack-refs", "--all")
	check("packed refs")
}

func TestWithoutTheGitCommand(t *testing.T) {
	r := gittest.New(t)
	commits, _ := history(t, r, 2)
	r.Git("gc", "-q")
	t.Setenv("PATH", t.TempDir()) // no git from here on
	sameAsGitless := func(ref string) {
		tree := open(t, r.Dir, ref, gitrev.Options{})
		if tree.Commit != commits[0] {
			t.Errorf("%s: %s", ref, tree.Commit)
		}
		if _, err := fs.ReadFile(tree, "apps/app3/config.yaml"); err != nil {
			t.Error(err)
		}
	}
	sameAsGitless(commits[0])
	sameAsGitless("main~1") // revision expressions need no git command either
}

func TestLinkedWorktreeAndAlternates(t *testing.T) {
	r := gittest.New(t)
	commits, content := history(t, r, 2)
	wt := filepath.Join(t.TempDir(), "wt")
	r.Git("worktree", "add", "-q", wt, commits[0])
	tree := open(t, wt, "main", gitrev.Options{})
	if tree.Commit != commits[1] {
		t.Errorf("main from a linked worktree: %s", tree.Commit)
	}
	if tree := open(t, wt, "HEAD", gitrev.Options{}); tree.Commit != commits[0] {
		t.Errorf("the linked worktree's own HEAD: %s", tree.Commit)
	}

	shared := t.TempDir()
	gittest.Run(t, shared, "clone", "-q", "--shared", r.Dir, ".")
	sameFiles(t, shared, commits[0], content[commits[0]])
}
