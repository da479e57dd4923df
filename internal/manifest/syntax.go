package manifest

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// contextErrors are yaml.v3 parser errors whose reported line is the 0-based
// line of the collection being parsed (yaml.v3 adds 1 only for scanner
// errors), so it is one less than the line a person reads.
var contextErrors = []string{
	"did not find expected key",
	"did not find expected '-' indicator",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
}

// yamlError splits a yaml.v3 error into the line it names (0 when none)
// and the message.
func yamlError(err error) (int, string) {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return line, m[2]
	}
	return 0, strings.TrimPrefix(msg, "yaml: ")
}

// syntaxProblem turns a yaml.v3 error into a located problem. yaml.v3
// reports only a line, and for many errors the line where the construct
// being parsed started (the mapping, the plain scalar) rather than the one
// that broke it; with exact, the line is found by parsing (breakingLine).
// The column is the first non-blank character of the line, or the
// character the message names.
func syntaxProblem(name string, c chunk, err error, exact bool) Problem {
	line, msg := yamlError(err)
	if line == 0 {
		line = 1
	}
	if slices.Contains(contextErrors, msg) {
		line++
	}
	if n := CountLines(c.data); line > n {
		line = n
	}
	if exact {
		line = breakingLine(c.data, line, msg)
	}
	col := syntaxColumn(c.data, line, msg)
	p := inputError(RuleYAMLSyntax, Location{File: name, Line: c.line + line, Column: col},
		"YAML syntax error: %s", msg)
	p.Key = msg
	return p
}

// probeBudget bounds the bytes breakingLine parses for one error, so a
// huge broken document costs a bounded amount of extra work (it then keeps
// yaml.v3's line).
const probeBudget = 4 << 20

// breakingLine returns the first line at or after from such that the
// document cut after that line fails with the same message as the whole
// document: the line where the YAML stops being valid. A cut that fails
// for another reason (a quoted string or flow collection left open by the
// cut) is passed over. It returns from when no line qualifies.
func breakingLine(data []byte, from int, msg string) int {
	if extraBreaks(data) > 0 {
		return from // lines would not count as yaml.v3 counts them
	}
	ends := lineEnds(data)
	spent := 0
	for line := from; line <= len(ends); line++ {
		prefix := data[:ends[line-1]]
		if spent += len(prefix); spent > probeBudget {
			break
		}
		err := parseAll(prefix)
		if err == nil {
			continue
		}
		if _, m := yamlError(err); m == msg {
			return line
		}
	}
	return from
}

// lineEnds returns, for each line, the offset just past its end.
func lineEnds(data []byte) []int {
	var ends []int
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			ends = append(ends, len(data))
			break
		}
		i += j + 1
		ends = append(ends, i)
	}
	return ends
}

// parseAll parses every document of data and returns the first error.
func parseAll(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

var unknownAnchorRE = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// syntaxColumn is the column of the character the message is about when
// it names one (a tab, an alias), else the first non-blank character of
// the line.
func syntaxColumn(data []byte, line int, msg string) int {
	l := lineText(data, line)
	switch {
	case strings.Contains(msg, "tab character"):
		if i := bytes.IndexByte(l, '\t'); i >= 0 {
			return utf8.RuneCount(l[:i]) + 1
		}
	case unknownAnchorRE.MatchString(msg):
		alias := "*" + unknownAnchorRE.FindStringSubmatch(msg)[1]
		if i := bytes.Index(l, []byte(alias)); i >= 0 {
			return utf8.RuneCount(l[:i]) + 1
		}
	}
	return firstColumn(data, line)
}

// lineText returns line (1-based) of data without its line break.
func lineText(data []byte, line int) []byte {
	lines := bytes.SplitN(data, []byte("\n"), line+1)
	if line < 1 || line > len(lines) {
		return nil
	}
	return bytes.TrimRight(lines[line-1], "\r")
}

func firstColumn(data []byte, line int) int {
	l := lineText(data, line)
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	return utf8.RuneCount(l[:i]) + 1
}
