package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Directories that hold files which are never deployed: the go tool's
// test inputs, vendored Go modules and npm packages. Their YAML is test
// data or someone else's (often deliberately broken), so a directory walk
// skips them and counts their files; .plumb.yaml's include reads them
// again, and a path named on the command line is always read.
const (
	testdataDir    = "testdata"
	vendorDir      = "vendor"
	nodeModulesDir = "node_modules"
)

// notDeployedDir says why the directory dir holds files that are not
// deployed, "" when it does not: testdata/ anywhere (the go tool ignores
// it), vendor/ beside a go.mod (Go's module vendoring; a vendor/ directory
// elsewhere may be a project's own manifests), node_modules/ anywhere.
func notDeployedDir(fsys fs.FS, dir string) SkipReason {
	switch path.Base(dir) {
	case testdataDir:
		return SkipTestData
	case nodeModulesDir:
		return SkipVendored
	case vendorDir:
		if st, err := fs.Stat(fsys, path.Join(path.Dir(dir), "go.mod")); err == nil && !st.IsDir() {
			return SkipVendored
		}
	}
	return ""
}

// skipNotDeployed records and reports a file found below root (a path the
// user named) that lies in a not-deployed directory below root and that no
// include pattern reads. The named path's own components never count: a
// path named on the command line is always read.
func (c *collected) skipNotDeployed(fsys fs.FS, root, file string) bool {
	if c.seen[file] {
		return false
	}
	rel := file
	if root != "." && root != "" {
		rel = strings.TrimPrefix(strings.TrimPrefix(file, root), "/")
	}
	dir := root
	parts := strings.Split(path.Dir(rel), "/")
	for _, part := range parts {
		if part == "." || part == "" {
			continue
		}
		dir = path.Join(dir, part)
		reason := notDeployedDir(fsys, dir)
		if reason == "" || c.included(file, dir) {
			continue
		}
		c.seen[file] = true
		c.skipped = append(c.skipped, Skipped{Path: file, Reason: reason})
		return true
	}
	return false
}

// mayInclude reports whether an include pattern could read something in
// the not-deployed directory dir: then the walk enters it and decides file
// by file.
func (c *collected) mayInclude(dir string) bool {
	for _, pat := range c.include {
		if ok, _ := doublestar.Match(pat, dir); ok {
			return true
		}
		if base, _ := doublestar.SplitPattern(pat); base == "." || base == dir ||
			strings.HasPrefix(base, dir+"/") || strings.HasPrefix(dir, base+"/") {
			return true
		}
	}
	return false
}

// included reports whether an include pattern reads file, found in the
// not-deployed directory dir: the pattern matches the file or dir.
func (c *collected) included(file, dir string) bool {
	for _, pat := range c.include {
		if ok, _ := doublestar.Match(pat, file); ok {
			return true
		}
		if ok, _ := doublestar.Match(pat, dir); ok {
			return true
		}
	}
	return false
}

// skipDir records every manifest file below the not-deployed directory dir
// as skipped, without reading any: the summary counts them.
func (c *collected) skipDir(fsys fs.FS, dir string, reason SkipReason, exclude []string) []Problem {
	var problems []Problem
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(d.Name(), ".") || excluded(p, exclude)) {
				return fs.SkipDir
			}
			return nil
		}
		if hasManifestExt(p) && !excluded(p, exclude) && !c.seen[p] {
			c.seen[p] = true
			c.skipped = append(c.skipped, Skipped{Path: p, Reason: reason})
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.SkipDir) {
		problems = append(problems, unreadable(dir, fmt.Errorf("walking the directory: %w", err)))
	}
	return problems
}
