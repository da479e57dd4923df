package helm

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/ignore"

	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// Chart is a chart directory read from the repository once; every render
// target of the chart (one per values set) loads its own copy from these
// files (processing dependencies changes a loaded chart) and shares the
// parsed templates.
type Chart struct {
	// Dir is the chart's repository-relative directory.
	Dir string
	// Name is the chart's name (Chart.yaml name).
	Name  string
	files []*archive.BufferedFile
	// byContent finds the repository file a template or values file of a
	// (sub)chart came from.
	byContent map[string][]string
	trees     *treeCache
	// maxBytes bounds what one chart may read (Helm's own bound for a
	// decompressed chart); size is what it has read, decompressed.
	maxBytes, size int64
	limits         manifest.Limits
	// fetched are the subchart archives fetched for dependencies the
	// repository does not vendor (dependencies.go), by chart-relative
	// name; failed why a dependency could not be, by name.
	fetched map[string]bool
	failed  map[string]error
	// fetchedDeps are the dependencies those archives hold, by
	// Chart.yaml name: not vendored by the repository.
	fetchedDeps map[string]bool
}

// utf8bom is stripped from every file, as Helm's directory loader does.
var utf8bom = []byte{0xEF, 0xBB, 0xBF}

// LoadChart reads the chart in dir (repository-relative) through fsys,
// skipping what its .helmignore excludes, as Helm's directory loader does.
//
// A chart is the pull request's content like any manifest, so its files
// are held to the loader's limits (limits.go): each is a regular file (a
// named pipe or a device is refused unopened: opening it could block
// forever), at most limits.MaxFileBytes, and the chart at most the size
// budget of a render target (or Helm's own bound for a decompressed chart,
// when smaller); the YAML files Helm parses (Chart.yaml, values files,
// requirements and lock files) must keep within the nesting and alias
// limits. What its subchart archives decompress to counts against the same
// budget, and their files are held to the same limits (archive.go). A file
// that breaks one is a *FileError at its line (an archive's: at the
// archive).
func LoadChart(fsys fs.FS, dir string, limits manifest.Limits) (*Chart, error) {
	limits = limits.OrDefault()
	rules := ignore.Empty()
	if data, err := readChartFile(fsys, path.Join(dir, ignore.HelmIgnore), limits); err == nil {
		r, err := ignore.Parse(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ignore.HelmIgnore, err)
		}
		rules = r
	}
	rules.AddDefaults()
	c := &Chart{Dir: dir, byContent: map[string][]string{}, trees: newTreeCache(), maxBytes: min(archive.MaxDecompressedChartSize, limits.MaxTargetBytes), limits: limits}
	total := &c.size
	archives := &archiveCheck{limits: limits, total: total, max: c.maxBytes}
	err := fs.WalkDir(fsys, dir, func(name string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(name, dir), "/")
		if dir == "." {
			rel = name
		}
		if rel == "" || rel == "." {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rules.Ignore(rel, fi) {
				return fs.SkipDir
			}
			return nil
		}
		if rules.Ignore(rel, fi) {
			return nil
		}
		data, err := readChartFile(fsys, name, limits)
		if err != nil {
			return err
		}
		*total += int64(len(data))
		if *total > c.maxBytes {
			return &FileError{At: manifest.Location{File: name}, Err: fmt.Sprintf(
				"the chart is larger than %d bytes, the size budget of a render target (raise it with --max-target-size or limits.max_target_size in .plumb.yaml)", c.maxBytes)}
		}
		if parsedAsYAML(rel) {
			if ps := manifest.LimitProblems(name, data, limits); len(ps) > 0 {
				return &FileError{At: ps[0].Location, Err: ps[0].Message}
			}
		}
		if subchartArchive(rel) {
			if err := archives.check(name, data); err != nil {
				return err
			}
		}
		data = bytes.TrimPrefix(data, utf8bom)
		c.files = append(c.files, &archive.BufferedFile{Name: rel, ModTime: fi.ModTime(), Data: data})
		c.byContent[string(data)] = append(c.byContent[string(data)], name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	ch, err := c.load()
	if err != nil {
		return c, err
	}
	c.Name = ch.Name()
	return c, nil
}

// FileError is a chart file refused by the loader's limits, at its path
// (and line, for a YAML file over the nesting or alias limits).
type FileError struct {
	At  manifest.Location
	Err string
	// Cause is the error Err says, when there is one.
	Cause error
}

func (e *FileError) Error() string { return e.At.File + ": " + e.Err }

func (e *FileError) Unwrap() error { return e.Cause }

// readChartFile reads a file of a chart (or a values file) when it is a
// regular file within the size limit, and says why not otherwise.
func readChartFile(fsys fs.FS, name string, limits manifest.Limits) ([]byte, error) {
	data, err := manifest.ReadRegular(fsys, name, limits.MaxFileBytes)
	if err != nil {
		var notRegular *manifest.NotRegularError
		var tooLarge *manifest.TooLargeError
		if errors.As(err, &notRegular) || errors.As(err, &tooLarge) || refusedRead(err) {
			return nil, &FileError{At: manifest.Location{File: name}, Err: err.Error(), Cause: err}
		}
		return nil, err
	}
	return data, nil
}

// refusedRead reports whether a read was refused for where the file is
// (outside the directory it is read from, or inside .git), not for what
// it holds.
func refusedRead(err error) bool {
	return errors.Is(err, manifest.ErrLeavesRoot) || manifest.IsGitDirError(err)
}

// parsedAsYAML reports whether Helm's loader parses a chart file (its
// chart-relative name) as YAML: Chart.yaml, values files, requirements
// and lock files. Templates are text until rendered, and their output is
// read by plumb's loader, which has the limits.
func parsedAsYAML(rel string) bool {
	if strings.Contains(rel, "/") {
		return false
	}
	switch rel {
	case "Chart.yaml", "requirements.yaml", "requirements.lock", "Chart.lock":
		return true
	}
	return strings.HasPrefix(rel, "values") && (strings.HasSuffix(rel, ".yaml") || strings.HasSuffix(rel, ".yml"))
}

// load builds a fresh chart from the files.
func (c *Chart) load() (*chartv2.Chart, error) {
	return loader.LoadFiles(c.files)
}

// repoFile finds the repository file of a chart file from its content and
// its name inside its chart ("templates/x.yaml", "values.yaml"); "" when it
// came from an archive.
func (c *Chart) repoFile(name string, data []byte) string {
	cands := c.byContent[string(data)]
	for _, f := range cands {
		if strings.HasSuffix(f, "/"+name) || f == name {
			return f
		}
	}
	return ""
}

// archiveFor names the .tgz under charts/ that the subchart called name
// came from, for locations inside it (Chart.yaml when none matches: an
// aliased archive).
func (c *Chart) archiveFor(name string) string {
	for _, f := range c.files {
		if c.fetched[f.Name] {
			continue // not a file of the repository
		}
		if strings.HasPrefix(f.Name, "charts/") && strings.HasSuffix(f.Name, ".tgz") {
			base := strings.TrimSuffix(path.Base(f.Name), ".tgz")
			if base == name || strings.HasPrefix(base, name+"-") {
				return path.Join(c.Dir, f.Name)
			}
		}
	}
	return path.Join(c.Dir, "Chart.yaml")
}

// Digest is the digest of what the chart was read from: its directory and
// every file loaded (after .helmignore), by name and content. Two charts
// with the same digest render the same objects, at the same positions,
// for the same request.
func (c *Chart) Digest() cache.Key {
	h := cache.NewHasher("helm/chart").String(c.Dir).Int(len(c.files))
	for _, f := range c.files {
		h.String(f.Name).Key(cache.Digest(f.Data))
	}
	return h.Sum()
}
