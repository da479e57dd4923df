package render

import (
	"errors"
)

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
