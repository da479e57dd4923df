// Package gitrev reads a repository's tree at a git revision as an fs.FS,
// without touching the working tree, the index or any ref: plumb renders the
// pull request's base from it and runs the same stages over it as over the
// working tree. It drives the git command (ls-tree once, then one cat-file
// --batch process for file contents), so it works wherever actions/checkout
// does, with the repository's own object store.
package gitrev

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
)

// gitEnv keeps git from prompting for credentials, from fetching missing
// objects of a partial clone behind plumb's back (git ≥ 2.44 honours it), and
// from taking optional locks in a repository another process may be using.
var gitEnv = []string{
	"GIT_TERMINAL_PROMPT=0",
	"GIT_NO_LAZY_FETCH=1",
	"GIT_OPTIONAL_LOCKS=0",
	"LC_ALL=C",
}

// runGit runs git in dir and returns its standard output. Errors carry git's
// own message (its first line of standard error).
func runGit(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out, &gitError{args: args, stderr: strings.TrimSpace(stderr.String()), code: ee.ExitCode()}
		}
		if errors.Is(err, exec.ErrNotFound) {
			return nil, errors.New("the git command is not installed (reading a base revision needs it)")
		}
		return nil, fmt.Errorf("running git %s: %w", strings.Join(args, " "), err)
	}
	return out, nil
}

// gitError is a git command that exited non-zero.
type gitError struct {
	args   []string
	stderr string
	code   int
}

func (e *gitError) Error() string {
	msg := e.stderr
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.code)
	}
	return fmt.Sprintf("git %s: %s", e.args[0], strings.TrimPrefix(msg, "fatal: "))
}

// repository is where a directory sits in its git repository.
type repository struct {
	top    string // the working tree's top directory
	prefix string // the directory relative to top, slash-separated, "" at the top
}

// findRepository locates the repository that contains dir.
func findRepository(ctx context.Context, dir string) (*repository, error) {
	out, err := runGit(ctx, dir, "rev-parse", "--show-toplevel", "--show-prefix")
	if err != nil {
		var ge *gitError
		if errors.As(err, &ge) && strings.Contains(ge.stderr, "dubious ownership") {
			return nil, fmt.Errorf("git refuses to read %s: the directory belongs to another user (run: git config --global --add safe.directory %s)", dir, dir)
		}
		if errors.As(err, &ge) {
			return nil, fmt.Errorf("%s is not inside a git repository, so there is no base revision to compare with (%v)", dir, err)
		}
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	r := &repository{top: lines[0]}
	if len(lines) > 1 {
		r.prefix = strings.TrimSuffix(lines[1], "/")
	}
	return r, nil
}

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)
var abbrevSHA = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

// resolveCommit turns a revision into a full commit id, or explains how to
// make the commit available when the clone lacks it.
func resolveCommit(ctx context.Context, dir, ref string) (string, error) {
	if ref == "" || strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, "\x00\n") {
		return "", fmt.Errorf("base revision %q: not a revision name", ref)
	}
	out, err := runGit(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
	if err == nil {
		return strings.TrimSpace(string(out)), nil
	}
	var ge *gitError
	if !errors.As(err, &ge) {
		return "", err
	}
	return "", missingRevision(ctx, dir, ref)
}

// missingRevision builds the message for a revision the clone does not have:
// it names the fetch command that brings exactly that revision in.
func missingRevision(ctx context.Context, dir, ref string) error {
	shallow := false
	if out, err := runGit(ctx, dir, "rev-parse", "--is-shallow-repository"); err == nil {
		shallow = strings.TrimSpace(string(out)) == "true"
	}
	fetch := "git fetch --no-tags --depth=1 origin " + fetchSpec(ref)
	if shallow {
		return fmt.Errorf("base revision %q is not in this clone, which is shallow (actions/checkout fetches a single commit by default). "+
			"Fetch the base before running plumb: %s — or check out with fetch-depth: 0", ref, fetch)
	}
	return fmt.Errorf("base revision %q is not in this repository (no such commit, branch or tag). "+
		"If it exists on the remote, fetch it first: %s", ref, fetch)
}

// fetchSpec is what to fetch so that ref resolves afterwards: a commit id is
// fetched as is; a remote-tracking name (origin/main) or a branch name is
// fetched into the ref it names.
func fetchSpec(ref string) string {
	switch {
	case fullSHA.MatchString(ref):
		return ref
	case strings.HasPrefix(ref, "origin/"):
		b := strings.TrimPrefix(ref, "origin/")
		return "+refs/heads/" + b + ":refs/remotes/origin/" + b
	case strings.HasPrefix(ref, "refs/"):
		return "+" + ref + ":" + ref
	case abbrevSHA.MatchString(ref):
		// An abbreviated id cannot be fetched; the full id can.
		return "<full commit id of " + ref + ">"
	default:
		return "+refs/heads/" + ref + ":refs/remotes/origin/" + ref + " (then use --base-ref origin/" + ref + ")"
	}
}
