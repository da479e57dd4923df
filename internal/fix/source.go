package fix

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// sourceFile is a repository file a fix may edit, parsed.
type sourceFile struct {
	name string
	text string
	docs []*manifest.Document
	// rangeDocs are the documents that start in each document range (by
	// index in docs), for lookup.
	rangeDocs [][]int
	// lines are text cut at "\n"; ranges the file's document ranges
	// (docRanges) in them.
	lines  []string
	ranges [][2]int
}

// nodeRef is a node of a document, by the path that leads to it there.
type nodeRef struct {
	doc  int
	path manifest.Path
	// item is set for a sequence item and a document root (positions of
	// their own), unset for the value of a key (the key's position).
	item bool
}

// errNotEditable says why a file or node cannot be edited exactly.
type errNotEditable struct{ why string }

func (e *errNotEditable) Error() string { return e.why }

func notEditable(format string, args ...any) error {
	return &errNotEditable{why: fmt.Sprintf(format, args...)}
}

// parseSource parses a file for editing. Text plumb cannot edit line by
// line without risk is refused: CRLF line ends and YAML that does not
// parse. (Documents holding template expressions are refused where they
// are edited.)
//
// docs, when not nil, are the file's documents as the loader parsed them
// from the same data with the same limits, taken instead of parsing it
// again.
func parseSource(name string, data []byte, limits manifest.Limits, docs []*manifest.Document) (*sourceFile, error) {
	text := string(data)
	switch {
	case strings.Contains(text, "\r"):
		return nil, notEditable("%s has CRLF line ends", name)
	case strings.HasPrefix(text, "\xef\xbb\xbf"):
		return nil, notEditable("%s starts with a byte-order mark", name)
	case strings.ContainsAny(text, "\u0085\u2028\u2029"):
		return nil, notEditable("%s has Unicode line separators", name)
	}
	if docs == nil {
		var problems []manifest.Problem
		if docs, problems = manifest.Parse(name, data, limits); len(problems) > 0 {
			return nil, notEditable("%s does not parse: %s", name, problems[0].Message)
		}
	}
	lines := strings.Split(text, "\n")
	return &sourceFile{name: name, text: text, docs: docs, lines: lines, ranges: docRanges(lines)}, nil
}

// lookup returns the node that starts at (line, column) of the file: a
// sequence item or document root when item is set, a key's value
// otherwise. Only the documents of the line's document range are walked:
// a lookup costs the size of one document, and nothing is kept, however
// many documents the file has.
func (s *sourceFile) lookup(line, col int, item bool) (nodeRef, bool) {
	if s.rangeDocs == nil {
		s.rangeDocs = make([][]int, len(s.ranges))
		for i, d := range s.docs {
			if d.Node == nil {
				continue
			}
			if r := rangeOf(s.ranges, d.Node.Line+d.LineOffset); r >= 0 {
				s.rangeDocs[r] = append(s.rangeDocs[r], i)
			}
		}
	}
	r := rangeOf(s.ranges, line)
	if r < 0 {
		return nodeRef{}, false
	}
	for _, i := range s.rangeDocs[r] {
		w := nodeFinder{line: line - s.docs[i].LineOffset, col: col, item: item}
		if w.find(s.docs[i].Node) {
			return nodeRef{doc: i, path: slices.Clone(w.path), item: item}, true
		}
	}
	return nodeRef{}, false
}

// nodeFinder walks a document for the first node at a position (document
// lines), in the order keys and items are written: the document root, a
// key's value by the key's position, a sequence item by its own.
type nodeFinder struct {
	line, col int
	item      bool
	path      manifest.Path
}

func (w *nodeFinder) find(root *yaml.Node) bool {
	if w.item && root.Line == w.line && root.Column == w.col {
		return true
	}
	return w.walk(root)
}

func (w *nodeFinder) walk(n *yaml.Node) bool {
	switch n.Kind {
	case yaml.MappingNode:
		for j := 0; j+1 < len(n.Content); j += 2 {
			k := n.Content[j]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			w.path = append(w.path, manifest.Key(k.Value))
			if !w.item && k.Line == w.line && k.Column == w.col || w.walk(n.Content[j+1]) {
				return true
			}
			w.path = w.path[:len(w.path)-1]
		}
	case yaml.SequenceNode:
		for j, c := range n.Content {
			w.path = append(w.path, manifest.Index(j))
			if w.item && c.Line == w.line && c.Column == w.col || w.walk(c) {
				return true
			}
			w.path = w.path[:len(w.path)-1]
		}
	}
	return false
}

// node finds the key and value nodes at path p of document doc, refusing
// what an edit there would not change alone: a path through an alias, an
// anchored node (its aliases would change too) or a merge key.
func node(d *manifest.Document, p manifest.Path) (key, value *yaml.Node, err error) {
	value = d.Node
	if value == nil {
		return nil, nil, notEditable("the document is empty")
	}
	if value.Anchor != "" {
		return nil, nil, notEditable("the document is anchored")
	}
	for _, seg := range p {
		n := value
		key, value = nil, nil
		switch {
		case n.Kind == yaml.SequenceNode && seg.IsIndex && seg.Index < len(n.Content):
			value = n.Content[seg.Index]
		case n.Kind == yaml.MappingNode && !seg.IsIndex:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Value == seg.Key && k.Tag != "!!merge" {
					key, value = k, n.Content[i+1]
				}
			}
		}
		if value == nil {
			return nil, nil, notEditable("no field %s in the source", p)
		}
		if value.Kind == yaml.AliasNode || value.Anchor != "" {
			return nil, nil, notEditable("%s is an alias or an anchor: other places would change too", p)
		}
	}
	return key, value, nil
}

// hasMergeKey reports whether a mapping takes keys from elsewhere (<<).
func hasMergeKey(n *yaml.Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Value == "<<" {
			return true
		}
	}
	return false
}

// readSource reads a repository file through fsys (see parseSource for
// docs).
func readSource(fsys fs.FS, name string, limits manifest.Limits, docs []*manifest.Document) (*sourceFile, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, notEditable("%s is not a repository file", name)
		}
		return nil, err
	}
	return parseSource(name, data, limits, docs)
}
