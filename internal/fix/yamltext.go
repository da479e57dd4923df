package fix

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// style is how a document writes YAML, so added lines look like their
// neighbours: the indentation step, whether lists of scalars are written
// [a, b] or as block items (and then whether "- " sits at the parent key's
// column or one step in), and whether keys are JSON strings.
type style struct {
	step int
	// blockLists: lists of scalars as "- item" lines; indentedDash: the
	// dash one step right of the parent key.
	blockLists, indentedDash bool
	// json: the document is JSON (quoted keys, JSON values).
	json bool
}

// detectStyle reads the style of a document node.
func detectStyle(root *yaml.Node) style {
	st := style{step: 2}
	steps := map[int]int{}
	flowLists, blockLists, dashIn, dashAt := 0, 0, 0, 0
	var walk func(n *yaml.Node, keyCol int)
	walk = func(n *yaml.Node, keyCol int) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Style&yaml.DoubleQuotedStyle != 0 && n.Style&yaml.FlowStyle != 0 {
					st.json = true
				}
				if v.Kind == yaml.MappingNode && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0 && v.Line > k.Line {
					if d := v.Content[0].Column - k.Column; d > 0 {
						steps[d]++
					}
				}
				if v.Kind == yaml.SequenceNode && len(v.Content) > 0 && allScalars(v) {
					if v.Style&yaml.FlowStyle != 0 {
						flowLists++
					} else {
						blockLists++
					}
				}
				if v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0 && v.Line > k.Line {
					if v.Column > k.Column {
						dashIn++
					} else {
						dashAt++
					}
				}
				walk(v, k.Column)
			}
		case yaml.SequenceNode, yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, keyCol)
			}
		}
	}
	walk(root, 0)
	best := 0
	for d, n := range steps {
		if n > best || n == best && d < st.step {
			st.step, best = d, n
		}
	}
	st.blockLists = blockLists > flowLists
	st.indentedDash = dashIn >= dashAt
	return st
}

func allScalars(n *yaml.Node) bool {
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode {
			return false
		}
	}
	return true
}

// scalarText writes a scalar so that YAML reads back the same value and
// type: plain where that is safe, double-quoted otherwise (JSON in JSON
// documents). quote, when set, is the quoting of the scalar being replaced,
// kept for a string.
func scalarText(v any, st style, quote yaml.Style) (string, error) {
	if st.json {
		b, err := json.Marshal(v)
		return string(b), err
	}
	s, isString := v.(string)
	if isString {
		switch {
		case quote&yaml.DoubleQuotedStyle != 0:
			return strconv.Quote(s), nil
		case quote&yaml.SingleQuotedStyle != 0 && !strings.ContainsAny(s, "\n"):
			return "'" + strings.ReplaceAll(s, "'", "''") + "'", nil
		}
	}
	switch t := v.(type) {
	case bool:
		return strconv.FormatBool(t), nil
	case int64:
		return strconv.FormatInt(t, 10), nil
	case int:
		return strconv.Itoa(t), nil
	case string:
		if plainWord(t) {
			return t, nil
		}
	case float64, nil:
	default:
		return "", fmt.Errorf("%T is not a scalar", v)
	}
	out, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	text := strings.TrimSuffix(string(out), "\n")
	if strings.Contains(text, "\n") {
		return strconv.Quote(s), nil
	}
	return text, nil
}

// plainWord reports whether a string reads back as itself unquoted: a
// word of letters, digits and . _ / - that starts with a letter and that
// YAML 1.1 or 1.2 does not take for a boolean or null (RuntimeDefault,
// IfNotPresent, ALL). Anything else goes through the YAML encoder.
func plainWord(s string) bool {
	if s == "" || !(s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '/' || c == '-') {
			return false
		}
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf":
		return false
	}
	return true
}

// keyText writes a mapping key.
func keyText(k string, st style) (string, error) {
	if st.json {
		b, err := json.Marshal(k)
		return string(b), err
	}
	return scalarText(k, st, 0)
}

// ordered is a mapping that keeps the order its keys were added in (the
// keys several fixes add to one mapping in one go).
type ordered struct {
	keys []string
	vals map[string]any
}

// set puts v at keys, making ordered mappings on the way; false when
// another value is already there.
func (o *ordered) set(keys []string, v any) bool {
	if o.vals == nil {
		o.vals = map[string]any{}
	}
	k := keys[0]
	cur, ok := o.vals[k]
	if len(keys) == 1 {
		if ok {
			return false
		}
		o.keys = append(o.keys, k)
		o.vals[k] = v
		return true
	}
	sub, isSub := cur.(*ordered)
	if ok && !isSub {
		return false
	}
	if !ok {
		sub = &ordered{}
		o.keys = append(o.keys, k)
		o.vals[k] = sub
	}
	return sub.set(keys[1:], v)
}

// flowText writes a value in flow style: {a: 1}, [A, B], or a scalar.
func flowText(v any, st style) (string, error) {
	switch t := v.(type) {
	case *ordered:
		parts := make([]string, 0, len(t.keys))
		for _, k := range t.keys {
			kt, err := keyText(k, st)
			if err != nil {
				return "", err
			}
			vt, err := flowText(t.vals[k], st)
			if err != nil {
				return "", err
			}
			parts = append(parts, kt+": "+vt)
		}
		return "{" + strings.Join(parts, ", ") + "}", nil
	case map[string]any:
		keys := slices.Sorted(maps.Keys(t))
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			kt, err := keyText(k, st)
			if err != nil {
				return "", err
			}
			vt, err := flowText(t[k], st)
			if err != nil {
				return "", err
			}
			parts = append(parts, kt+": "+vt)
		}
		return "{" + strings.Join(parts, ", ") + "}", nil
	case []any:
		parts := make([]string, 0, len(t))
		for _, e := range t {
			et, err := flowText(e, st)
			if err != nil {
				return "", err
			}
			parts = append(parts, et)
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	}
	return scalarText(v, st, 0)
}

// blockLines writes key: value as block lines at indent: nested keys one
// step in, lists of scalars in the document's list style, other lists and
// scalars in flow style.
func blockLines(key string, v any, indent int, st style) ([]string, error) {
	pad := strings.Repeat(" ", indent)
	kt, err := keyText(key, st)
	if err != nil {
		return nil, err
	}
	switch t := v.(type) {
	case *ordered:
		out := []string{pad + kt + ":"}
		for _, k := range t.keys {
			sub, err := blockLines(k, t.vals[k], indent+st.step, st)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
		return out, nil
	case map[string]any:
		if len(t) == 0 {
			return []string{pad + kt + ": {}"}, nil
		}
		out := []string{pad + kt + ":"}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			sub, err := blockLines(k, t[k], indent+st.step, st)
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		}
		return out, nil
	case []any:
		if st.blockLists && len(t) > 0 && scalarList(t) {
			dash := pad
			if st.indentedDash {
				dash += strings.Repeat(" ", st.step)
			}
			out := []string{pad + kt + ":"}
			for _, e := range t {
				et, err := scalarText(e, st, 0)
				if err != nil {
					return nil, err
				}
				out = append(out, dash+"- "+et)
			}
			return out, nil
		}
	}
	vt, err := flowText(v, st)
	if err != nil {
		return nil, err
	}
	return []string{pad + kt + ": " + vt}, nil
}

func scalarList(l []any) bool {
	for _, e := range l {
		switch e.(type) {
		case map[string]any, []any:
			return false
		}
	}
	return true
}

// nest wraps v in mappings for keys: nest([a b], 1) is {a: {b: 1}}.
func nest(keys []string, v any) any {
	for i := len(keys) - 1; i >= 0; i-- {
		v = map[string]any{keys[i]: v}
	}
	return v
}
