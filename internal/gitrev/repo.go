// Package gitrev reads a repository's tree at a git revision as an fs.FS,
// without touching the working tree, the index or any ref: plumb renders the
// pull request's base from it and runs the same stages over it as over the
// working tree. The repository is read with go-git (loose objects, packs
// and their deltas, refs, alternates, linked working trees), so no git
// command is needed — the action's image has none.
package gitrev

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// gitRepo is the repository holding the directory Open was given, read
// through go-git's storage: objects (loose, packed, in alternates) and refs
// (loose and packed, per working tree where git keeps them so).
type gitRepo struct {
	storage *filesystem.Storage
	store   *objectStore
}

// openRepo finds the repository that contains dir and returns it with dir's
// path relative to the top of the working tree ("" at the top). Linked
// working trees (a .git file naming the git directory, whose commondir
// holds the objects) and alternates (objects borrowed from another
// repository, as `git clone --shared` sets up) are followed.
func openRepo(dir string) (*gitRepo, string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", dir, err)
	}
	top, gitDir := "", ""
	for d := abs; ; d = filepath.Dir(d) {
		if gitDir, err = gitDirAt(d); err != nil {
			return nil, "", err
		}
		if gitDir != "" {
			top = d
			break
		}
		if filepath.Dir(d) == d {
			return nil, "", fmt.Errorf("%s is not inside a git repository, so there is no base revision to compare with", dir)
		}
	}
	repoFS := osfs.New(gitDir)
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(data))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		repoFS = dotgit.NewRepositoryFilesystem(repoFS, osfs.New(common))
	}
	storage := filesystem.NewStorageWithOptions(repoFS, cache.NewObjectLRUDefault(), filesystem.Options{
		AlternatesFS:    osfs.New("/"), // alternates are absolute paths, or relative to the objects directory
		KeepDescriptors: true,          // pack files stay open until Close
	})
	if cfg, err := storage.Config(); err == nil && cfg.Extensions.ObjectFormat != "" && cfg.Extensions.ObjectFormat != "sha1" {
		storage.Close()
		return nil, "", fmt.Errorf("the repository uses %s object ids, which plumb cannot read yet", cfg.Extensions.ObjectFormat)
	}
	prefix, _ := filepath.Rel(top, abs)
	if prefix == "." {
		prefix = ""
	}
	return &gitRepo{storage: storage, store: &objectStore{s: storage, sizer: storage, closer: storage}}, filepath.ToSlash(prefix), nil
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

// shallow reports whether the clone is shallow (it lacks history).
func (r *gitRepo) shallow() bool {
	s, err := r.storage.Shallow()
	return err == nil && len(s) > 0
}
