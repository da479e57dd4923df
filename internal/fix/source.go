package fix

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// sourceFile is a repository file a fix may edit, parsed.
type sourceFile struct {
	name string
	text string
	docs []*manifest.Document
	// at finds the node that starts at a file position (line, column):
	// the value a mapping key holds (by the key's position), a sequence
	// item, or a document's root.
	at map[[2]int][]nodeRef
	// ranges are the file's document ranges (docRanges).
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
func parseSource(name string, data []byte, limits manifest.Limits) (*sourceFile, error) {
	text := string(data)
	switch {
	case strings.Contains(text, "\r"):
		return nil, notEditable("%s has CRLF line ends", name)
	case strings.HasPrefix(text, "\xef\xbb\xbf"):
		return nil, notEditable("%s starts with a byte-order mark", name)
	case strings.ContainsAny(text, "\u0085\u2028\u2029"):
		return nil, notEditable("%s has Unicode line separators", name)
	}
	docs, problems := manifest.Parse(name, data, limits)
	if len(problems) > 0 {
		return nil, notEditable("%s does not parse: %s", name, problems[0].Message)
	}
	return &sourceFile{name: name, text: text, docs: docs, ranges: docRanges(strings.Split(text, "\n"))}, nil
}

// lookup returns the node that starts at (line, column) of the file: a
// sequence item or document root when item is set, a key's value
// otherwise.
func (s *sourceFile) lookup(line, col int, item bool) (nodeRef, bool) {
	if s.at == nil {
		s.index()
	}
	for _, r := range s.at[[2]int{line, col}] {
		if r.item == item {
			return r, true
		}
	}
	return nodeRef{}, false
}

func (s *sourceFile) index() {
	s.at = map[[2]int][]nodeRef{}
	for i, d := range s.docs {
		if d.Node == nil {
			continue
		}
		var walk func(n *yaml.Node, p manifest.Path)
		walk = func(n *yaml.Node, p manifest.Path) {
			switch n.Kind {
			case yaml.MappingNode:
				for j := 0; j+1 < len(n.Content); j += 2 {
					k := n.Content[j]
					if k.Kind != yaml.ScalarNode {
						continue
					}
					q := p.Child(manifest.Key(k.Value))
					pos := [2]int{k.Line + d.LineOffset, k.Column}
					s.at[pos] = append(s.at[pos], nodeRef{doc: i, path: q})
					walk(n.Content[j+1], q)
				}
			case yaml.SequenceNode:
				for j, c := range n.Content {
					q := p.Child(manifest.Index(j))
					pos := [2]int{c.Line + d.LineOffset, c.Column}
					s.at[pos] = append(s.at[pos], nodeRef{doc: i, path: q, item: true})
					walk(c, q)
				}
			}
		}
		pos := [2]int{d.Node.Line + d.LineOffset, d.Node.Column}
		s.at[pos] = append(s.at[pos], nodeRef{doc: i, item: true})
		walk(d.Node, nil)
	}
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

// readSource reads a repository file through fsys.
func readSource(fsys fs.FS, name string, limits manifest.Limits) (*sourceFile, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, notEditable("%s is not a repository file", name)
		}
		return nil, err
	}
	return parseSource(name, data, limits)
}
