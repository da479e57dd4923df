// Package gitrev reads a repository's tree at a git revision as an fs.FS,
// without touching the working tree, the index or any ref: plumb renders the
// pull request's base from it and runs the same stages over it as over the
// working tree. Objects are read straight from the repository's loose
// objects and packs (repo.go, objects.go, pack.go), so no git command is
// needed — the action's image has none; git is used, when installed, only
// to resolve revision expressions such as main~1.
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

// gitEnv keeps git from prompting for credentials and from taking optional
// locks in a repository another process may be using.
var gitEnv = []string{"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C"}

// runGit runs git in dir and returns its standard output.
func runGit(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), gitEnv...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		return nil, fmt.Errorf("git %s: %w (%s)", args[0], err, strings.TrimPrefix(msg, "fatal: "))
	}
	return out, nil
}

// resolveCommit turns a revision into a commit id whose objects the
// repository has, or explains how to fetch it.
func resolveCommit(ctx context.Context, repo *gitRepo, dir, ref string) (oid, error) {
	if ref == "" || strings.HasPrefix(ref, "-") || strings.ContainsAny(ref, "\x00\n\r") {
		return oid{}, fmt.Errorf("base revision %q: not a revision name", ref)
	}
	var id oid
	err := errNoRef
	if plainRefName(ref) {
		id, err = repo.resolveName(ref)
		if err != nil && !errors.Is(err, errNoRef) {
			return oid{}, fmt.Errorf("base revision %q: %w", ref, err)
		}
	}
	if errors.Is(err, errNoRef) {
		// A revision expression, or a ref this reader does not see
		// (reftable): ask git, when it is installed.
		if _, lookErr := exec.LookPath("git"); lookErr != nil {
			if !plainRefName(ref) {
				return oid{}, fmt.Errorf("base revision %q: resolving revision expressions needs the git command, which is not installed; give a commit id, branch or tag", ref)
			}
			return oid{}, missingRevision(repo, ref)
		}
		out, gitErr := runGit(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", ref+"^{commit}")
		if gitErr != nil {
			return oid{}, missingRevision(repo, ref)
		}
		if id, err = parseOID(strings.TrimSpace(string(out))); err != nil {
			return oid{}, fmt.Errorf("base revision %q: %w", ref, err)
		}
	}
	commit, err := repo.peelToCommit(id)
	if errors.Is(err, errMissing) {
		return oid{}, missingRevision(repo, ref)
	}
	if err != nil {
		return oid{}, fmt.Errorf("base revision %q: %w", ref, err)
	}
	return commit, nil
}

// missingRevision builds the message for a revision the clone does not have:
// it names the fetch command that brings exactly that revision in.
func missingRevision(repo *gitRepo, ref string) error {
	fetch := "git fetch --no-tags --depth=1 origin " + fetchSpec(ref)
	if repo.shallow() {
		return fmt.Errorf("base revision %q is not in this clone, which is shallow (actions/checkout fetches a single commit by default). "+
			"Fetch the base before running plumb: %s — or check out with fetch-depth: 0", ref, fetch)
	}
	return fmt.Errorf("base revision %q is not in this repository (no such commit, branch or tag). "+
		"If it exists on the remote, fetch it first: %s", ref, fetch)
}

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)
var abbrevSHA = regexp.MustCompile(`^[0-9a-f]{7,64}$`)

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
