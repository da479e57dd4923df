package helm

import (
	"strings"
	"unsafe"
)

// The trace of a render: for every output buffer (a template file's, or an
// include's) the nodes that started writing at each offset, with what
// they read; and for every include the caller used, the included text and
// its own trace, spliced into the caller's output where that text went.

// event is one instrumented node starting to write.
type event struct {
	off  int
	id   int
	dot  any
	root any
	vars []any
}

// frame is one output buffer and its events.
type frame struct {
	buf    strings.Builder
	events []event
	// splices are the includes called while the event before them ran.
	splices []splice
	// muted frames (tpl's) record nothing anyone reads.
	muted bool
}

// splice is an include's result: the text it returned and its trace.
type splice struct {
	event int // index of the caller's event that called the include
	text  string
	child *frame
}

// tracer records the frames of one render. Templates execute on one
// goroutine, so the stack needs no lock.
type tracer struct {
	stack []*frame
	nodes map[int]*parsedFile
	// budget bounds the render (budget.go); done is what the templates
	// rendered so far wrote.
	budget *budget
	done   int64
	// recorded counts the events recorded: the trace costs memory too,
	// also where a loop writes nothing.
	recorded int64
	// below is what the frames under the top one hold: only the top one is
	// written, so the sum is kept as frames are pushed and popped, not
	// summed at every check (a deep include chain would make that
	// quadratic).
	below int64

	// nest are the templates running, outermost first; calls counts the
	// include and tpl calls running, tpls the tpl calls and tplCopies the
	// templates they copied (nesting.go).
	nest                   []string
	calls, tpls, tplCopies int
	// last is the last instrumented node reached (hasLast: any was), the
	// position of a stop.
	last    int
	hasLast bool
	// stopped is why the render was stopped, nil if it was not.
	stopped *stopError
}

// eventBytes is what one recorded event costs (an event and its share of
// the slice's growth), counted in the size budget.
const eventBytes = int64(unsafe.Sizeof(event{})) * 2

func newTracer() *tracer { return &tracer{} }

func (t *tracer) push() *frame {
	f := &frame{}
	if top := t.top(); top != nil {
		f.muted = top.muted
		t.below += int64(top.buf.Len())
	}
	t.stack = append(t.stack, f)
	return f
}

func (t *tracer) pop() {
	t.stack = t.stack[:len(t.stack)-1]
	if top := t.top(); top != nil {
		t.below -= int64(top.buf.Len())
	}
}

func (t *tracer) top() *frame {
	if len(t.stack) == 0 {
		return nil
	}
	return t.stack[len(t.stack)-1]
}

// checkBudget stops the render once it is over its budget: what the
// frames being written and the finished templates hold, and the time.
func (t *tracer) checkBudget() {
	if t.budget == nil {
		return
	}
	written := t.done + t.recorded*eventBytes + t.below
	if f := t.top(); f != nil {
		written += int64(f.buf.Len())
	}
	if msg := t.budget.check(written); msg != "" {
		t.stop(msg)
	}
}

// at records that node id starts writing; it prints nothing.
func (t *tracer) at(id int, dot any, args ...any) string {
	t.last, t.hasLast = id, true
	t.checkBudget()
	f := t.top()
	if f == nil || f.muted {
		return ""
	}
	e := event{off: f.buf.Len(), id: int(id), dot: dot}
	if len(args) > 0 {
		e.root = args[0]
		if len(args) > 1 {
			e.vars = args[1:]
		}
	}
	f.events = append(f.events, e)
	t.recorded++
	return ""
}

// iter records the start of a range iteration.
func (t *tracer) iter(id int) string {
	t.last, t.hasLast = id, true
	t.checkBudget()
	f := t.top()
	if f == nil || f.muted {
		return ""
	}
	f.events = append(f.events, event{off: f.buf.Len(), id: int(id)})
	t.recorded++
	return ""
}

// spliced records an include's result in the caller's frame.
func (t *tracer) spliced(text string, child *frame) {
	f := t.top()
	if f == nil || f.muted || len(f.events) == 0 || text == "" {
		return
	}
	f.splices = append(f.splices, splice{event: len(f.events) - 1, text: text, child: child})
}

// node returns the static information of a node id.
func (t *tracer) node(id int) *nodeInfo {
	base := id - id%maxNodesPerFile
	p := t.nodes[base]
	if p == nil || int(id-base) >= len(p.nodes) {
		return nil
	}
	return &p.nodes[id-base]
}
