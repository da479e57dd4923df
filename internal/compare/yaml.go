package compare

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	"go.yaml.in/yaml/v3"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/workflowcmd"
)

// yamlText prints a value the way kube-compare normalises both sides before
// diffing. kubectl's differ writes each object with sigs.k8s.io/yaml: JSON,
// then goyaml.v2. So mapping keys are sorted (goyaml.v2's order, which
// compares runs of digits as numbers), list items sit level with their
// parent key, strings a reader would take for another type are quoted,
// multi-line strings are literal blocks, long strings are folded at 80
// columns, and whole floats print as integers.
//
// A value tree (the shapes of manifest.Object.Content) is printed by
// goyaml.v2 directly, with numbers typed as the JSON step would type them:
// the result is byte for byte sigs.k8s.io/yaml's (a differential test
// checks it) at half the cost. Other values go through sigs.k8s.io/yaml.
//
// When a line would read as a workflow command in a GitHub Actions log (a
// multi-line string with a line starting "::"), the value is printed by
// workflowcmd.SafeYAML instead: the same values, such strings
// double-quoted.
func yamlText(v any) string {
	text := kubectlYAML(v)
	if workflowcmd.HasCommandLine(text) {
		if safe, err := workflowcmd.SafeYAML(v); err == nil {
			return safe
		}
	}
	return text
}

// kubectlYAML prints v as kubectl's differ does.
func kubectlYAML(v any) string {
	if tree, ok := jsonTyped(v); ok {
		if text, ok := quickYAML(tree); ok {
			return text
		}
		if data, err := yamlv2.Marshal(tree); err == nil {
			return string(data)
		}
	}
	data, err := sigsyaml.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v\n", v)
	}
	return string(data)
}

// jsonTyped returns a value tree with its numbers typed as a JSON round
// trip through goyaml.v2 types them: encoding/json prints a whole float
// below 1e21 as digits, which goyaml.v2 reads back as an integer when it
// fits in 64 bits. The tree is copied only where a number changes. ok is
// false when v holds anything but a value tree's types, or text that is not
// UTF-8.
func jsonTyped(v any) (out any, ok bool) {
	out, _, ok = retypeNumbers(v)
	return out, ok
}

func retypeNumbers(v any) (out any, changed, ok bool) {
	switch t := v.(type) {
	case nil, bool, int64:
		return v, false, true
	case string:
		// encoding/json replaces invalid UTF-8, goyaml.v2 would print binary.
		return v, false, utf8.ValidString(t)
	case float64:
		if t != math.Trunc(t) || math.Abs(t) >= 1e21 {
			return v, false, true // NaN and the infinities included
		}
		digits := strconv.FormatFloat(t, 'f', -1, 64)
		if i, err := strconv.ParseInt(digits, 10, 64); err == nil {
			return i, true, true
		}
		if u, err := strconv.ParseUint(digits, 10, 64); err == nil {
			return u, true, true
		}
		return v, false, true
	case map[string]any:
		var copied map[string]any
		for k, x := range t {
			y, c, ok := retypeNumbers(x)
			if !ok || !utf8.ValidString(k) {
				return nil, false, false
			}
			if c {
				if copied == nil {
					copied = maps.Clone(t)
				}
				copied[k] = y
			}
		}
		if copied != nil {
			return copied, true, true
		}
		return v, false, true
	case []any:
		var copied []any
		for i, x := range t {
			y, c, ok := retypeNumbers(x)
			if !ok {
				return nil, false, false
			}
			if c {
				if copied == nil {
					copied = slices.Clone(t)
				}
				copied[i] = y
			}
		}
		if copied != nil {
			return copied, true, true
		}
		return v, false, true
	}
	return nil, false, false
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

// parseYAMLValue parses the only YAML document of text (nil when empty)
// with plumb's loader, so template output is typed like every input. Text
// in the plain block style templates mostly write is read without yaml.v3's
// node tree (manifest.DecodeSimple: the same value, a fraction of the
// cost; most of the comparison's time went to parsing).
func parseYAMLValue(name, text string) (any, error) {
	if v, ok := manifest.DecodeSimple(text); ok {
		return v, nil
	}
	docs, problems := manifest.Parse(name, []byte(text), parseLimits)
	for _, p := range problems {
		if p.Rule == manifest.RuleDuplicateKey {
			continue // the last value wins, as in kube-compare
		}
		return nil, &outputSyntaxError{line: p.Location.Line, msg: p.Message}
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
	line     []manifest.Path // deepest field of each line
	spans    []fieldSpan
	textLine []int // see textLines
}

type fieldSpan struct {
	path       manifest.Path
	start, end int // inclusive line numbers
}

func mapLines(text string) *linePaths {
	if lp, ok := quickLinePaths(text); ok {
		return lp
	}
	return nodeLinePaths(text)
}

// nodeLinePaths is mapLines through yaml.v3's node tree, for any text.
func nodeLinePaths(text string) *linePaths {
	lines := strings.Count(text, "\n")
	lp := &linePaths{line: make([]manifest.Path, lines+2), textLine: textLines(text)}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil || len(doc.Content) == 0 {
		return lp
	}
	lp.walk(doc.Content[0], nil, 1, lines)
	return lp
}

// textLines maps yaml.v3's line numbers to the text's "\n"-separated lines
// (the diff's), which differ when a string holds a line break other than
// "\n" (a lone "\r", NEL, LS or PS): yaml.v3 counts those too. nil when the
// two numberings agree.
func textLines(text string) []int {
	if !strings.ContainsAny(text, "\r\u0085\u2028\u2029") {
		return nil
	}
	out := []int{0, 1} // yaml.v3 line -> text line; index 0 unused
	line := 1
	for i, r := range text {
		switch {
		case r == '\n':
			line++
			if i > 0 && text[i-1] == '\r' {
				out[len(out)-1] = line // "\r\n" is one break, counted at the "\r"
				continue
			}
			out = append(out, line)
		case r == '\r', r == '\u0085', r == '\u2028', r == '\u2029':
			out = append(out, line)
		}
	}
	return out
}

// at converts a yaml.v3 line number to a text line number.
func (lp *linePaths) at(v3line int) int {
	if lp.textLine == nil {
		return v3line
	}
	if v3line < len(lp.textLine) {
		return lp.textLine[v3line]
	}
	return lp.textLine[len(lp.textLine)-1]
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
			s := lp.at(n.Content[i].Line)
			e := end
			if i+2 < len(n.Content) {
				e = lp.at(n.Content[i+2].Line) - 1
			}
			lp.walk(n.Content[i+1], path.Child(manifest.Key(n.Content[i].Value)), s, max(s, e))
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			s := lp.at(c.Line)
			e := end
			if i+1 < len(n.Content) {
				e = lp.at(n.Content[i+1].Line) - 1
			}
			lp.walk(c, path.Child(manifest.Index(i)), s, max(s, e))
		}
	}
}
