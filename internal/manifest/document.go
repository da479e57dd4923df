package manifest

import (
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Document is one YAML (or JSON) document of a source file, with the node
// tree that keeps the line and column of every key and value.
type Document struct {
	File  string // repository-relative, slash-separated
	Index int    // 0-based position of the document in its file
	// Node is the document's content node (the mapping of an object). Node
	// lines are relative to the chunk the document was parsed from; add
	// LineOffset to get file lines (Locate does).
	Node       *yaml.Node
	LineOffset int
	// Value is Node decoded to a JSON-compatible tree.
	Value any
}

// Start is the position of the document's first node.
func (d *Document) Start() Location {
	if d.Node == nil {
		return Location{File: d.File, Line: d.LineOffset + 1, Column: 1}
	}
	return d.nodeLocation(nil, d.Node)
}

// Locate implements Provenance for a document read from a file: it finds the
// node at path p, or its nearest present ancestor (exact=false).
func (d *Document) Locate(p Path) (Location, bool) {
	return d.LocateFrom(d.Node, p)
}

// LocateFrom is Locate starting at an inner node (the items of a List).
func (d *Document) LocateFrom(root *yaml.Node, p Path) (Location, bool) {
	if root == nil {
		return d.Start(), len(p) == 0
	}
	var key *yaml.Node
	n := root
	for _, seg := range p {
		k, v := child(n, seg)
		if v == nil {
			return d.nodeLocation(key, n), false
		}
		key, n = k, v
	}
	return d.nodeLocation(key, n), true
}

// NodeAt returns the key and value nodes at path p below root, or nil.
func NodeAt(root *yaml.Node, p Path) (key, value *yaml.Node) {
	value = root
	for _, seg := range p {
		if value == nil {
			return nil, nil
		}
		key, value = child(value, seg)
	}
	return key, value
}

// child finds the key and value node for one path segment. Aliases are
// followed and merge keys (<<) are searched after explicit keys, so the
// result is the node whose value the decoder used.
func child(n *yaml.Node, seg Segment) (key, value *yaml.Node) {
	n = deref(n)
	if n == nil {
		return nil, nil
	}
	switch n.Kind {
	case yaml.MappingNode:
		if seg.IsIndex {
			return nil, nil
		}
		// Last occurrence wins, as in decoding.
		for i := len(n.Content) - 2; i >= 0; i -= 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Value == seg.Key && k.Tag != "!!merge" {
				return k, n.Content[i+1]
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if isMergeKey(n.Content[i]) {
				for _, m := range mergeSources(n.Content[i+1]) {
					if k, v := child(m, seg); v != nil {
						return k, v
					}
				}
			}
		}
	case yaml.SequenceNode:
		if seg.IsIndex && seg.Index < len(n.Content) {
			return nil, n.Content[seg.Index]
		}
	}
	return nil, nil
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		return deref(n.Content[0])
	}
	return n
}

func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && (k.Tag == "!!merge" || k.Tag == "")
}

func mergeSources(v *yaml.Node) []*yaml.Node {
	v = deref(v)
	if v == nil {
		return nil
	}
	if v.Kind == yaml.SequenceNode {
		return v.Content
	}
	return []*yaml.Node{v}
}

// nodeLocation spans from the key (when there is one) to the end of a
// single-line scalar value, or to the end of the key for block values, so a
// finding covers exactly the line a person edits.
func (d *Document) nodeLocation(key, value *yaml.Node) Location {
	start := value
	if key != nil {
		start = key
	}
	loc := Location{
		File:   d.File,
		Line:   start.Line + d.LineOffset,
		Column: start.Column,
	}
	end := value
	if value.Kind != yaml.ScalarNode || value.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || value.Line != start.Line {
		end = key
	}
	if end == nil {
		loc.EndLine, loc.EndColumn = loc.Line, loc.Column
		return loc
	}
	loc.EndLine = end.Line + d.LineOffset
	loc.EndColumn = end.Column + scalarWidth(end)
	return loc
}

// scalarWidth approximates how many columns a single-line scalar occupies in
// the source, including its quotes.
func scalarWidth(n *yaml.Node) int {
	if n.Kind != yaml.ScalarNode {
		return 0
	}
	w := utf8.RuneCountInString(n.Value)
	if strings.ContainsRune(n.Value, '\n') {
		w = utf8.RuneCountInString(n.Value[:strings.IndexByte(n.Value, '\n')])
	}
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		w += 2 + strings.Count(n.Value, `"`) + strings.Count(n.Value, `\`)
	case n.Style&yaml.SingleQuotedStyle != 0:
		w += 2 + strings.Count(n.Value, "'")
	}
	return w
}
