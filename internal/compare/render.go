package compare

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"
)

// maxRenderBytes bounds one template execution's output.
const maxRenderBytes = 8 << 20

// notYAMLError is a template whose output is not one YAML mapping. Text is
// the output; it is printed only when it cannot hold Secret values.
type notYAMLError struct {
	path string
	err  error
	Text string
}

func (e *notYAMLError) Error() string {
	return fmt.Sprintf("template: %s isn't a yaml file after injection. yaml unmarshal error: %v", e.path, e.err)
}

// withOutput adds the rendered text to the message, as kube-compare does.
func (e *notYAMLError) withOutput() string {
	return fmt.Sprintf("%s The Template After Execution: %s", e.Error(), e.Text)
}

// cappedBuffer fails a write that would take it past its limit, which stops
// a runaway template.
type cappedBuffer struct {
	bytes.Buffer
	limit int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > b.limit {
		return 0, fmt.Errorf("the output exceeds %d bytes", b.limit)
	}
	return b.Buffer.Write(p)
}

// renderTemplate executes a template with data, deletes every "<no value>"
// (what text/template prints for a missing key) and parses the output.
func renderTemplate(t *boundedTemplate, data map[string]any, path string) (map[string]any, string, error) {
	out := cappedBuffer{limit: maxRenderBytes}
	if err := t.execute(&out, data); err != nil {
		return nil, "", err
	}
	text := strings.ReplaceAll(out.String(), "<no value>", "")
	obj, err := parseYAMLObject(path, text)
	if err != nil {
		return nil, text, &notYAMLError{path: path, err: err, Text: text}
	}
	return obj, text, nil
}

// outputSyntaxError is YAML that does not parse, at a line of the text.
type outputSyntaxError struct {
	line int
	msg  string
}

func (e *outputSyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// errorLine is the line of the template an error is about: the line
// text/template names, or, for output that is not YAML, the template line
// that wrote the offending line of output — the template line with the
// same text nearest to it, else the nearest whose text matches it with
// each action standing for whatever it printed. 0 when none is known: the
// line of the output is not the template's, which conditionals, ranges and
// comments shift.
func (t *Template) errorLine(err error) int {
	var ny *notYAMLError
	var ose *outputSyntaxError
	if !errors.As(err, &ny) || !errors.As(ny.err, &ose) {
		return templateErrorLine(err, path.Base(t.Path))
	}
	out := strings.Split(ny.Text, "\n")
	if ose.line < 1 || ose.line > len(out) {
		return 0
	}
	want := strings.TrimRight(out[ose.line-1], " \t\r")
	if strings.TrimSpace(want) == "" {
		return 0
	}
	nearest := func(match func(i int) bool) int {
		best := 0
		for i := range t.source {
			if match(i) && (best == 0 || abs(i+1-ose.line) < abs(best-ose.line)) {
				best = i + 1
			}
		}
		return best
	}
	if l := nearest(func(i int) bool { return strings.TrimRight(t.source[i], " \t\r") == want }); l > 0 {
		return l
	}
	globs := t.lineGlobs()
	return nearest(func(i int) bool { return globs[i].matches(want) })
}

// lineGlobs are the template's lines as patterns of the output lines they
// can write, computed once (when an error needs them).
func (t *Template) lineGlobs() []lineGlob {
	t.globsOnce.Do(func() {
		t.globs = make([]lineGlob, len(t.source))
		for i, l := range t.source {
			t.globs[i] = globOf(l)
		}
	})
	return t.globs
}

// lineGlob is a template line's literal text between its actions: an
// output line it writes starts with the first part, ends with the last and
// holds the others in order. A line with one part has no action; a line
// without literal text (nil) matches nothing, as it would match anything.
type lineGlob []string

// globOf reads a template line. The whitespace a trim marker ("{{- ",
// " -}}") removes is left out of the literal beside it; an action left open
// at the end of the line, or closed at its start, is a wildcard too.
func globOf(line string) lineGlob {
	rest := strings.TrimRight(line, " \t\r")
	var parts []string
	text := false
	literal := func(s string) {
		parts = append(parts, s)
		text = text || strings.TrimSpace(s) != ""
	}
	if end := strings.Index(rest, "}}"); end >= 0 && !strings.Contains(rest[:end], "{{") {
		literal("") // the end of an action begun on an earlier line
		trim := strings.HasSuffix(rest[:end], " -")
		rest = rest[end+2:]
		if trim {
			rest = strings.TrimLeft(rest, " \t")
		}
	}
	for {
		open := strings.Index(rest, "{{")
		if open < 0 {
			literal(rest)
			break
		}
		before := rest[:open]
		if strings.HasPrefix(rest[open:], "{{- ") {
			before = strings.TrimRight(before, " \t")
		}
		literal(before)
		end := strings.Index(rest[open+2:], "}}")
		if end < 0 {
			literal("") // an action that goes on to the next line
			break
		}
		action := rest[open+2 : open+2+end]
		rest = rest[open+2+end+2:]
		if strings.HasSuffix(action, " -") {
			rest = strings.TrimLeft(rest, " \t")
		}
	}
	if !text {
		return nil
	}
	return parts
}

// matches reports whether the template line can have written s.
func (g lineGlob) matches(s string) bool {
	switch len(g) {
	case 0:
		return false
	case 1:
		return s == g[0]
	}
	first, last := g[0], g[len(g)-1]
	if len(s) < len(first)+len(last) || !strings.HasPrefix(s, first) || !strings.HasSuffix(s, last) {
		return false
	}
	mid := s[len(first) : len(s)-len(last)]
	for _, p := range g[1 : len(g)-1] {
		i := strings.Index(mid, p)
		if i < 0 {
			return false
		}
		mid = mid[i+len(p):]
	}
	return true
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
