package gitrev

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// gitRepo is a repository read directly from its git directory: the object
// store and the refs. No git process runs and nothing is written, so it
// works in a container that has no git (the action's image) and whatever
// user owns the checkout.
type gitRepo struct {
	top       string // the working tree's top directory
	gitDir    string // this working tree's git directory (HEAD, its own refs)
	commonDir string // what all working trees share: objects, refs, packed-refs, config
	reftable  bool   // refs are in the reftable format, which only git reads
	store     *objectStore
}

// openRepo finds the repository that contains dir and returns it with dir's
// path relative to the top of the working tree ("" at the top).
func openRepo(dir string) (*gitRepo, string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", dir, err)
	}
	for d := abs; ; d = filepath.Dir(d) {
		gitDir, err := gitDirAt(d)
		if err != nil {
			return nil, "", err
		}
		if gitDir != "" {
			r, err := newRepo(d, gitDir)
			if err != nil {
				return nil, "", err
			}
			prefix, _ := filepath.Rel(d, abs)
			if prefix == "." {
				prefix = ""
			}
			return r, filepath.ToSlash(prefix), nil
		}
		if filepath.Dir(d) == d {
			return nil, "", fmt.Errorf("%s is not inside a git repository, so there is no base revision to compare with", dir)
		}
	}
}

// gitDirAt returns the git directory of a working tree whose top is d, or
// "" when d has no .git: a directory, or a file "gitdir: PATH" (linked
// working trees and submodules).
func gitDirAt(d string) (string, error) {
	p := filepath.Join(d, ".git")
	st, err := os.Stat(p)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		return p, nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return "", fmt.Errorf("%s: not a git directory link", p)
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(d, target)
	}
	return target, nil
}

func newRepo(top, gitDir string) (*gitRepo, error) {
	r := &gitRepo{top: top, gitDir: gitDir, commonDir: gitDir}
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		r.commonDir = c
	}
	cfg, err := readConfig(filepath.Join(r.commonDir, "config"))
	if err != nil {
		return nil, err
	}
	if f := cfg["extensions.objectformat"]; f != "" && f != "sha1" {
		return nil, fmt.Errorf("the repository uses %s object ids, which plumb cannot read yet", f)
	}
	r.reftable = cfg["extensions.refstorage"] == "reftable"
	r.store, err = openStore(filepath.Join(r.commonDir, "objects"))
	if err != nil {
		return nil, err
	}
	return r, nil
}

// readConfig reads the keys plumb needs from a git config file, as
// "section.key" in lower case (subsections are not needed and kept as
// "section.subsection.key").
func readConfig(name string) (map[string]string, error) {
	out := map[string]string{}
	f, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			h := strings.TrimSpace(line[1:end])
			name, sub, _ := strings.Cut(h, " ")
			section = strings.ToLower(name)
			if sub = strings.Trim(strings.TrimSpace(sub), `"`); sub != "" {
				section += "." + sub
			}
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		k, v, _ := strings.Cut(line, "=")
		out[section+"."+strings.ToLower(strings.TrimSpace(k))] = strings.ToLower(strings.TrimSpace(v))
	}
	return out, sc.Err()
}

// shallow reports whether the clone is shallow (it lacks history).
func (r *gitRepo) shallow() bool {
	st, err := os.Stat(filepath.Join(r.commonDir, "shallow"))
	return err == nil && st.Size() > 0
}

// readRefFile reads a loose ref: a per-worktree one (HEAD, refs/bisect,
// refs/worktree) from the worktree's git directory, the others from the
// common directory.
func (r *gitRepo) readRefFile(ref string) ([]byte, bool) {
	for _, dir := range []string{r.gitDir, r.commonDir} {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ref)))
		if err == nil {
			return bytes.TrimSpace(data), true
		}
		if r.gitDir == r.commonDir {
			break
		}
	}
	return nil, false
}
