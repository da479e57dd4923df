package helm

import (
	"bytes"
	"fmt"
	"io/fs"

	"go.yaml.in/yaml/v3"
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
	// duplicates are the keys written twice (warnings).
	duplicates []manifest.Problem
	err        error
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
	p.data = bytes.TrimPrefix(data, utf8bom)
	vals, err := ReadValues(file, p.data, v.limits)
	if err != nil {
		p.err = err
		return p
	}
	p.vals, p.duplicates = vals.Values, vals.DuplicateProblems(nil)
	if len(vals.Docs) > 0 {
		p.doc = vals.Docs[0]
	}
	return p
}

// Values is a values text read as Helm reads it.
type Values struct {
	// Values are what Helm reads: the documents merged, a key written twice
	// with its last value (sigs.k8s.io/yaml, as Helm 3 and 4 read values,
	// keeps the last and says nothing).
	Values map[string]any
	// Docs are the text's documents, for positions.
	Docs       []*manifest.Document
	duplicates []duplicate
}

// duplicate is a key written twice in one mapping: at the later one (the
// value Helm keeps), first the first.
type duplicate struct {
	key, fingerprint string
	at, first        manifest.Location
}

// ReadValues reads a values text (the file name, for positions) as Helm's
// loader does, held to the loader's nesting and alias limits. A text Helm
// cannot read is an error (a *FileError at the line when plumb's parser
// places it), never an empty set of values.
func ReadValues(name string, data []byte, limits manifest.Limits) (*Values, error) {
	if ps := manifest.LimitProblems(name, data, limits); len(ps) > 0 {
		return nil, &FileError{At: ps[0].Location, Err: ps[0].Message}
	}
	vals, err := loader.LoadValues(bytes.NewReader(data))
	docs, problems := manifest.Parse(name, data, limits)
	if err != nil {
		for _, p := range problems {
			if p.Rule != manifest.RuleDuplicateKey {
				return nil, &FileError{At: p.Location, Err: p.Message}
			}
		}
		return nil, fmt.Errorf("failed to parse %s: %w", name, err)
	}
	out := &Values{Values: vals, Docs: docs}
	for _, d := range docs {
		out.duplicates = append(out.duplicates, duplicateKeys(d)...)
	}
	return out, nil
}

// DuplicateProblems are the keys written twice, each a warning at the
// second: Helm reads the text, but never uses the first value. place maps
// a position of the text to the file (nil: the text is the file).
func (v *Values) DuplicateProblems(place func(manifest.Location) manifest.Location) []manifest.Problem {
	if place == nil {
		place = func(l manifest.Location) manifest.Location { return l }
	}
	var out []manifest.Problem
	for _, d := range v.duplicates {
		at, first := place(d.at), place(d.first)
		out = append(out, manifest.Problem{Rule: RuleDuplicateKey, Level: "warning", Location: at,
			Related: []manifest.Location{first}, Key: d.fingerprint,
			Message: fmt.Sprintf("duplicate key %q (first defined at line %d): Helm keeps only the last value and never uses the first; keep one of them",
				d.key, first.Line)})
	}
	return out
}

// duplicateKeys finds the keys a values document writes twice in one
// mapping. Aliases are not followed: a mapping is reported where it is
// written.
func duplicateKeys(d *manifest.Document) []duplicate {
	var out []duplicate
	loc := func(n *yaml.Node) manifest.Location {
		return manifest.Location{File: d.File, Line: n.Line + d.LineOffset, Column: n.Column}
	}
	var walk func(n *yaml.Node, p manifest.Path)
	walk = func(n *yaml.Node, p manifest.Path) {
		if n == nil {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			first := map[string]*yaml.Node{}
			times := map[string]int{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Kind != yaml.ScalarNode || k.Value == "<<" && (k.Tag == "!!merge" || k.Tag == "") {
					continue
				}
				if f, dup := first[k.Value]; dup {
					times[k.Value]++
					fp := fmt.Sprintf("doc%d:%s", d.Index, p.Child(manifest.Key(k.Value)))
					if n := times[k.Value]; n > 1 {
						fp += fmt.Sprintf("#%d", n)
					}
					out = append(out, duplicate{key: k.Value, fingerprint: fp, at: loc(k), first: loc(f)})
				} else {
					first[k.Value] = k
				}
				walk(n.Content[i+1], p.Child(manifest.Key(k.Value)))
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, p.Child(manifest.Index(i)))
			}
		}
	}
	walk(d.Node, nil)
	return out
}
