package config

import (
	"os"
	"path/filepath"
	"strings"
)

// discoverRoot finds the repository root when --root is not given: the
// git top level of the working directory, or of the first path when that
// lies outside it (or the working directory is in no repository); without
// git, the working directory, or the common parent of the paths when they
// lie outside it — widened to hold the directories their kustomizations
// refer to (reach.go). So `cd apps/web/overlays/dev && plumb check .`
// builds the overlay with its bases and reports paths relative to the
// repository, with git or without, and `plumb check /other/repo` works from any
// directory. paths are as given on the command line (relative to cwd, or
// absolute).
func discoverRoot(cwd string, paths []string) string {
	cwdTop := gitTopLevel(cwd)
	if len(paths) == 0 {
		if cwdTop != "" {
			return cwdTop
		}
		return widened(cwd, commonParent(append([]string{cwd}, kustomizeReach([]string{cwd})...)))
	}
	abs := make([]string, len(paths))
	inCwd := true
	for i, p := range paths {
		abs[i] = absPath(cwd, staticPrefix(p))
		inCwd = inCwd && within(abs[i], cwd)
	}
	if cwdTop != "" && within(abs[0], cwdTop) {
		return cwdTop
	}
	// The first path's own repository, also when the working directory is
	// in none (plumb check ~/src/shop from the home directory).
	if top := gitTopLevel(abs[0]); top != "" {
		return top
	}
	reach := kustomizeReach(dirsOf(abs))
	if cwdTop == "" && inCwd {
		if allWithin(reach, cwd) {
			return cwd
		}
		return widened(cwd, commonParent(append(abs, reach...)))
	}
	return widened(commonParent(abs), commonParent(append(abs, reach...)))
}

// widened is root grown to hold what the kustomizations reach, unless
// that would make a filesystem root, a top-level directory (/etc, /home)
// or the home directory (or one above it) the repository: a kustomization
// naming ../../../../etc, or ../../.ssh from a project in the home
// directory, must not make those readable. Then the root stays as it was
// and the entry leads outside it, as it does under git.
func widened(root, grown string) string {
	if grown == root {
		return root
	}
	if depth(grown) < 2 {
		return root
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" && within(home, grown) {
		return root
	}
	return grown
}

// depth counts a clean absolute path's elements ("/" 0, "/etc" 1).
func depth(p string) int {
	n := 0
	for d := filepath.Clean(p); filepath.Dir(d) != d; d = filepath.Dir(d) {
		n++
	}
	return n
}

// dirsOf is each path's directory (a directory is its own).
func dirsOf(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			out[i] = filepath.Dir(p)
		}
	}
	return out
}

func allWithin(paths []string, dir string) bool {
	for _, p := range paths {
		if !within(p, dir) {
			return false
		}
	}
	return true
}

// RepositoryRoot is the repository the working directory is in (its
// top level), or the working directory when it is in none: where a command
// without inputs (plumb merge) writes relative report paths without
// following the repository's links.
func RepositoryRoot(cwd string) string { return discoverRoot(cwd, nil) }

// gitTopLevel returns the nearest directory at or above p (a file or a
// directory) that holds a .git entry — a directory, or the file of a
// worktree or submodule — or "" when there is none. It does not run git.
func gitTopLevel(p string) string {
	dir := p
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		dir = filepath.Dir(dir)
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// staticPrefix is the part of a path before its first glob segment
// ("apps/**/*.yaml" → "apps"), the directory a glob reads below.
func staticPrefix(p string) string {
	parts := strings.Split(filepath.ToSlash(p), "/")
	for i, part := range parts {
		if strings.ContainsAny(part, "*?[{") {
			if i == 0 {
				return "."
			}
			return filepath.FromSlash(strings.Join(parts[:i], "/"))
		}
	}
	return p
}

func absPath(cwd, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// commonParent is the deepest directory that holds every path: a path
// that is a directory counts as its own parent, a file as its directory's.
func commonParent(paths []string) string {
	dirOf := func(p string) string {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		return filepath.Dir(p)
	}
	common := dirOf(paths[0])
	for _, p := range paths[1:] {
		for !within(p, common) {
			parent := filepath.Dir(common)
			if parent == common {
				break
			}
			common = parent
		}
	}
	return common
}

// findConfigFile finds the .plumb.yaml that applies: the nearest one from
// the working directory up to the repository root, or the root's own when
// the working directory lies outside the repository. "" when none.
func findConfigFile(cwd, root string) string {
	dir := filepath.Clean(cwd)
	if !within(dir, root) {
		dir = root
	}
	for {
		candidate := filepath.Join(dir, DefaultFile)
		if st, err := os.Stat(candidate); err == nil && !st.IsDir() {
			return candidate
		}
		if dir == root {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// rebase rewrites the relative file and directory names of a configuration
// file found in dir (not the working directory) so that they resolve from
// cwd, as flags do: names in a file are relative to the file.
func (f *File) rebase(dir, cwd string) {
	fix := func(p *string) {
		if *p == "" || filepath.IsAbs(*p) {
			return
		}
		if rel, err := filepath.Rel(cwd, filepath.Join(dir, *p)); err == nil {
			*p = rel
		}
	}
	for _, list := range [][]string{f.Paths, f.Rules.Files, f.Checks.Dirs, f.KubeVirt.Templates, f.Schema.CRDs, f.Policies} {
		for i := range list {
			fix(&list[i])
		}
	}
	fix(&f.Reference.Path)
	fix(&f.Reference.DiffConfig)
	fix(&f.Reference.Overrides)
}

// normalizeExcludes lets a pattern name a directory with a trailing slash
// ("charts/"), as .gitignore does: it excludes the directory.
func normalizeExcludes(patterns []string) []string {
	out := make([]string, 0, len(patterns))
	for _, p := range patterns {
		if t := strings.TrimRight(p, "/"); t != "" && t != p {
			p = t
		}
		out = append(out, p)
	}
	return out
}
