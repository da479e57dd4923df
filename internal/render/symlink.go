package render

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// maxLinks bounds the symlinks followed while resolving one path (as the
// operating system's ELOOP limit does).
const maxLinks = 40

// errLinkLoop is a chain of symlinks too long to resolve.
var errLinkLoop = errors.New("too many levels of symbolic links")

// realPath resolves the symlinks of a repository-relative path the way
// filepath.EvalSymlinks resolves a path on disk, which is what kustomize's
// load restrictions judge: a kustomization may read a file only when the
// file's real path lies in or below the kustomization directory's real
// path. A link leading out of the repository (absolute, or through too many
// "..") is errOutside. linked reports whether any symlink was followed. On
// a file system that cannot read links (a git revision), the path is
// returned cleaned.
func realPath(fsys fs.FS, name string) (real string, linked bool, err error) {
	pending := strings.Split(path.Clean(name), "/")
	resolved := "."
	links := 0
	for len(pending) > 0 {
		part := pending[0]
		pending = pending[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			if resolved == "." {
				return "", linked, errOutside
			}
			resolved = path.Dir(resolved)
			continue
		}
		next := path.Join(resolved, part)
		info, err := fs.Lstat(fsys, next)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			// A missing element ends the resolution: the rest is kept as
			// written, and reading it reports what is missing.
			if err != nil {
				return path.Join(append([]string{next}, pending...)...), linked, nil
			}
			resolved = next
			continue
		}
		if links++; links > maxLinks {
			return "", true, fmt.Errorf("%s: %w", name, errLinkLoop)
		}
		linked = true
		target, err := fs.ReadLink(fsys, next)
		if err != nil {
			return "", true, err
		}
		if path.IsAbs(target) {
			return "", true, errOutside
		}
		pending = append(strings.Split(target, "/"), pending...)
	}
	return resolved, linked, nil
}

// linkLeavesDir reports whether reading file (repository-relative, in or
// below dir lexically) follows a symlink whose target lies outside dir's
// real path — what kustomize refuses ("security; file ... is not in or
// below ...") under its default load restrictions.
func linkLeavesDir(files *fileCache, file, dir string) bool {
	real, linked, err := files.realPath(file)
	if err != nil {
		return errors.Is(err, errOutside)
	}
	if !linked {
		return false
	}
	realDir, _, err := files.realPath(dir)
	return err != nil || !inDir(real, realDir)
}
