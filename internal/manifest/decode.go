package manifest

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// valueDecoder turns a yaml.Node tree into a JSON-compatible value tree while
// enforcing the nesting and alias-expansion limits and recording duplicate
// mapping keys. It is the only place YAML scalars are typed, so every engine
// sees the same values.
type valueDecoder struct {
	doc         *Document
	limits      Limits
	aliasNodes  int // nodes produced by expanding aliases so far
	aliasActive int // >0 while expanding an alias (duplicates there are reported at the anchor)
	// expanding is the outermost alias (or merge) being expanded: an
	// expansion over the limit is reported there, where the document uses
	// the alias, not deep inside the anchored content.
	expanding *yaml.Node
	problems  []Problem
	// duplicates counts the duplicate-key problems per key so far: the
	// second "name" duplicated in one document (in another mapping) gets a
	// fingerprint of its own.
	duplicates map[string]int
	// anyKeys reads a mapping used as a key as its printed value (any
	// YAML file); a manifest refuses it, as Kubernetes does.
	anyKeys bool
}

// errLimit aborts decoding of one document.
type errLimit struct {
	loc Location
	msg string
	// rule names the hygiene rule that reports the abort.
	rule string
}

func (e *errLimit) Error() string { return e.msg }

func (d *valueDecoder) decode(n *yaml.Node) (v any, err error) {
	return d.value(n, 0)
}

func (d *valueDecoder) loc(n *yaml.Node) Location {
	return Location{File: d.doc.File, Line: n.Line + d.doc.LineOffset, Column: n.Column}
}

func (d *valueDecoder) value(n *yaml.Node, depth int) (any, error) {
	if depth > d.limits.MaxDepth {
		return nil, &errLimit{loc: d.loc(n), rule: RuleTooDeep,
			msg: fmt.Sprintf("nesting is deeper than %d levels (limit --max-depth)", d.limits.MaxDepth)}
	}
	if d.aliasActive > 0 {
		d.aliasNodes++
		if d.aliasNodes > d.limits.MaxAliasNodes {
			at := n
			if d.expanding != nil {
				at = d.expanding
			}
			return nil, &errLimit{loc: d.loc(at), rule: RuleAliasLimit,
				msg: fmt.Sprintf("aliases expand to more than %d nodes (a \"billion laughs\" document?); limit --max-alias-nodes", d.limits.MaxAliasNodes)}
		}
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return d.value(n.Content[0], depth)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, nil
		}
		if d.aliasActive == 0 {
			d.expanding = n
		}
		d.aliasActive++
		v, err := d.value(n.Alias, depth+1)
		d.aliasActive--
		return v, err
	case yaml.ScalarNode:
		v := scalarValue(n)
		if s, ok := v.(string); ok && d.aliasActive == 0 && n.ShortTag() == "!!float" && isNonFinite(s) {
			d.nonFinite(n)
		}
		return v, nil
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := d.value(c, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case yaml.MappingNode:
		return d.mapping(n, depth)
	}
	return nil, nil
}

func (d *valueDecoder) mapping(n *yaml.Node, depth int) (map[string]any, error) {
	out := make(map[string]any, len(n.Content)/2)
	var seen map[string]*yaml.Node
	if d.aliasActive == 0 && len(n.Content) > 2 {
		seen = make(map[string]*yaml.Node, len(n.Content)/2)
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, vn := n.Content[i], n.Content[i+1]
		if isMergeKey(k) {
			merges = append(merges, vn)
			continue
		}
		key := k.Value
		if k.Kind != yaml.ScalarNode && d.anyKeys {
			kv, err := d.value(k, depth+1)
			if err != nil {
				return nil, err
			}
			key = fmt.Sprint(kv)
		} else if k.Kind != yaml.ScalarNode {
			// JSON keys are strings: kubectl refuses such a document
			// ("invalid map key"), so it is no object to check.
			return nil, &errLimit{loc: d.loc(k), rule: RuleYAMLSyntax, msg: fmt.Sprintf(
				"a key here is a %s, not a string (a {{ }} placeholder of a template reads as one), so Kubernetes cannot read "+
					"this document (kubectl: invalid map key): render the template before checking it, or exclude the file", nodeKind(k))}
		}
		if seen != nil {
			if first, dup := seen[key]; dup {
				if d.duplicates == nil {
					d.duplicates = map[string]int{}
				}
				d.duplicates[key]++
				fpKey := fmt.Sprintf("doc%d:%s", d.doc.Index, key)
				if n := d.duplicates[key]; n > 1 {
					fpKey += fmt.Sprintf("#%d", n)
				}
				d.problems = append(d.problems, Problem{
					Rule:     RuleDuplicateKey,
					Level:    "error",
					Location: d.loc(k),
					Related:  []Location{d.loc(first)},
					Message: fmt.Sprintf("duplicate key %q (first defined at line %d): keep one of them; kubectl rejects this, and many tools silently keep only the last value",
						key, first.Line+d.doc.LineOffset),
					Key:   fpKey,
					Input: true,
				})
			}
			seen[key] = k
		}
		v, err := d.value(vn, depth+1)
		if err != nil {
			return nil, err
		}
		out[key] = v
	}
	// Merge keys: explicit keys win, earlier merge sources win over later.
	for _, m := range merges {
		for _, src := range mergeSources(m) {
			if d.aliasActive == 0 {
				d.expanding = m
			}
			d.aliasActive++ // merged content is reported at its anchor, not here
			v, err := d.value(src, depth+1)
			d.aliasActive--
			if err != nil {
				return nil, err
			}
			if mv, ok := v.(map[string]any); ok {
				for k, x := range mv {
					if _, exists := out[k]; !exists {
						out[k] = x
					}
				}
			}
		}
	}
	return out, nil
}

// scalarValue types a scalar the way YAML 1.2's core schema (and kustomize's
// kyaml) does: whole numbers become int64, other numbers float64, true/false
// booleans, null nil, everything else (timestamps included) a string.
func scalarValue(n *yaml.Node) any {
	return typedScalar(n.Value, n.ShortTag())
}

// typedScalar is scalarValue for a scalar's text and its resolved tag.
func typedScalar(s, tag string) any {
	switch tag {
	case "!!null":
		return nil
	case "!!bool":
		b, err := strconv.ParseBool(strings.ToLower(s))
		if err != nil {
			return s
		}
		return b
	case "!!int":
		return parseInt(s)
	case "!!float":
		return parseFloat(s)
	}
	return s
}

func parseInt(s string) any {
	t := strings.ReplaceAll(s, "_", "")
	if i, err := strconv.ParseInt(t, 0, 64); err == nil {
		return i
	}
	if u, err := strconv.ParseUint(t, 0, 64); err == nil {
		return float64(u)
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		return f
	}
	return s
}

// parseFloat types a !!float scalar. YAML's .nan and .inf have no JSON
// form: kubectl and the API server refuse an object holding one, and no
// report could carry it. They stay the text they were written as, and the
// decoder reports them (nonFinite).
func parseFloat(s string) any {
	if isNonFinite(s) {
		return s
	}
	if f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64); err == nil && !math.IsInf(f, 0) {
		return f
	}
	return s
}

// isNonFinite reports whether a !!float scalar is NaN or an infinity, as
// written (.nan, .inf, -.Inf, 1e999).
func isNonFinite(s string) bool {
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case ".inf", ".nan":
		return true
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	return err != nil && math.IsInf(f, 0)
}

// nonFinite reports a number JSON cannot hold, at its line.
func (d *valueDecoder) nonFinite(n *yaml.Node) {
	d.problems = append(d.problems, Problem{Rule: RuleNonFinite, Level: "error", Location: d.loc(n),
		Key: fmt.Sprintf("doc%d:%s", d.doc.Index, n.Value),
		Message: fmt.Sprintf("%s is a YAML number that JSON cannot hold (not a number or infinite): kubectl and the API server refuse the object; "+
			"write a number, or quote it ('%s') if it is text", n.Value, n.Value)})
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	}
	return "value"
}
