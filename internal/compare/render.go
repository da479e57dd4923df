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
// that wrote the offending line of output (the template line with the same
// text nearest to it). 0 when neither is known: the line of the output is
// not the template's, which conditionals, ranges and comments shift.
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
	best := 0
	for i, l := range t.source {
		if strings.TrimRight(l, " \t\r") == want && (best == 0 || abs(i+1-ose.line) < abs(best-ose.line)) {
			best = i + 1
		}
	}
	return best
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
