package compare

import (
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// quickLinePaths is mapLines for the text kubectlYAML prints, read line by
// line instead of through yaml.v3's node tree: goyaml.v2 writes block
// mappings with a key at the start of each line, block sequences level
// with their key, one-line scalars, and block or folded scalars whose
// further lines are indented deeper, which is all the line map needs to
// know. ok is false for anything else (a quoted key, a list in a list, a
// line break yaml.v3 counts apart), which mapLines reads with yaml.v3.
// A differential test holds the two to the same result.
func quickLinePaths(text string) (*linePaths, bool) {
	if textLines(text) != nil {
		return nil, false
	}
	n := strings.Count(text, "\n")
	q := lineScan{lp: &linePaths{line: make([]manifest.Path, n+2)}, rows: strings.Split(text, "\n")}
	if n == 0 || len(q.rows[0]) == 0 || q.rows[0][0] == ' ' || q.rows[0] == "{}" {
		return nil, false
	}
	if !q.mapping(0, 1, n, nil, "") {
		return nil, false
	}
	return q.lp, true
}

// lineScan reads the structure of a printed text; rows are its lines
// (row i is line i+1).
type lineScan struct {
	lp   *linePaths
	rows []string
}

// line is line l's indentation and text after it.
func (q *lineScan) line(l int) (int, string) {
	r := q.rows[l-1]
	i := 0
	for i < len(r) && r[i] == ' ' {
		i++
	}
	return i, r[i:]
}

// mapping reads a block mapping whose keys sit at column indent on lines
// start to end; first, when not empty, is the text of line start from the
// key on (a mapping begun on a list item's line).
func (q *lineScan) mapping(indent, start, end int, path manifest.Path, first string) bool {
	type key struct {
		name string
		line int
		rest string
	}
	var keys []key
	for l := start; l <= end; l++ {
		in, text := q.line(l)
		if l == start && first != "" {
			in, text = indent, first
		}
		switch {
		case text == "" && l > start:
			continue // a blank line of a block scalar
		case text == "":
			return false
		case in > indent || in == indent && isSeqEntry(text):
			continue // inside the previous key's value
		case in < indent:
			return false
		}
		name, rest, ok := printedKey(text)
		if !ok {
			return false
		}
		keys = append(keys, key{name, l, rest})
	}
	if len(keys) == 0 || keys[0].line != start {
		return false
	}
	q.cover(path, start, end)
	for i, k := range keys {
		e := end
		if i+1 < len(keys) {
			e = keys[i+1].line - 1
		}
		if !q.value(indent, k.line, max(k.line, e), path.Child(manifest.Key(k.name)), k.rest) {
			return false
		}
	}
	return true
}

// value reads the value of a key at column indent, on lines start to end;
// rest is what follows the key's colon.
func (q *lineScan) value(indent, start, end int, path manifest.Path, rest string) bool {
	if rest != "" {
		q.cover(path, start, end) // a scalar, block scalars and "{}" included
		q.lp.spans = append(q.lp.spans, fieldSpan{path: path, start: start, end: end})
		return true
	}
	if start == end {
		return false
	}
	in, text := q.line(start + 1)
	switch {
	case in == indent && isSeqEntry(text), in > indent && isSeqEntry(text):
		return q.spanned(path, start, end, func() bool { return q.sequence(in, start+1, end, path) })
	case in > indent:
		return q.spanned(path, start, end, func() bool { return q.mapping(in, start+1, end, path, "") })
	}
	return false
}

// spanned records path's span, then reads what is below it.
func (q *lineScan) spanned(path manifest.Path, start, end int, below func() bool) bool {
	q.lp.spans = append(q.lp.spans, fieldSpan{path: path, start: start, end: end})
	q.cover(path, start, end)
	return below()
}

// sequence reads a block sequence whose dashes sit at column indent on
// lines start to end.
func (q *lineScan) sequence(indent, start, end int, path manifest.Path) bool {
	var items []int
	for l := start; l <= end; l++ {
		in, text := q.line(l)
		switch {
		case text == "" && l > start:
			continue // a blank line of a block scalar
		case text == "" || in < indent:
			return false
		case in == indent && isSeqEntry(text):
			items = append(items, l)
		case in == indent:
			return false
		}
	}
	if len(items) == 0 || items[0] != start {
		return false
	}
	for i, l := range items {
		e := end
		if i+1 < len(items) {
			e = items[i+1] - 1
		}
		e = max(l, e)
		item := path.Child(manifest.Index(i))
		_, text := q.line(l)
		body := strings.TrimLeft(text[1:], " ")
		switch {
		case body == "" || isSeqEntry(body):
			return false // "-" alone, a list in a list
		case isPrintedKeyLine(body):
			col := indent + len(text) - len(body)
			if !q.spanned(item, l, e, func() bool { return q.mapping(col, l, e, item, body) }) {
				return false
			}
		case printedScalar(body):
			q.lp.spans = append(q.lp.spans, fieldSpan{path: item, start: l, end: e})
			q.cover(item, l, e)
		default:
			return false // a mapping with a quoted or complex first key
		}
	}
	return true
}

// cover makes path the deepest field of lines start to end (walk's order:
// a field, then the fields below it).
func (q *lineScan) cover(path manifest.Path, start, end int) {
	for l := start; l <= end && l < len(q.lp.line); l++ {
		q.lp.line[l] = path
	}
}

// isSeqEntry reports whether a line's text starts a sequence entry.
func isSeqEntry(text string) bool {
	return text == "-" || strings.HasPrefix(text, "- ")
}

// printedScalar reports whether a list item's text is a scalar as goyaml.v2
// prints one: "{}", "[]", a block scalar's header, a plain scalar (no ": ",
// not ending in ":"), or a quoted one that ends the line or goes on to the
// next (a folded one).
func printedScalar(text string) bool {
	switch {
	case text == "{}" || text == "[]" || text[0] == '|' || text[0] == '>':
		return true
	case text[0] == '\'':
		for i := 1; i < len(text); i++ {
			if text[i] == '\'' {
				if i+1 < len(text) && text[i+1] == '\'' {
					i++
					continue
				}
				return i == len(text)-1
			}
		}
		return true
	case text[0] == '"':
		for i := 1; i < len(text); i++ {
			switch text[i] {
			case '\\':
				i++
			case '"':
				return i == len(text)-1
			}
		}
		return true
	case text[0] == '?' || text[0] == '&' || text[0] == '*' || text[0] == '!':
		return false
	}
	return !strings.Contains(text, ": ") && !strings.HasSuffix(text, ":")
}

func isPrintedKeyLine(text string) bool {
	_, _, ok := printedKey(text)
	return ok
}

// printedKey splits "key: rest" or "key:" where goyaml.v2 printed the key
// plain: letters, digits and "_./-", not starting with "-".
func printedKey(text string) (name, rest string, ok bool) {
	i := 0
	for i < len(text) && isPlainKeyByte(text[i]) {
		i++
	}
	if i == 0 || i == len(text) || text[i] != ':' || text[0] == '-' || i+1 < len(text) && text[i+1] != ' ' {
		return "", "", false
	}
	return text[:i], strings.TrimLeft(text[i+1:], " "), true
}

func isPlainKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '/' || c == '-'
}
