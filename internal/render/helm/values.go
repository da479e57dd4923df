package helm

import (
	"bytes"
	"fmt"
	"io/fs"

	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/strvals"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// Source is one set of values given to a render, in Helm's order: values
// files first, then --set, then --set-string (Request.Sources keeps the
// order it is given; the CLI builds it in Helm's).
type Source struct {
	// File is a repository-relative values file.
	File string
	// Inline values written inside another document (a HelmRelease's
	// spec.values, an Argo CD Application's helm.valuesObject, a
	// kustomization's valuesInline): the value, and how to locate a path
	// below it.
	Inline       map[string]any
	InlineLocate func(manifest.Path) (manifest.Location, bool)
	// Set is a --set (or, with String, --set-string) expression.
	Set    string
	String bool
	// At is where the source is named (a .plumb.yaml entry, a
	// kustomization field), for problems and for values set by --set.
	At manifest.Location
}

// origin finds the values line that supplied a values path: the sources in
// precedence order (last given first), then the chart's values.yaml and its
// subcharts' values.yaml files.
type origin struct {
	layers []layer
}

// layer is one values source with its position in the top chart's values.
type layer struct {
	prefix manifest.Path
	locate func(rel manifest.Path) (manifest.Location, bool)
}

// locate returns the line of the values source that supplied path p, and
// the source's rank (0 the most specific: the last given).
func (o *origin) locate(p manifest.Path) (manifest.Location, int, bool) {
	for i, l := range o.layers {
		if !p.HasPrefix(l.prefix) {
			continue
		}
		if loc, ok := l.locate(p[len(l.prefix):]); ok {
			return loc, i, true
		}
	}
	// A subchart's global values come from its parent's.
	for i := 1; i < len(p); i++ {
		if !p[i].IsIndex && p[i].Key == "global" {
			q := append(append(manifest.Path(nil), p[:i-1]...), p[i:]...)
			return o.locate(q)
		}
	}
	return manifest.Location{}, 0, false
}

// docLayer locates paths in a parsed values document; only a key the
// document has answers.
func docLayer(prefix manifest.Path, doc *manifest.Document) layer {
	return layer{prefix: prefix, locate: func(rel manifest.Path) (manifest.Location, bool) {
		if doc == nil {
			return manifest.Location{}, false
		}
		loc, exact := doc.Locate(rel)
		return loc, exact
	}}
}

// setLayer answers for the paths a --set expression sets, at the place it
// is configured (nothing when it came from the command line).
func setLayer(expr string, str bool, at manifest.Location) layer {
	m := map[string]any{}
	var err error
	if str {
		err = strvals.ParseIntoString(expr, m)
	} else {
		err = strvals.ParseInto(expr, m)
	}
	return layer{locate: func(rel manifest.Path) (manifest.Location, bool) {
		if err != nil || at.IsZero() {
			return manifest.Location{}, false
		}
		_, ok := manifest.Lookup(m, rel)
		return at, ok
	}}
}

// valuesDocs caches the parsed values files of a repository.
type valuesDocs struct {
	fsys   fs.FS
	limits manifest.Limits
	docs   map[string]*parsedValues
}

type parsedValues struct {
	data []byte
	doc  *manifest.Document
	vals map[string]any
	err  error
}

func (v *valuesDocs) get(file string) *parsedValues {
	if p, ok := v.docs[file]; ok {
		return p
	}
	p := &parsedValues{}
	v.docs[file] = p
	data, err := readChartFile(v.fsys, file, v.limits.OrDefault())
	if err != nil {
		p.err = err
		return p
	}
	if ps := manifest.LimitProblems(file, data, v.limits); len(ps) > 0 {
		p.err = &FileError{At: ps[0].Location, Err: ps[0].Message}
		return p
	}
	p.data = bytes.TrimPrefix(data, utf8bom)
	p.vals, p.err = loader.LoadValues(bytes.NewReader(p.data))
	if p.err != nil {
		p.err = fmt.Errorf("failed to parse %s: %w", file, p.err)
		return p
	}
	if docs, _ := manifest.Parse(file, p.data, v.limits); len(docs) > 0 {
		p.doc = docs[0]
	}
	return p
}
