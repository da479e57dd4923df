package compare

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// nodeReader decodes YAML nodes the way kube-compare decodes its metadata
// (YAML → JSON → Go structs): keys match case-insensitively (an exact match
// wins), unknown keys are errors, and every problem is collected with its
// line instead of stopping at the first.
type nodeReader struct {
	file     string
	problems Problems
	// lines is the number of lines of the file: yaml.v3 places the
	// implicit null of an empty document ("---" alone) on the line after
	// the last, which problems must not name.
	lines int
}

func newNodeReader(file string, data []byte) *nodeReader {
	return &nodeReader{file: file, lines: manifest.CountLines(data)}
}

func (r *nodeReader) errorf(n *yaml.Node, format string, args ...any) {
	line := 0
	col := 0
	if n != nil {
		line, col = n.Line, n.Column
	}
	if r.lines > 0 && line > r.lines {
		line, col = r.lines, 0
	}
	l := loc(r.file, line)
	l.Column = col
	r.problems = append(r.problems, Problem{Location: l, Message: fmt.Sprintf(format, args...)})
}

func (r *nodeReader) warnf(n *yaml.Node, format string, args ...any) {
	r.errorf(n, format, args...)
	r.problems[len(r.problems)-1].Warning = true
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 64; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	n = resolveAlias(n)
	return n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// fields matches the keys of a mapping against the known names. With
// lenient set, unknown keys are warnings (kube-compare ignores them there);
// otherwise errors.
func (r *nodeReader) fields(n *yaml.Node, where string, known []string, lenient bool) map[string]*yaml.Node {
	n = resolveAlias(n)
	out := map[string]*yaml.Node{}
	if isNull(n) {
		return out
	}
	if n.Kind != yaml.MappingNode {
		r.errorf(n, "%s: expected a mapping with keys %s", where, strings.Join(known, ", "))
		return out
	}
	keyLine := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		name := matchKey(k.Value, known)
		if name == "" {
			msg := fmt.Sprintf("%s: unknown key %q (known keys: %s)", where, k.Value, strings.Join(known, ", "))
			if lenient {
				r.warnf(k, "%s; kube-compare ignores it here, so it has no effect", msg)
			} else {
				r.errorf(k, "%s", msg)
			}
			continue
		}
		if first, dup := keyLine[name]; dup {
			r.errorf(k, "%s: key %q given twice (first at line %d)", where, name, first)
			continue
		}
		keyLine[name] = k.Line
		out[name] = v
	}
	return out
}

// matchKey finds the known key a written key stands for: exactly, or else
// ignoring case, as encoding/json does.
func matchKey(key string, known []string) string {
	if slices.Contains(known, key) {
		return key
	}
	for _, k := range known {
		if strings.EqualFold(k, key) {
			return k
		}
	}
	return ""
}

func (r *nodeReader) str(n *yaml.Node, where string) string {
	n = resolveAlias(n)
	if isNull(n) {
		return ""
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		r.errorf(n, "%s: expected a string", where)
		return ""
	}
	return n.Value
}

// boolean accepts YAML 1.1 booleans as kube-compare's decoder does.
func (r *nodeReader) boolean(n *yaml.Node, where string) bool {
	n = resolveAlias(n)
	if isNull(n) {
		return false
	}
	if n.Kind == yaml.ScalarNode {
		switch strings.ToLower(n.Value) {
		case "true", "yes", "on", "y":
			return true
		case "false", "no", "off", "n":
			return false
		}
	}
	r.errorf(n, "%s: expected true or false", where)
	return false
}

func (r *nodeReader) seq(n *yaml.Node, where string) []*yaml.Node {
	n = resolveAlias(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		r.errorf(n, "%s: expected a list", where)
		return nil
	}
	out := make([]*yaml.Node, len(n.Content))
	for i, c := range n.Content {
		out[i] = resolveAlias(c)
	}
	return out
}

func (r *nodeReader) strList(n *yaml.Node, where string) []string {
	var out []string
	for i, c := range r.seq(n, where) {
		if s := r.str(c, fmt.Sprintf("%s[%d]", where, i)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// pairs returns the entries of a mapping in written order.
func (r *nodeReader) pairs(n *yaml.Node, where string) [][2]*yaml.Node {
	n = resolveAlias(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		r.errorf(n, "%s: expected a mapping", where)
		return nil
	}
	var out [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, [2]*yaml.Node{n.Content[i], resolveAlias(n.Content[i+1])})
	}
	return out
}

// parseYAMLNode reads the single document of a configuration file.
func parseYAMLNode(file string, data []byte) (*yaml.Node, Problems) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := yamlErrorLine(err)
		return nil, Problems{{Location: loc(file, min(line, manifest.CountLines(data))), Message: "not valid YAML: " + msg}}
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return doc.Content[0], nil
}

// yamlErrorLine extracts the line from a yaml.v3 error message.
func yamlErrorLine(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
		if i := strings.Index(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
		return line, msg
	}
	return 0, msg
}
