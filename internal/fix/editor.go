package fix

import (
	"reflect"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// editor changes the lines of one document.
type editor struct {
	lines []string
	doc   *manifest.Document
	style style
}

func (e *editor) make(op sourceOp) error {
	key, n, err := node(e.doc, op.path)
	if err != nil {
		return err
	}
	if op.rename {
		return e.renameKey(key, op)
	}
	if len(op.also) > 0 {
		return e.insertAll(key, n, append([]insertion{{op.keys, op.value}}, op.also...))
	}
	keys := op.keys
	// Walk into the mappings already there (an earlier edit may have
	// added securityContext).
	for len(keys) > 0 && n.Kind == yaml.MappingNode {
		k, v := mapEntry(n, keys[0])
		if v == nil {
			break
		}
		if v.Kind == yaml.AliasNode || v.Anchor != "" {
			return notEditable("%s is an alias or an anchor", keys[0])
		}
		key, n, keys = k, v, keys[1:]
	}
	if len(keys) == 0 {
		return e.replace(key, n, op.value)
	}
	return e.insert(key, n, []entry{{keys[0], nest(keys[1:], op.value)}})
}

// entry is a key to add to a mapping and its value.
type entry struct {
	key   string
	value any
}

// insert adds entries to the mapping n (the value of key), in its style.
func (e *editor) insert(key, n *yaml.Node, entries []entry) error {
	switch {
	case n.Kind == yaml.MappingNode && hasMergeKey(n):
		return notEditable("the mapping takes keys from a merge key (<<)")
	case n.Kind == yaml.MappingNode && n.Style&yaml.FlowStyle != 0:
		return e.insertFlow(n, entries)
	case n.Kind == yaml.MappingNode:
		return e.insertBlock(n, entries)
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" && key != nil:
		return e.fillNull(key, n, entries)
	}
	return notEditable("the field holds a %s, not a mapping", describe(n))
}

// insertAll adds several insertions below n in one go, in their order,
// when none of their first keys is there already.
func (e *editor) insertAll(key, n *yaml.Node, all []insertion) error {
	tree := &ordered{}
	for _, in := range all {
		if !tree.set(in.keys, in.value) {
			return errCannotBatch
		}
	}
	entries := make([]entry, 0, len(tree.keys))
	for _, k := range tree.keys {
		if n.Kind == yaml.MappingNode {
			if k, _ := mapEntry(n, k); k != nil {
				return errCannotBatch
			}
		}
		entries = append(entries, entry{k, tree.vals[k]})
	}
	return e.insert(key, n, entries)
}

// blockEntries writes entries as block lines at indent.
func (e *editor) blockEntries(entries []entry, indent int) ([]string, error) {
	var out []string
	for _, en := range entries {
		lines, err := blockLines(en.key, en.value, indent, e.style)
		if err != nil {
			return nil, err
		}
		out = append(out, lines...)
	}
	return out, nil
}

func mapEntry(n *yaml.Node, k string) (key, value *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if c := n.Content[i]; c.Kind == yaml.ScalarNode && c.Value == k && c.Tag != "!!merge" {
			return c, n.Content[i+1]
		}
	}
	return nil, nil
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.MappingNode:
		return "mapping"
	}
	return "scalar"
}

// runes returns line i (1-based) as runes.
func (e *editor) runes(line int) []rune { return []rune(e.lines[line-1]) }

// insertLines puts new lines after line (1-based; 0: before the first).
func (e *editor) insertLines(after int, add []string) {
	out := make([]string, 0, len(e.lines)+len(add))
	out = append(out, e.lines[:after]...)
	out = append(out, add...)
	e.lines = append(out, e.lines[after:]...)
}

// insertBlock adds keys (nested) with value to a block mapping. A mapping
// whose first key starts its line gets the new key just before it; one
// that starts after "- " (a list item, such as a container) gets it right
// after its first entry (its name), so the change sits next to the line a
// finding points at.
func (e *editor) insertBlock(n *yaml.Node, entries []entry) error {
	first := n.Content[0]
	indent := first.Column - 1
	add, err := e.blockEntries(entries, indent)
	if err != nil {
		return err
	}
	prefix := e.runes(first.Line)[:min(indent, len(e.runes(first.Line)))]
	if strings.TrimSpace(string(prefix)) == "" {
		e.insertLines(first.Line-1, add)
		return nil
	}
	end, err := e.entryEnd(n, 0)
	if err != nil {
		return err
	}
	e.insertLines(end, add)
	return nil
}

// entryEnd is the last line of the i-th entry of a block mapping: the line
// before the next key, or the last line indented at least as far as the
// mapping's keys; trailing blank and comment lines are not the entry's.
func (e *editor) entryEnd(n *yaml.Node, i int) (int, error) {
	col := n.Content[0].Column
	keyLine := n.Content[2*i].Line
	last := keyLine
	stop := len(e.lines)
	if 2*i+2 < len(n.Content) {
		stop = n.Content[2*i+2].Line - 1
	}
	for l := keyLine + 1; l <= stop; l++ {
		t := strings.TrimSpace(e.lines[l-1])
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if indentOf(e.lines[l-1]) < col-1 {
			break
		}
		last = l
	}
	return last, nil
}

func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

// insertFlow adds keys with value to a flow mapping: before its first key
// ("{a: 1}" becomes "{new: v, a: 1}"), on a line of its own when the
// first key starts a line (pretty-printed JSON), or into "{}".
func (e *editor) insertFlow(n *yaml.Node, entries []entry) error {
	parts := make([]string, 0, len(entries))
	for _, en := range entries {
		kt, err := keyText(en.key, e.style)
		if err != nil {
			return err
		}
		vt, err := flowText(en.value, e.style)
		if err != nil {
			return err
		}
		parts = append(parts, kt+": "+vt)
	}
	entry := strings.Join(parts, ", ")
	if len(n.Content) == 0 {
		line := e.runes(n.Line)
		open := n.Column - 1
		closeAt := open + 1
		for closeAt < len(line) && line[closeAt] == ' ' {
			closeAt++
		}
		if open >= len(line) || line[open] != '{' || closeAt >= len(line) || line[closeAt] != '}' {
			return notEditable("an empty mapping that is not {} on one line")
		}
		e.lines[n.Line-1] = string(line[:open+1]) + entry + string(line[closeAt:])
		return nil
	}
	first := n.Content[0]
	line := e.runes(first.Line)
	at := first.Column - 1
	if at > len(line) {
		return notEditable("a key past the end of its line")
	}
	if strings.TrimSpace(string(line[:at])) == "" {
		e.insertLines(first.Line-1, []string{string(line[:at]) + entry + ","})
		return nil
	}
	e.lines[first.Line-1] = string(line[:at]) + entry + ", " + string(line[at:])
	return nil
}

// fillNull gives an empty (null) field its first keys: "securityContext:"
// or "securityContext: ~" becomes a block mapping.
func (e *editor) fillNull(key, n *yaml.Node, entries []entry) error {
	line := e.runes(key.Line)
	if n.Value != "" {
		if n.Line != key.Line || n.Column-1+utf8.RuneCountInString(n.Value) > len(line) {
			return notEditable("a null value away from its key")
		}
		at := n.Column - 1
		rest := strings.TrimSpace(string(line[at+utf8.RuneCountInString(n.Value):]))
		if rest != "" && !strings.HasPrefix(rest, "#") {
			return notEditable("more than the null value on its line")
		}
		e.lines[key.Line-1] = strings.TrimRight(string(line[:at]), " ") + string(line[at+utf8.RuneCountInString(n.Value):])
	}
	add, err := e.blockEntries(entries, key.Column-1+e.style.step)
	if err != nil {
		return err
	}
	e.insertLines(key.Line, add)
	return nil
}

// replace gives the node n (the value of key) a new value: a scalar in
// place, keeping its quotes; a list of scalars in the style it is written
// in. Anything else is not exact enough to edit.
func (e *editor) replace(key, n *yaml.Node, value any) error {
	if same(n, value) {
		return nil
	}
	switch {
	case n.Kind == yaml.ScalarNode:
		start, end, err := e.scalarSpan(n)
		if err != nil {
			return err
		}
		if _, composite := value.(map[string]any); composite {
			return notEditable("a scalar that would become a mapping")
		}
		text, err := flowText(value, e.style)
		if _, isList := value.([]any); !isList {
			text, err = scalarText(value, e.style, n.Style)
		}
		if err != nil {
			return err
		}
		line := e.runes(n.Line)
		e.lines[n.Line-1] = string(line[:start]) + text + string(line[end:])
		return nil
	case n.Kind == yaml.SequenceNode && n.Style&yaml.FlowStyle != 0:
		line := e.runes(n.Line)
		start := n.Column - 1
		end, ok := flowEnd(line, start)
		if !ok {
			return notEditable("a flow list over several lines")
		}
		text, err := flowText(value, e.style)
		if err != nil {
			return err
		}
		e.lines[n.Line-1] = string(line[:start]) + text + string(line[end:])
		return nil
	case n.Kind == yaml.SequenceNode && allScalars(n) && len(n.Content) > 0:
		list, ok := value.([]any)
		if !ok || !scalarList(list) {
			return notEditable("a list that would become something else")
		}
		pad := strings.Repeat(" ", n.Column-1)
		var add []string
		for _, item := range list {
			t, err := scalarText(item, e.style, 0)
			if err != nil {
				return err
			}
			add = append(add, pad+"- "+t)
		}
		firstLine := n.Content[0].Line
		for i, c := range n.Content {
			if c.Line != firstLine+i || strings.ContainsRune(c.Value, '\n') || c.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
				return notEditable("a list whose items are not one a line")
			}
			if strings.Contains(e.lines[c.Line-1], "#") {
				return notEditable("a list whose items carry comments, which replacing it would lose")
			}
		}
		lastLine := firstLine + len(n.Content) - 1
		out := append([]string(nil), e.lines[:firstLine-1]...)
		out = append(out, add...)
		e.lines = append(out, e.lines[lastLine:]...)
		return nil
	}
	return notEditable("a %s written over several lines", describe(n))
}

// same reports whether node n already holds value.
func same(n *yaml.Node, value any) bool {
	var v any
	if err := n.Decode(&v); err != nil {
		return false
	}
	return reflect.DeepEqual(normalize(v), normalize(value))
}

// scalarSpan is where a single-line scalar's text is on its line (rune
// offsets), quotes included; template text is refused.
func (e *editor) scalarSpan(n *yaml.Node) (int, int, error) {
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || strings.ContainsRune(n.Value, '\n') {
		return 0, 0, notEditable("a value over several lines")
	}
	line := e.runes(n.Line)
	start := n.Column - 1
	var raw string
	switch {
	case n.Style&yaml.DoubleQuotedStyle != 0:
		end, ok := quotedEnd(line, start)
		if !ok {
			return 0, 0, notEditable("an unterminated quoted value")
		}
		raw = string(line[start:end])
	case n.Style&yaml.SingleQuotedStyle != 0:
		raw = "'" + strings.ReplaceAll(n.Value, "'", "''") + "'"
	default:
		raw = n.Value
	}
	end := start + utf8.RuneCountInString(raw)
	if end > len(line) || string(line[start:end]) != raw {
		return 0, 0, notEditable("the value's text is not where the parser put it")
	}
	if strings.Contains(raw, "${") || strings.Contains(raw, "$(") {
		return 0, 0, notEditable("the value is a parameter or variable reference, not the value")
	}
	return start, end, nil
}

// quotedEnd finds the end of a double-quoted scalar starting at start.
func quotedEnd(line []rune, start int) (int, bool) {
	if start >= len(line) || line[start] != '"' {
		return 0, false
	}
	for i := start + 1; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

// flowEnd finds the end of a flow collection starting at start on one line.
func flowEnd(line []rune, start int) (int, bool) {
	depth := 0
	for i := start; i < len(line); i++ {
		switch line[i] {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return i + 1, true
			}
		case '"':
			end, ok := quotedEnd(line, i)
			if !ok {
				return 0, false
			}
			i = end - 1
		case '\'':
			j := i + 1
			for j < len(line) && (line[j] != '\'' || j+1 < len(line) && line[j+1] == '\'') {
				if line[j] == '\'' {
					j++
				}
				j++
			}
			i = j
		}
	}
	return 0, false
}

// renameKey renames the key at the end of op.path.
func (e *editor) renameKey(key *yaml.Node, op sourceOp) error {
	if key == nil {
		return notEditable("no key to rename")
	}
	start, end, err := e.scalarSpan(key)
	if err != nil {
		return err
	}
	text, err := scalarText(op.to, e.style, key.Style)
	if e.style.json {
		text, err = keyText(op.to, e.style)
	}
	if err != nil {
		return err
	}
	line := e.runes(key.Line)
	e.lines[key.Line-1] = string(line[:start]) + text + string(line[end:])
	return nil
}
