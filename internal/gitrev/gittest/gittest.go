// Package gittest builds real git repositories in temporary directories for
// tests of pull-request mode: write files, commit, read commit ids.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Repo is a git working tree in a temporary directory.
type Repo struct {
	t   testing.TB
	Dir string
}

// New initialises an empty repository; the test is skipped when git is not
// installed.
func New(t testing.TB) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	r := &Repo{t: t, Dir: t.TempDir()}
	r.Git("init", "-q", "-b", "main")
	return r
}

// env isolates the repository from the user's and the system's git
// configuration (the global file is one that does not exist: git reads it
// as empty, and nothing can clobber a shared file through it) and fixes the
// identity and dates, so commit ids are the same on every run.
var env = []string{
	"GIT_CONFIG_NOSYSTEM=1",
	"GIT_AUTHOR_NAME=plumb test", "GIT_AUTHOR_EMAIL=test@plumb.invalid",
	"GIT_COMMITTER_NAME=plumb test", "GIT_COMMITTER_EMAIL=test@plumb.invalid",
	"GIT_AUTHOR_DATE=2025-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2025-01-01T00:00:00Z",
}

// Git runs a git command in the repository and returns its trimmed output;
// a failure fails the test.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	return Run(r.t, r.Dir, args...)
}

// Run runs git in dir with the isolated environment.
func Run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), env...), "GIT_CONFIG_GLOBAL="+filepath.Join(t.TempDir(), "no-global-config"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// Write creates or replaces files (repository-relative slash paths) with
// the given contents, creating directories as needed.
func (r *Repo) Write(files map[string]string) {
	r.t.Helper()
	for name, content := range files {
		p := filepath.Join(r.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Remove deletes files or directories.
func (r *Repo) Remove(names ...string) {
	r.t.Helper()
	for _, name := range names {
		if err := os.RemoveAll(filepath.Join(r.Dir, filepath.FromSlash(name))); err != nil {
			r.t.Fatal(err)
		}
	}
}

// Symlink creates a symbolic link name pointing at target.
func (r *Repo) Symlink(target, name string) {
	r.t.Helper()
	p := filepath.Join(r.Dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		r.t.Fatal(err)
	}
}

// Commit stages everything and commits it; it returns the commit id.
func (r *Repo) Commit(message string) string {
	r.t.Helper()
	r.Git("add", "-A")
	r.Git("commit", "-q", "--allow-empty", "-m", message)
	return r.Git("rev-parse", "HEAD")
}

// Open wraps an existing working tree (a clone made by the test).
func Open(t testing.TB, dir string) *Repo { return &Repo{t: t, Dir: dir} }
