package compare

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// yamlText prints a value tree the way kube-compare normalises both sides
// before diffing: mapping keys sorted byte-wise at every level, two-space
// indentation, list items level with their parent key, multi-line strings as
// literal blocks. Long strings are not folded, so one field stays one line.
func yamlText(v any) string {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	enc.CompactSeqIndent()
	if err := enc.Encode(yamlNode(v)); err != nil {
		// Only values that are not value trees can fail; print them
		// plainly rather than lose them.
		return fmt.Sprintf("%v\n", v)
	}
	_ = enc.Close()
	return b.String()
}

func yamlNode(v any) *yaml.Node {
	switch t := v.(type) {
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if len(keys) == 0 {
			n.Style = yaml.FlowStyle
		}
		for _, k := range keys {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k}, yamlNode(t[k]))
		}
		return n
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		if len(t) == 0 {
			n.Style = yaml.FlowStyle
		}
		for _, x := range t {
			n.Content = append(n.Content, yamlNode(x))
		}
		return n
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: t}
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(t)}
	case int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(t, 10)}
	case float64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: formatFloat(t)}
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	}
	c, err := toValue(v)
	if err != nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: fmt.Sprint(v)}
	}
	return yamlNode(c)
}

// formatFloat prints a float as JSON would (kube-compare's values pass
// through JSON): whole numbers without a fraction.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return ".nan"
	case math.IsInf(f, 1):
		return ".inf"
	case math.IsInf(f, -1):
		return "-.inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// parseLimits bound what a template's output or a patch may cost.
var parseLimits = manifest.Limits{MaxFileBytes: 8 << 20}

// parseYAMLObject parses one YAML document into a mapping, typed as plumb
// types its inputs (YAML 1.2 core schema: whole numbers are int64). An
// empty text is an empty mapping.
func parseYAMLObject(name, text string) (map[string]any, error) {
	v, err := parseYAMLValue(name, text)
	if err != nil {
		return nil, err
	}
	switch t := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return t, nil
	}
	return nil, fmt.Errorf("the YAML is a %s, not a mapping", kindName(v))
}

// parseYAMLValue parses the only YAML document of text (nil when empty).
func parseYAMLValue(name, text string) (any, error) {
	docs, problems := manifest.Parse(name, []byte(text), parseLimits)
	for _, p := range problems {
		if p.Rule == manifest.RuleDuplicateKey {
			continue // the last value wins, as in kube-compare
		}
		return nil, fmt.Errorf("line %d: %s", p.Location.Line, p.Message)
	}
	switch len(docs) {
	case 0:
		return nil, nil
	case 1:
		return docs[0].Value, nil
	}
	return nil, fmt.Errorf("%d YAML documents where one object was expected (the second starts at line %d)",
		len(docs), docs[1].Start().Line)
}

func kindName(v any) string {
	switch v.(type) {
	case []any:
		return "list"
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64, float64:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// linePaths maps each line (1-based; index 0 unused) of a text printed by
// yamlText to the field it belongs to, and records every field's line span,
// so diff lines can be turned into field paths.
type linePaths struct {
	line  []manifest.Path // deepest field of each line
	spans []fieldSpan
}

type fieldSpan struct {
	path       manifest.Path
	start, end int // inclusive line numbers
}

func mapLines(text string) *linePaths {
	lines := strings.Count(text, "\n")
	lp := &linePaths{line: make([]manifest.Path, lines+2)}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil || len(doc.Content) == 0 {
		return lp
	}
	lp.walk(doc.Content[0], nil, 1, lines)
	return lp
}

func (lp *linePaths) walk(n *yaml.Node, path manifest.Path, start, end int) {
	if len(path) > 0 {
		lp.spans = append(lp.spans, fieldSpan{path: path, start: start, end: end})
	}
	for l := start; l <= end && l < len(lp.line); l++ {
		lp.line[l] = path
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			s := n.Content[i].Line
			e := end
			if i+2 < len(n.Content) {
				e = n.Content[i+2].Line - 1
			}
			lp.walk(n.Content[i+1], path.Child(manifest.Key(n.Content[i].Value)), s, max(s, e))
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			s := c.Line
			e := end
			if i+1 < len(n.Content) {
				e = n.Content[i+1].Line - 1
			}
			lp.walk(c, path.Child(manifest.Index(i)), s, max(s, e))
		}
	}
}
