package render

import (
	"path"
	"strings"

	"github.com/plumb-ci/plumb/internal/render/helm"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// changeFilter narrows a render to the targets a change affects (Options.
// Changed): a kustomize target when it reads a changed file through any
// kustomization, resource, patch or generator source it builds on, a plain
// target when one of its own files changed. It also collects every file the
// selected targets read, so that problems elsewhere — in files the change
// did not touch and no affected target reads — are left out.
type changeFilter struct {
	changed map[string]bool
	reads   map[string]bool
	// readDirs are chart directories an affected chart target reads as a
	// whole (templates, helpers, subcharts, its own values).
	readDirs map[string]bool
}

func newChangeFilter(changed map[string]bool) *changeFilter {
	if changed == nil {
		return nil
	}
	return &changeFilter{changed: changed, reads: map[string]bool{}, readDirs: map[string]bool{}}
}

// closureFiles are the files a kustomize target reads.
func (r *renderer) closureFiles(c *closure) []string {
	var files []string
	for _, n := range c.nodes {
		files = append(files, n.k.File)
		files = append(files, n.files...)
		if n.k.problem != nil {
			// What it uses is unknown: its directory's files count.
			for _, f := range r.set.Files {
				if path.Dir(f) == n.k.Dir {
					files = append(files, f)
				}
			}
		}
	}
	return files
}

// kustomizeTarget reports whether the target with these files is affected,
// and records its files when it is. Without a filter every target is.
func (f *changeFilter) kustomizeTarget(files []string) bool {
	if f == nil {
		return true
	}
	hit := false
	for _, file := range files {
		hit = hit || f.changed[file]
	}
	if hit {
		for _, file := range files {
			f.reads[file] = true
		}
	}
	return hit
}

// chartTarget reports whether a chart target is affected: a file of its
// chart directory changed, or a values file it renders with, or the file
// that configures it (a .plumb.yaml entry, a HelmRelease). Without a filter
// every target is.
func (f *changeFilter) chartTarget(chartDir string, req helm.Request) bool {
	if f == nil {
		return true
	}
	files := []string{req.At.File}
	for _, s := range req.Sources {
		files = append(files, s.File, s.At.File)
	}
	hit := false
	for file := range f.changed {
		// Another render's values file (values-prod.yaml beside
		// Chart.yaml) does not affect this one.
		hit = hit || (strings.HasPrefix(file, chartDir+"/") && !isConventionValues(chartDir, file))
	}
	for _, file := range files {
		hit = hit || (file != "" && f.changed[file])
	}
	if hit {
		f.readDirs[chartDir] = true
		for _, file := range files {
			if file != "" {
				f.reads[file] = true
			}
		}
	}
	return hit
}

// plainDirs returns the directories whose plain documents changed.
func (f *changeFilter) plainDirs(docs []*manifest.Document, consumed map[string]bool) map[string]bool {
	dirs := map[string]bool{}
	for _, d := range docs {
		if f.changed[d.File] && !consumed[d.File] {
			dirs[path.Dir(d.File)] = true
		}
	}
	return dirs
}

// keep reports whether a problem belongs to the narrowed render: it is in a
// changed file, in a file an affected target reads, or in no file at all.
func (f *changeFilter) keep(p manifest.Problem) bool {
	file := p.Location.File
	if f == nil || file == "" || f.changed[file] || f.reads[file] {
		return true
	}
	for dir := path.Dir(file); dir != "." && dir != "/"; dir = path.Dir(dir) {
		if f.readDirs[dir] {
			return true
		}
	}
	return false
}

// Reads is, for a render narrowed to a change (Options.Changed), every file
// the affected targets read; nil otherwise.
func (f *changeFilter) Reads() map[string]bool {
	if f == nil {
		return nil
	}
	return f.reads
}
