package compare

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"
	"time"
)

// maxRenderBytes bounds one template execution's output.
const maxRenderBytes = 8 << 20

// renderTimeout bounds one template execution. text/template cannot be
// interrupted and counts nothing: a loop that prints nothing ({{ range
// 10000000000 }}{{ end }}, or two nested ranges over a large list) runs for
// hours without reaching the output limit. An honest template renders in
// microseconds; one that takes this long is reported, and left to finish
// in the background while the run goes on (the process ends with the run).
var renderTimeout = 10 * time.Second

// stuckTemplates remembers the templates that ran out of time: they are not
// executed again (each correlated input would wait as long again).
var stuckTemplates sync.Map // *template.Template → error

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
func renderTemplate(t *template.Template, data map[string]any, path string) (map[string]any, string, error) {
	out, err := execute(t, data, path)
	if err != nil {
		return nil, "", err
	}
	text := strings.ReplaceAll(out, "<no value>", "")
	obj, err := parseYAMLObject(path, text)
	if err != nil {
		return nil, text, &notYAMLError{path: path, err: err, Text: text}
	}
	return obj, text, nil
}

// execute runs a template within renderTimeout.
func execute(t *template.Template, data map[string]any, path string) (string, error) {
	if err, stuck := stuckTemplates.Load(t); stuck {
		return "", err.(error)
	}
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out := cappedBuffer{limit: maxRenderBytes}
		err := t.Execute(&out, data)
		done <- result{out.String(), err}
	}()
	timer := time.NewTimer(renderTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return r.out, r.err
	case <-timer.C:
		where := t.Name()
		if loc := firstRange(t); loc != "" {
			where = loc // the line problems are reported at
		}
		err := fmt.Errorf("template: %s: execution stopped after %v: the template loops too long "+
			"(a range over a large number or list, or ranges nested over the input); bound its loops", where, renderTimeout)
		stuckTemplates.Store(t, err)
		return "", err
	}
}

// firstRange locates the template's first range action ("name:line:col"),
// or "".
func firstRange(t *template.Template) string {
	if t.Tree == nil {
		return ""
	}
	var walk func(n parse.Node) string
	walk = func(n parse.Node) string {
		switch n := n.(type) {
		case *parse.ListNode:
			if n == nil {
				return ""
			}
			for _, c := range n.Nodes {
				if loc := walk(c); loc != "" {
					return loc
				}
			}
		case *parse.RangeNode:
			loc, _ := t.ErrorContext(n)
			return loc
		case *parse.IfNode:
			return walkBranch(walk, &n.BranchNode)
		case *parse.WithNode:
			return walkBranch(walk, &n.BranchNode)
		}
		return ""
	}
	return walk(t.Tree.Root)
}

func walkBranch(walk func(parse.Node) string, b *parse.BranchNode) string {
	if loc := walk(b.List); loc != "" {
		return loc
	}
	if b.ElseList != nil {
		return walk(b.ElseList)
	}
	return ""
}
