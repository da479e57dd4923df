// Package workflowcmd tells whether text printed to a GitHub Actions log
// could be read as a workflow command, and writes YAML that cannot be.
//
// The runner reads every line of a step's stdout and stderr, trims its
// leading whitespace, and runs it as a command when it then starts with
// "::" (or the legacy "##["). A carriage return ends a line as a newline
// does. Repository content that plumb prints line by line (YAML, diffs)
// must therefore never put either prefix at the start of a line.
package workflowcmd

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// IsCommandLine reports whether the runner would take line (without its
// line break) for a workflow command.
func IsCommandLine(line string) bool {
	line = strings.TrimLeftFunc(line, unicode.IsSpace)
	return strings.HasPrefix(line, "::") || strings.HasPrefix(line, "##[")
}

// HasCommandLine reports whether any line of text is a command line.
func HasCommandLine(text string) bool {
	if !strings.Contains(text, "::") && !strings.Contains(text, "##[") {
		return false // the common case, without splitting
	}
	for len(text) > 0 {
		end := strings.IndexAny(text, "\r\n")
		if end < 0 {
			return IsCommandLine(text)
		}
		if IsCommandLine(text[:end]) {
			return true
		}
		text = text[end+1:]
	}
	return false
}

// SafeYAML prints a value tree (the shapes of manifest content: mappings
// with string keys, lists, strings, numbers, booleans, null) as block YAML
// (two-space indentation, mapping keys sorted) in which no line is a
// command line: the strings that would put one at the start of a line are
// double-quoted.
func SafeYAML(v any) (string, error) {
	n, err := node(v)
	if err != nil {
		return "", err
	}
	return encodeNode(n)
}

// node builds the YAML node of a value tree, choosing each string's style.
// (yaml.v3's own Node.Encode goes through text and fails on some strings,
// such as a literal block that starts with a blank line inside a list.)
func node(v any) (*yaml.Node, error) {
	switch t := v.(type) {
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			val, err := node(t[k])
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, stringNode(k), val)
		}
		return n, nil
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for _, item := range t {
			c, err := node(item)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, c)
		}
		return n, nil
	case string:
		return stringNode(t), nil
	}
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	return &n, nil
}

// stringNode is a string scalar: double-quoted when it holds a command
// line, when it is the merge key, or when a literal block could not carry it faithfully (leading or
// trailing blank lines, a leading space), else in the encoder's own style.
func stringNode(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	// "<<" plain is a merge key, which yaml.v3 prints plain all the same.
	if HasCommandLine(s) || s == "<<" || (strings.Contains(s, "\n") && !tidyBlock(s)) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// tidyBlock reports whether a multi-line string prints well as a literal
// block: no blank first line, no leading space or tab on the first line,
// no tab starting any line, no carriage return, at most one final newline.
func tidyBlock(s string) bool {
	return !strings.HasPrefix(s, "\n") && !strings.HasPrefix(s, " ") && !strings.HasPrefix(s, "\t") &&
		!strings.HasSuffix(s, "\n\n") && !strings.Contains(s, "\n\t") && !strings.Contains(s, "\r")
}

// encodeNode prints a node with two-space indentation.
func encodeNode(n *yaml.Node) (string, error) {
	var b strings.Builder
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return "", err
	}
	if err := enc.Close(); err != nil {
		return "", err
	}
	return b.String(), nil
}

// escape is what InertWriter puts before a line that would otherwise be a
// workflow command: the line is shown, escaped, instead of being run.
const escape = `\`

// InertWriter passes human-readable text through to w line by line, with
// escape before every line the runner would take for a workflow command.
// It is for text meant to be read (reports, messages), not parsed: a
// machine-readable format must stay byte-exact and be made safe by its
// own quoting. Close writes an unfinished last line.
type InertWriter struct {
	w       io.Writer
	partial []byte
}

// NewInertWriter returns an InertWriter over w.
func NewInertWriter(w io.Writer) *InertWriter { return &InertWriter{w: w} }

// Write writes every complete line of p; a line is complete at "\n" or at
// a "\r" (the runner ends a line at either).
func (iw *InertWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		end := bytes.IndexAny(p, "\r\n")
		if end < 0 {
			iw.partial = append(iw.partial, p...)
			break
		}
		line := append(iw.partial, p[:end+1]...)
		iw.partial = iw.partial[:0]
		if err := iw.writeLine(line); err != nil {
			return 0, err
		}
		p = p[end+1:]
	}
	return n, nil
}

// Close writes the unfinished last line, if any.
func (iw *InertWriter) Close() error {
	if len(iw.partial) == 0 {
		return nil
	}
	line := iw.partial
	iw.partial = nil
	return iw.writeLine(line)
}

func (iw *InertWriter) writeLine(line []byte) error {
	if IsCommandLine(strings.TrimRight(string(line), "\r\n")) {
		if _, err := io.WriteString(iw.w, escape); err != nil {
			return err
		}
	}
	_, err := iw.w.Write(line)
	return err
}
