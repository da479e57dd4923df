package render

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/workflowcmd"
)

// WriteOptions configures Write.
type WriteOptions struct {
	// ShowOrigin ends every line with a "# file:line" comment naming the
	// source line that supplied it (a field-level blame).
	ShowOrigin bool
}

// WriteYAML prints the targets' objects as a YAML stream, one comment line
// naming each target. Secret values are redacted: plumb never prints them.
func WriteYAML(w io.Writer, targets []*Target) error {
	return Write(w, targets, WriteOptions{})
}

// Write prints the targets' objects as a YAML stream. A kustomize target's
// objects are printed exactly as `kustomize build` prints them (unless a
// rule changed them); Secret values are always redacted.
func Write(w io.Writer, targets []*Target, opts WriteOptions) error {
	bw := bufio.NewWriter(w)
	first := true
	for _, t := range targets {
		for i, o := range t.Objects {
			if !first {
				bw.WriteString("---\n")
			}
			if i == 0 {
				fmt.Fprintf(bw, "# target: %s\n", t.Name)
			}
			first = false
			text, err := objectText(o)
			if err != nil {
				return fmt.Errorf("%s: %w", o.ID, err)
			}
			if opts.ShowOrigin {
				text = withOrigin(o, text)
			}
			bw.Write(text)
		}
	}
	return bw.Flush()
}

// objectText prints one object. When a line of it would read as a
// workflow command in a GitHub Actions log (a multi-line string with a line
// starting "::"), the object is printed again with such strings
// double-quoted: the same values, on lines that cannot be commands.
func objectText(o *manifest.Object) ([]byte, error) {
	text, err := plainObjectText(o)
	if err != nil || !workflowcmd.HasCommandLine(string(text)) {
		return text, err
	}
	safe, err := workflowcmd.SafeYAML(manifest.MaskObjectContent(o))
	if err != nil {
		return nil, err
	}
	return []byte(safe), nil
}

// plainObjectText prints one object as kustomize or its file has it.
func plainObjectText(o *manifest.Object) ([]byte, error) {
	if _, ok := o.Origin.(*renderedOrigin); ok && o.Node == nil {
		// As `kustomize build` prints: marshalled to JSON, converted to
		// YAML (keys sorted). Content a rule changed prints changed.
		return sigsyaml.Marshal(manifest.MaskObjectContent(o))
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	var err error
	if n, ok := manifest.MaskObjectNode(o); ok && n != nil {
		err = enc.Encode(n)
	} else {
		// No node, or a secret reached through an alias or a merge key:
		// the masked content, without the file's comments.
		err = enc.Encode(manifest.MaskObjectContent(o))
	}
	if err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// withOrigin appends "# file:line" to every line of an object's text that
// starts a field, naming where that field's value comes from. Continuation
// lines of multi-line strings get no comment: it would become part of the
// string.
func withOrigin(o *manifest.Object, text []byte) []byte {
	docs, _ := manifest.Parse("", text, manifest.Limits{})
	if len(docs) != 1 {
		return text
	}
	paths := linePaths(docs[0].Node)
	lines := strings.SplitAfter(string(text), "\n")
	var out strings.Builder
	for i, line := range lines {
		p, ok := paths[i+1]
		if !ok || strings.TrimSpace(line) == "" {
			out.WriteString(line)
			continue
		}
		loc, _ := o.Locate(p)
		body := strings.TrimSuffix(line, "\n")
		if loc.File == "" {
			out.WriteString(line)
			continue
		}
		fmt.Fprintf(&out, "%s  # %s:%d", body, loc.File, loc.Line)
		if strings.HasSuffix(line, "\n") {
			out.WriteByte('\n')
		}
	}
	return []byte(out.String())
}

// linePaths maps each line of a document to the field that starts on it:
// the field of the first key or scalar on the line (a "- name: x" line is
// the item's name field).
func linePaths(root *yaml.Node) map[int]manifest.Path {
	type start struct {
		col   int
		depth int
	}
	best := map[int]start{}
	out := map[int]manifest.Path{}
	consider := func(line, col int, p manifest.Path) {
		b, seen := best[line]
		if !seen || col < b.col || (col == b.col && len(p) >= b.depth) {
			best[line] = start{col, len(p)}
			out[line] = append(manifest.Path(nil), p...)
		}
	}
	var walk func(n *yaml.Node, p manifest.Path)
	walk = func(n *yaml.Node, p manifest.Path) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				cp := p.Child(manifest.Key(k.Value))
				consider(k.Line, k.Column, cp)
				walk(v, cp)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, p.Child(manifest.Index(i)))
			}
		case yaml.ScalarNode:
			consider(n.Line, n.Column, p)
		}
	}
	walk(root, nil)
	return out
}
