package manifest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// LoadOptions configures Load.
type LoadOptions struct {
	Limits Limits
	// Exclude holds doublestar patterns (e.g. "charts/**") matched against
	// repository-relative paths; matching files and directories are skipped.
	Exclude []string
	// Workers bounds parallel parsing (default GOMAXPROCS).
	Workers int
	// Cache, when set, shares parsed files with another load (cache.go).
	Cache *ParseCache
}

// Set is everything loaded from the inputs: the files in sorted order, their
// documents in file order, and every problem found.
type Set struct {
	Files     []string
	Documents []*Document
	Problems  []Problem
	// Charts are the Helm chart directories met while walking (a directory
	// with a Chart.yaml): their files are chart sources, not manifests, and
	// are not loaded; rendering renders the charts.
	Charts []string
}

// ManifestExtensions are the extensions picked up when walking directories.
var ManifestExtensions = []string{".yaml", ".yml", ".json"}

// Load reads manifests from fsys, whose root is the repository root. paths
// are slash-separated and relative to that root; each may be a file, a
// directory (walked recursively, skipping hidden directories) or a glob
// (doublestar syntax, "**" included). Files are parsed in parallel; the
// result does not depend on scheduling.
func Load(fsys fs.FS, paths []string, opts LoadOptions) *Set {
	opts.Limits = opts.Limits.orDefault()
	files, charts, problems := collectFiles(fsys, paths, opts.Exclude)
	set := &Set{Files: files, Problems: problems, Charts: charts}

	type result struct {
		docs     []*Document
		problems []Problem
	}
	results := make([]result, len(files))
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				docs, p := loadFile(fsys, files[i], opts.Limits, opts.Cache)
				results[i] = result{docs, p}
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, r := range results {
		set.Documents = append(set.Documents, r.docs...)
		set.Problems = append(set.Problems, r.problems...)
	}
	return set
}

func loadFile(fsys fs.FS, name string, limits Limits, cache *ParseCache) ([]*Document, []Problem) {
	at := Location{File: name, Line: 1, Column: 1}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, []Problem{unreadable(name, err)}
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > limits.MaxFileBytes {
		return nil, []Problem{tooLarge(name, st.Size(), limits)}
	}
	// Read one byte past the limit so a file that grows (or lies about its
	// size) is still caught without reading all of it.
	data, err := io.ReadAll(io.LimitReader(f, limits.MaxFileBytes+1))
	if err != nil {
		return nil, []Problem{inputError(RuleUnreadable, at, "cannot read the file: %v", cleanErr(err))}
	}
	if cache != nil {
		return cache.parse(name, data, limits)
	}
	return Parse(name, data, limits)
}

func unreadable(name string, err error) Problem {
	if isEscape(err) {
		return inputError(RuleOutsideRepo, Location{File: name, Line: 1, Column: 1},
			"refusing to read: the path leaves the repository (a symlink or \"..\" pointing outside it)")
	}
	return inputError(RuleUnreadable, Location{File: name, Line: 1, Column: 1}, "cannot read the file: %v", cleanErr(err))
}

// isEscape recognises os.Root's refusal to follow a path out of the root.
func isEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// cleanErr drops the path prefix of *fs.PathError: the message already names
// the file.
func cleanErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// collectFiles expands the input paths into a sorted, de-duplicated list of
// files.
func collectFiles(fsys fs.FS, paths []string, exclude []string) ([]string, []string, []Problem) {
	seen := map[string]bool{}
	var files, charts []string
	chart := func(dir string) {
		if !seen[dir+"/"] {
			seen[dir+"/"] = true
			charts = append(charts, dir)
		}
	}
	var problems []Problem
	add := func(name string) {
		if !seen[name] && !excluded(name, exclude) {
			seen[name] = true
			files = append(files, name)
		}
	}
	for _, p := range paths {
		p = path.Clean(filepath.ToSlash(p))
		if p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) {
			problems = append(problems, inputError(RuleOutsideRepo, Location{File: p, Line: 1, Column: 1},
				"refusing to read: the path is outside the repository"))
			continue
		}
		st, err := fs.Stat(fsys, p)
		switch {
		case err == nil && st.IsDir():
			problems = append(problems, walkDir(fsys, p, exclude, add, chart)...)
		case err == nil:
			add(p) // an explicitly named file is read whatever its extension
		case isGlob(p):
			matches, gerr := doublestar.Glob(fsys, p, doublestar.WithFilesOnly())
			if gerr != nil || len(matches) == 0 {
				problems = append(problems, inputError(RuleUnreadable, Location{File: p},
					"the pattern matches no files"))
			}
			for _, m := range matches {
				if hasManifestExt(m) {
					add(m)
				}
			}
		default:
			problems = append(problems, unreadable(p, err))
		}
	}
	slices.Sort(files)
	slices.Sort(charts)
	return files, charts, problems
}

// IsChartDir reports whether dir holds a Helm chart (a Chart.yaml).
func IsChartDir(fsys fs.FS, dir string) bool {
	st, err := fs.Stat(fsys, path.Join(dir, "Chart.yaml"))
	return err == nil && !st.IsDir()
}

func isGlob(p string) bool { return strings.ContainsAny(p, "*?[{") }

// hasManifestExt also accepts kustomize's extension-less "Kustomization"
// file name, so that such kustomizations are found and syntax-checked.
func hasManifestExt(name string) bool {
	return slices.Contains(ManifestExtensions, strings.ToLower(path.Ext(name))) || IsKustomizationFile(name)
}

func excluded(name string, patterns []string) bool {
	for _, pat := range patterns {
		if ok, _ := doublestar.Match(pat, name); ok {
			return true
		}
	}
	return false
}

// walkDir adds the manifest files below dir. Hidden directories (.git,
// .github, ...) are skipped unless named explicitly; symlinked files are
// followed when they stay inside the repository, symlinked directories are
// not followed (as find(1) does by default), which rules out cycles.
func walkDir(fsys fs.FS, dir string, exclude []string, add, chart func(string)) []Problem {
	var problems []Problem
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			problems = append(problems, unreadable(p, err))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(d.Name(), ".") || excluded(p, exclude)) {
				return fs.SkipDir
			}
			if IsChartDir(fsys, p) {
				chart(p)
				return fs.SkipDir
			}
			return nil
		}
		if !hasManifestExt(p) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			st, serr := fs.Stat(fsys, p)
			if serr != nil {
				problems = append(problems, unreadable(p, serr))
				return nil
			}
			if st.IsDir() {
				return nil
			}
		}
		add(p)
		return nil
	})
	if err != nil {
		problems = append(problems, unreadable(dir, fmt.Errorf("walking the directory: %w", err)))
	}
	return problems
}
