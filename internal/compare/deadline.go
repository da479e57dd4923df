package compare

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"text/template"
	"time"

	"github.com/plumb-ci/plumb/internal/tmplcheck"
)

// maxTemplateTime bounds one execution of a reference template or of an
// override's go-template. Real templates render in microseconds; a hostile
// one ({{range 1000000000}}{{end}}, nested until loops, a {{template}}
// recursion that branches) would otherwise spin for hours, and the size
// caps on output and lists do not stop a loop that prints nothing. A
// variable so that tests can shorten it.
var maxTemplateTime = 2 * time.Second

// deadlineFunc is the function the instrumented trees call to check the
// clock. text/template cannot be interrupted from outside, so the check
// runs inside the execution: at the start of every template (each
// {{template}} call) and of every range iteration, which is where any
// unbounded work has to pass.
const deadlineFunc = "plumbCheckDeadline"

// errOverTime is what the deadline check returns once the time is up.
var errOverTime = errors.New("template execution ran over its time limit")

// overTimeError is a template execution stopped by the deadline, at the
// loop (or template) it was in.
type overTimeError struct {
	name string // the template (file) name
	line int    // the line of the range or template running, 0 if unknown
}

func (e *overTimeError) Error() string {
	where := e.name
	if e.line > 0 {
		where += ":" + strconv.Itoa(e.line)
	}
	return fmt.Sprintf("template: %s: execution stopped after %v: the range loop or {{template}} recursion there does not end in time (a reference template must render in well under a second)",
		where, maxTemplateTime)
}

func (e *overTimeError) Unwrap() error { return errOverTime }

// instrument adds the deadline check to every template of set: at the
// start of each template body and of each range body. Trees shared with
// another set (function files cloned into every template's set) are
// instrumented once.
func instrument(set *template.Template) {
	set.Funcs(template.FuncMap{deadlineFunc: func() string { return "" }})
	for _, t := range set.Templates() {
		tmplcheck.Instrument(t.Tree, deadlineFunc)
	}
}

// boundedTemplate executes an instrumented template under the deadline.
// Each execution needs its own clock, and a clock is bound into a
// template's functions, so concurrent executions run on separate copies:
// the template itself, and clones made only when it is busy. Cloning costs
// about 100µs (the function maps are copied), so the copies are kept for
// the life of the template rather than in a sync.Pool, which would drop
// them at every garbage collection.
type boundedTemplate struct {
	base *template.Template // what clones are made from
	mu   sync.Mutex
	free []*clockedTemplate
	// over is the error of the first execution that ran over the limit
	// (for the life of the loaded reference or overrides): later
	// executions fail at once with it rather than spin again (a hostile
	// template would otherwise cost the limit once per input).
	over atomic.Pointer[overTimeError]
}

// clockedTemplate is one copy of a template with its own deadline.
type clockedTemplate struct {
	t        *template.Template
	deadline time.Time
}

func (c *clockedTemplate) check() (string, error) {
	if time.Now().After(c.deadline) {
		return "", errOverTime
	}
	return "", nil
}

// clocked binds a new clock into t's functions.
func clocked(t *template.Template) *clockedTemplate {
	c := &clockedTemplate{}
	c.t = t.Funcs(template.FuncMap{deadlineFunc: c.check})
	return c
}

// bounded wraps an instrumented template (nil for nil). The template
// itself becomes the first copy: it must not be executed otherwise.
func bounded(t *template.Template) *boundedTemplate {
	if t == nil {
		return nil
	}
	return &boundedTemplate{base: t, free: []*clockedTemplate{clocked(t)}}
}

// get takes a free copy, or clones one when all are busy.
func (b *boundedTemplate) get() (*clockedTemplate, error) {
	b.mu.Lock()
	if n := len(b.free); n > 0 {
		c := b.free[n-1]
		b.free = b.free[:n-1]
		b.mu.Unlock()
		return c, nil
	}
	b.mu.Unlock()
	clone, err := b.base.Clone()
	if err != nil {
		return nil, err
	}
	return clocked(clone), nil
}

func (b *boundedTemplate) put(c *clockedTemplate) {
	b.mu.Lock()
	b.free = append(b.free, c)
	b.mu.Unlock()
}

// execute runs the template on data into w, stopping it at the deadline.
func (b *boundedTemplate) execute(w io.Writer, data any) error {
	if e := b.over.Load(); e != nil {
		return e
	}
	c, err := b.get()
	if err != nil {
		return err
	}
	c.deadline = time.Now().Add(maxTemplateTime)
	err = c.t.Execute(w, data)
	b.put(c)
	if err == nil || !errors.Is(err, errOverTime) {
		return err
	}
	over := &overTimeError{name: b.base.Name()}
	if m := templateLineRE.FindStringSubmatch(err.Error()); m != nil {
		over.name = m[1]
		over.line, _ = strconv.Atoi(m[2])
	}
	b.over.CompareAndSwap(nil, over)
	return b.over.Load()
}
