package helm

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// chartOrigin is the provenance of an object a chart rendered: a field
// whose value an action read from the values points at that values key's
// line in the file that supplied it; any other field at the template line
// that wrote it (inside _helpers.tpl when an include wrote it).
type chartOrigin struct {
	content map[string]any
	node    *yaml.Node
	text    string // the document as Helm split it
	lines   []int
	base    int // offset of text in the template's output
	trace   *fileTrace
	values  *origin
}

// Locate implements manifest.Provenance.
func (o *chartOrigin) Locate(p manifest.Path) (manifest.Location, bool) {
	loc, _, exact := o.locate(p)
	return loc, exact
}

// Related returns the template line that wrote a field whose location is a
// values line (a finding there also names the template).
func (o *chartOrigin) Related(p manifest.Path) []manifest.RelatedLocation {
	_, tmpl, _ := o.locate(p)
	if tmpl.IsZero() {
		return nil
	}
	return []manifest.RelatedLocation{{Location: tmpl, Message: "the template line that prints this value"}}
}

// locate returns the field's location, and the template location when the
// former is a values line.
func (o *chartOrigin) locate(p manifest.Path) (loc, tmpl manifest.Location, exact bool) {
	q := presentPrefix(o.content, p)
	exact = len(q) == len(p)
	key, val := manifest.NodeAt(o.node, q)
	if len(q) == 0 || val == nil {
		val, key = o.node, nil
	}
	n := val
	if key != nil && (val.Kind != yaml.ScalarNode) {
		n = key
	}
	off, ok := o.offset(n)
	if !ok {
		return o.trace.file.location(1, 1), manifest.Location{}, false
	}
	seg, _, ok := o.trace.at(off)
	if !ok {
		return o.trace.file.location(1, 1), manifest.Location{}, false
	}
	tmplLoc := seg.node.file.location(seg.node.file.position(seg.templateOffset(off)))
	v, _ := manifest.Lookup(o.content, q)
	// The actions that wrote the field's line (a scalar: its value, e.g.
	// "{{ .Values.image.repository }}:{{ .Values.image.tag }}"), the last
	// one that printed a values key wins.
	spanEnd := off + 1
	if n.Kind == yaml.ScalarNode && n == val {
		spanEnd = o.lineEnd(off)
	}
	var best candidate
	bestLayer := -1
	for _, s := range o.trace.within(off, spanEnd) {
		if s.seg.node.kind != kindAction || len(s.seg.refs) == 0 {
			continue
		}
		for _, c := range o.valuesPath(s.seg, s.end, q, v) {
			vl, layer, ok := o.values.locate(c.path)
			if !ok || (bestLayer >= 0 && !better(c, layer, best, bestLayer)) {
				continue
			}
			best, bestLayer, loc = c, layer, vl
			tmpl = s.seg.node.file.location(s.seg.node.file.position(s.seg.node.pos))
		}
	}
	if !loc.IsZero() {
		return loc, tmpl, exact
	}
	return tmplLoc, manifest.Location{}, exact
}

// candidate is a values key an action printed at a field, and how well it
// matches the field.
type candidate struct {
	path manifest.Path
	// class: 5 the field is the key's value (a scalar, or below a mapping
	// the action printed); 4 the key's value is inside the field's (printf);
	// 3 the key is below a printed mapping but its value differs (tpl); 2 the
	// action's only scalar key, whatever its text (b64enc); 1 a printed
	// mapping that holds the field's ancestors only.
	class int
	// length of the key's text, for class 4.
	length int
}

// better orders candidates: the closer match; among keys printed into one
// value ("REPO/NAME:TAG"), the one from the most specific values source
// (the environment's file before the chart's), then the one that wrote most
// of it, then the first printed (the repository before the tag).
func better(a candidate, aLayer int, b candidate, bLayer int) bool {
	if a.class != b.class {
		return a.class > b.class
	}
	if aLayer != bLayer {
		return aLayer < bLayer
	}
	return a.length > b.length
}

// valuesPath lists the values keys the segment's action printed at field q.
func (o *chartOrigin) valuesPath(seg segment, end int, q manifest.Path, v any) []candidate {
	rel := o.relativeTo(seg, end, q)
	var out []candidate
	scalars := 0
	for _, r := range seg.refs {
		if !isComposite(r.val) {
			scalars++
		}
	}
	for _, r := range seg.refs {
		if r.path == nil && r.val == nil {
			continue
		}
		if isComposite(r.val) {
			if len(rel) == 0 {
				out = append(out, candidate{r.path, 1, 0})
				continue
			}
			if got, ok := manifest.Lookup(normalize(r.val), rel); ok {
				class := 3
				if sameScalar(got, v) {
					class = 5
				}
				out = append(out, candidate{r.path.Child(rel...), class, 0})
			}
			continue
		}
		rt, vt := scalarText(r.val), scalarText(v)
		switch {
		case rt == vt:
			out = append(out, candidate{r.path, 5, len(rt)})
		case rt != "" && strings.Contains(vt, rt):
			out = append(out, candidate{r.path, 4, len(rt)})
		case scalars == 1:
			out = append(out, candidate{r.path, 2, len(rt)})
		}
	}
	return out
}

// relativeTo returns the part of q the action wrote: the path below the
// deepest ancestor of q written before the action started.
func (o *chartOrigin) relativeTo(seg segment, end int, q manifest.Path) manifest.Path {
	for i := 1; i <= len(q); i++ {
		k, v := manifest.NodeAt(o.node, q[:i])
		n := k
		if n == nil {
			n = v
		}
		if n == nil {
			return nil
		}
		off, ok := o.offset(n)
		if ok && off >= seg.start && off < end {
			return q[i-1:]
		}
	}
	return nil
}

// lineEnd is the output offset of the end of the line holding off.
func (o *chartOrigin) lineEnd(off int) int {
	rel := off - o.base
	if rel < 0 || rel >= len(o.text) {
		return off + 1
	}
	if i := strings.IndexByte(o.text[rel:], '\n'); i >= 0 {
		return off + i
	}
	return o.base + len(o.text)
}

// offset is the position of a node in the template's output.
func (o *chartOrigin) offset(n *yaml.Node) (int, bool) {
	if n == nil || n.Line < 1 || n.Line > len(o.lines) {
		return 0, false
	}
	start := o.lines[n.Line-1]
	off := start
	for col := 1; col < n.Column && off < len(o.text); col++ {
		_, size := utf8.DecodeRuneInString(o.text[off:])
		off += size
	}
	return o.base + off, true
}

func presentPrefix(v any, p manifest.Path) manifest.Path {
	for i, s := range p {
		switch t := v.(type) {
		case map[string]any:
			next, ok := t[s.Key]
			if s.IsIndex || !ok {
				return p[:i]
			}
			v = next
		case []any:
			if !s.IsIndex || s.Index >= len(t) {
				return p[:i]
			}
			v = t[s.Index]
		default:
			return p[:i]
		}
	}
	return p
}

func isComposite(v any) bool {
	if _, ok := v.([]any); ok {
		return true
	}
	_, ok := asMap(v)
	return ok
}

// normalize makes a values subtree addressable by manifest.Lookup.
func normalize(v any) any {
	if m, ok := asMap(v); ok {
		return m
	}
	return v
}

// sameScalar compares a values leaf with the rendered field loosely, as
// text (values went through JSON: 5 is float64 there, int64 rendered).
func sameScalar(a, b any) bool {
	if isComposite(a) || isComposite(b) {
		return isComposite(a) && isComposite(b)
	}
	return scalarText(a) == scalarText(b) || fmt.Sprint(a) == fmt.Sprint(b)
}
