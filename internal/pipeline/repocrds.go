package pipeline

import (
	"bytes"
	"io/fs"
	"path"
	"slices"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// repositoryCRDs returns, for a run over part of the repository (plumb
// check charts/x, or from a subdirectory), the CustomResourceDefinitions
// the rest of it holds as files: plain manifests and charts' crds/
// directories. A run over the whole repository finds them among its own
// objects and gets nil. The files are parsed, not rendered: a CRD only a
// kustomization or a template makes is not seen from a sub-path.
func repositoryCRDs(cfg *config.Config, fsys fs.FS) []*manifest.Object {
	if fsys == nil || len(cfg.Paths) == 0 || slices.Contains(cfg.Paths, ".") {
		return nil
	}
	// Only files that name the kind are parsed: the rest of the repository
	// costs a read, not a parse.
	opts := manifest.LoadOptions{Limits: cfg.Limits, Exclude: cfg.Exclude, Include: cfg.Include,
		Only: func(data []byte) bool { return bytes.Contains(data, []byte("CustomResourceDefinition")) }}
	set := manifest.Load(fsys, []string{"."}, opts)
	docs := set.Documents
	var crdDirs []string
	for _, chart := range set.Charts {
		dir := path.Join(chart, "crds")
		if st, err := fs.Stat(fsys, dir); err == nil && st.IsDir() {
			crdDirs = append(crdDirs, dir)
		}
	}
	if len(crdDirs) > 0 {
		docs = append(docs, manifest.Load(fsys, crdDirs, opts).Documents...)
	}
	var out []*manifest.Object
	for _, d := range docs {
		if !isCRDDocument(d) {
			continue
		}
		objs, _ := d.Objects("")
		for _, o := range objs {
			if o.ID.Kind == "CustomResourceDefinition" {
				out = append(out, o)
			}
		}
	}
	return out
}

// isCRDDocument reports whether a document is a CustomResourceDefinition
// (or a List of them, which Objects expands).
func isCRDDocument(d *manifest.Document) bool {
	m, _ := d.Value.(map[string]any)
	if k, _ := m["kind"].(string); k == "CustomResourceDefinition" || k == "List" {
		return true
	}
	return false
}
