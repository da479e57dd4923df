package helm

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/ignore"

	"github.com/plumb-ci/plumb/internal/cache"
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
	// decompressed chart).
	maxBytes int64
}

// utf8bom is stripped from every file, as Helm's directory loader does.
var utf8bom = []byte{0xEF, 0xBB, 0xBF}

// LoadChart reads the chart in dir (repository-relative) through fsys,
// skipping what its .helmignore excludes, as Helm's directory loader does.
func LoadChart(fsys fs.FS, dir string, maxFileBytes int64) (*Chart, error) {
	rules := ignore.Empty()
	if data, err := fs.ReadFile(fsys, path.Join(dir, ignore.HelmIgnore)); err == nil {
		r, err := ignore.Parse(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ignore.HelmIgnore, err)
		}
		rules = r
	}
	rules.AddDefaults()
	c := &Chart{Dir: dir, byContent: map[string][]string{}, trees: newTreeCache(), maxBytes: archive.MaxDecompressedChartSize}
	var total int64
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
		if fi.Size() > maxFileBytes {
			return fmt.Errorf("%s is larger than the %d-byte file size limit", name, maxFileBytes)
		}
		total += fi.Size()
		if total > c.maxBytes {
			return fmt.Errorf("the chart is larger than Helm's %d-byte limit", c.maxBytes)
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
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
