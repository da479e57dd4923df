package manifest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/plumb-ci/plumb/internal/parallel"
)

// LoadOptions configures Load.
type LoadOptions struct {
	Limits Limits
	// Exclude holds doublestar patterns (e.g. "charts/**") matched against
	// repository-relative paths; matching files and directories are skipped.
	Exclude []string
	// Include holds doublestar patterns of paths read although they are
	// not deployed by default (vendor/, testdata/, node_modules/: see
	// notDeployedDir): a pattern matching a file, or the skipped directory
	// itself, reads it.
	Include []string
	// Workers bounds parallel parsing (default GOMAXPROCS).
	Workers int
	// Cache, when set, shares parsed files with another load (cache.go).
	Cache *ParseCache
	// Digests asks for the SHA-256 digest of every file read (Set.Digests):
	// what a cache keys a whole revision's results by.
	Digests bool
	// Only, when set, parses only the files whose content it accepts; the
	// others give no documents. A load that looks for one kind uses it to
	// skip the cost of parsing everything else.
	Only func(data []byte) bool
}

// Set is everything loaded from the inputs: the files in sorted order, their
// documents in file order, and every problem found.
type Set struct {
	Files     []string
	Documents []*Document
	Problems  []Problem
	// Skipped are the files found under the paths but not read as
	// manifests: tool dotfiles (rendering adds the files kustomizations
	// use as patches, generator inputs and configuration).
	Skipped []Skipped
	// Charts are the Helm chart directories found, sorted: their files are
	// chart sources, not manifests, and are not loaded; rendering renders
	// the charts.
	Charts []string
	// Digests are the SHA-256 digests of Files' contents, in the same
	// order (zero for a file that could not be read), when
	// LoadOptions.Digests asked for them.
	Digests [][sha256.Size]byte
}

// ManifestExtensions are the extensions picked up when walking directories.
var ManifestExtensions = []string{".yaml", ".yml", ".json"}

// Load reads manifests from fsys, whose root is the repository root. paths
// are slash-separated and relative to that root; each may be a file, a
// directory (walked recursively, skipping hidden directories) or a glob
// (doublestar syntax, "**" included). Files are parsed in parallel; the
// result does not depend on scheduling.
func Load(fsys fs.FS, paths []string, opts LoadOptions) *Set {
	fsys = ContentFS(fsys) // never .git, whoever calls
	opts.Limits = opts.Limits.orDefault()
	c := collectFiles(fsys, paths, opts.Exclude, opts.Include)
	set := &Set{Files: c.files, Problems: c.problems, Skipped: c.skipped, Charts: c.charts}
	files := c.files

	type result struct {
		docs     []*Document
		problems []Problem
		template bool
	}
	results := make([]result, len(files))
	if opts.Digests {
		set.Digests = make([][sha256.Size]byte, len(files))
	}
	parallel.ForEach(opts.Workers, len(files), func(i int) {
		docs, p, tmpl := loadFile(fsys, files[i], opts, set.Digests, i)
		results[i] = result{docs, p, tmpl}
	})
	kept := 0
	for i, r := range results {
		if r.template {
			// Not a manifest: not among the files read, counted as skipped.
			set.Skipped = append(set.Skipped, Skipped{Path: files[i], Reason: SkipTemplateSource})
			continue
		}
		set.Files[kept] = files[i]
		if set.Digests != nil {
			set.Digests[kept] = set.Digests[i]
		}
		kept++
		set.Documents = append(set.Documents, r.docs...)
		set.Problems = append(set.Problems, r.problems...)
	}
	set.Files = set.Files[:kept]
	if set.Digests != nil {
		set.Digests = set.Digests[:kept]
	}
	SortSkipped(set.Skipped)
	return set
}

// digests, when not nil, receives the digest of the file's content at i.
// template is true for a template source (templatesource.go): its
// documents and problems are dropped and the file is counted as skipped.
func loadFile(fsys fs.FS, name string, opts LoadOptions, digests [][sha256.Size]byte, i int) (docs []*Document, problems []Problem, template bool) {
	limits, cache := opts.Limits, opts.Cache
	at := Location{File: name, Line: 1, Column: 1}
	// The file's type and size are read before it is opened: opening a
	// named pipe blocks, and a device may never end.
	data, err := ReadRegular(fsys, name, limits.MaxFileBytes)
	var nr *NotRegularError
	var tl *TooLargeError
	switch {
	case errors.As(err, &nr):
		return nil, []Problem{inputError(RuleUnreadable, at, "the file is %v; remove it or exclude it", nr)}, false
	case errors.As(err, &tl):
		return nil, []Problem{tooLarge(name, tl.Size, limits)}, false
	case err != nil:
		return nil, []Problem{unreadable(name, err)}, false
	}
	if digests != nil {
		digests[i] = sha256.Sum256(data)
	}
	if opts.Only != nil && !opts.Only(data) {
		return nil, nil, false
	}
	if cache != nil {
		docs, problems = cache.parse(name, data, limits)
	} else {
		docs, problems = Parse(name, data, limits)
	}
	if IsTemplateSource(name, data, docs, problems) {
		return nil, nil, true
	}
	return docs, problems, false
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
	return err != nil && (errors.Is(err, ErrLeavesRoot) || strings.Contains(err.Error(), "path escapes from parent"))
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

// collected is what collectFiles found: the files to read, sorted and
// de-duplicated, and what it skipped.
type collected struct {
	files    []string
	problems []Problem
	skipped  []Skipped
	charts   []string

	seen      map[string]bool
	chartDirs map[string]string // directory → the chart it is in ("" when none)
	include   []string
}

// collectFiles expands the input paths into a sorted, de-duplicated list of
// files. A file named explicitly is always read; files found by walking a
// directory or matching a glob are skipped when they are tool dotfiles or
// belong to a Helm chart.
func collectFiles(fsys fs.FS, paths []string, exclude, include []string) *collected {
	c := &collected{seen: map[string]bool{}, chartDirs: map[string]string{}, include: include}
	for _, p := range paths {
		p = path.Clean(filepath.ToSlash(p))
		if p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) {
			c.problems = append(c.problems, configError(inputError(RuleOutsideRepo, Location{File: p, Line: 1, Column: 1},
				"refusing to read: the path is outside the repository")))
			continue
		}
		st, err := fs.Stat(fsys, p)
		switch {
		case err == nil && st.IsDir():
			c.problems = append(c.problems, c.walkDir(fsys, p, exclude)...)
		case err == nil:
			c.add(p, exclude) // an explicitly named file is read whatever its extension
		case isGlob(p):
			matches, gerr := doublestar.Glob(fsys, p, doublestar.WithFilesOnly())
			if gerr != nil || len(matches) == 0 {
				c.problems = append(c.problems, configError(inputError(RuleUnreadable, Location{File: p},
					"the pattern matches no files")))
			}
			base, _ := doublestar.SplitPattern(p)
			for _, m := range matches {
				if hasManifestExt(m) && !c.skipNotDeployed(fsys, base, m) && !c.skip(fsys, m, exclude) {
					c.add(m, exclude)
				}
			}
		default:
			c.problems = append(c.problems, configError(unreadable(p, err)))
		}
	}
	slices.Sort(c.files)
	slices.Sort(c.charts)
	SortSkipped(c.skipped)
	return c
}

func (c *collected) add(name string, exclude []string) {
	if !c.seen[name] && !excluded(name, exclude) {
		c.seen[name] = true
		c.files = append(c.files, name)
	}
}

// skip records and reports a file a glob matched that is not a manifest:
// a dotfile, a file in a dot-directory, or a file of a Helm chart.
func (c *collected) skip(fsys fs.FS, name string, exclude []string) bool {
	if c.seen[name] || excluded(name, exclude) {
		return false
	}
	for _, part := range strings.Split(path.Dir(name), "/") {
		if strings.HasPrefix(part, ".") && part != "." {
			return true
		}
	}
	if isDotfile(name) {
		c.seen[name] = true
		c.skipped = append(c.skipped, Skipped{Path: name, Reason: SkipToolConfig})
		return true
	}
	if chart := c.chartOf(fsys, path.Dir(name)); chart != "" {
		c.seen[name] = true
		c.addChart(chart)
		return true
	}
	return false
}

// chartOf returns the Helm chart directory dir is in ("" when none),
// looking at dir and its ancestors once each.
func (c *collected) chartOf(fsys fs.FS, dir string) string {
	if chart, ok := c.chartDirs[dir]; ok {
		return chart
	}
	chart := ""
	switch {
	case IsHelmChartDir(fsys, dir):
		chart = dir
	case dir != ".":
		chart = c.chartOf(fsys, path.Dir(dir))
	}
	c.chartDirs[dir] = chart
	return chart
}

// addChart records a Helm chart directory once. Its files are chart
// sources, not manifests: rendering renders the chart.
func (c *collected) addChart(dir string) {
	if !slices.Contains(c.charts, dir) {
		c.charts = append(c.charts, dir)
	}
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
// .github, ...) are skipped unless named explicitly, and so are tool
// dotfiles (recorded as skipped) and Helm chart directories (rendered as
// charts); symlinked
// files are followed when they stay inside the repository, symlinked
// directories are not followed (as find(1) does by default), which rules
// out cycles.
func (c *collected) walkDir(fsys fs.FS, dir string, exclude []string) []Problem {
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
			if p != dir && notDeployedDir(fsys, p) != "" && !c.mayInclude(p) {
				problems = append(problems, c.skipDir(fsys, p, notDeployedDir(fsys, p), exclude)...)
				return fs.SkipDir
			}
			if IsHelmChartDir(fsys, p) {
				c.chartDirs[p] = p
				c.addChart(p)
				return fs.SkipDir
			}
			return nil
		}
		if !hasManifestExt(p) || excluded(p, exclude) || c.seen[p] {
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
		if isDotfile(p) {
			c.seen[p] = true
			c.skipped = append(c.skipped, Skipped{Path: p, Reason: SkipToolConfig})
			return nil
		}
		if c.skipNotDeployed(fsys, dir, p) {
			return nil
		}
		c.add(p, exclude)
		return nil
	})
	if err != nil {
		problems = append(problems, unreadable(dir, fmt.Errorf("walking the directory: %w", err)))
	}
	return problems
}
