package helm

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"text/template/parse"
)

// Templates that call each other without end: `include` keeps Helm's own
// limit (a template included in itself more than recursionMaxNums times
// fails), and plumb bounds what Helm leaves to the goroutine's stack, whose
// 1 GB limit is a fatal crash, and to memory: the templates running at
// once — by {{template}}, include or tpl — count against text/template's
// own limit for {{template}} (which restarts from zero at each include),
// the include and tpl calls running against a lower one (each holds
// about 4 KB of stack), and the tpl calls against a lower one still (each
// copies the chart's template set and function table, about 50 KB and
// more with many templates). Each template's body is bracketed by an
// enter and a leave call (nestCalls) that keep the stack of the templates
// running, from which the message names the cycle.
//
// A render stopped by a bound (these, or the budget) ends at once, with
// runtime.Goexit on the render's own goroutine: an error returned instead
// would come back up through every nested include, and text/template
// wraps it at each one with the call's position (counting the lines of
// the template text up to it) — a message that grows with the depth,
// quadratic work, and gigabytes for a cycle of ten templates.

const (
	// maxNesting bounds the templates running at once: text/template's
	// limit for {{template}} nesting (maxExecDepth).
	maxNesting = 100_000
	// maxCalls bounds the include and tpl calls running at once: cycles
	// of up to 19 templates stop at Helm's own limit first; real charts
	// nest a few dozen deep.
	maxCalls = 20_000
	// maxTplNesting bounds the tpl calls running at once, and
	// maxTplCopies the templates they copied.
	maxTplNesting = 100
	maxTplCopies  = 1_000_000
)

// maxCycleNames bounds the names a message lists.
const maxCycleNames = 10

const (
	fnEnter = "__plumb_enter" // first in a template's body: (name)
	fnLeave = "__plumb_leave" // last in a template's body
)

// nestCalls brackets a template's body with the enter and leave calls,
// unless it has them (a tree shared by template sets is done once).
func nestCalls(tree *parse.Tree, name string) {
	root := tree.Root
	if root == nil || isNestCall(root) {
		return
	}
	pos := root.Position()
	name = strings.ReplaceAll(name, `"`, "")
	enter := action(pos, []parse.Node{identifier(fnEnter, pos),
		&parse.StringNode{NodeType: parse.NodeString, Pos: pos, Quoted: fmt.Sprintf("%q", name), Text: name}})
	leave := action(pos, []parse.Node{identifier(fnLeave, pos)})
	root.Nodes = append(append([]parse.Node{enter}, root.Nodes...), leave)
}

func isNestCall(l *parse.ListNode) bool {
	if len(l.Nodes) == 0 {
		return false
	}
	a, ok := l.Nodes[0].(*parse.ActionNode)
	if !ok || len(a.Pipe.Cmds) != 1 || len(a.Pipe.Cmds[0].Args) == 0 {
		return false
	}
	id, ok := a.Pipe.Cmds[0].Args[0].(*parse.IdentifierNode)
	return ok && id.Ident == fnEnter
}

// stopError is a render stopped by a bound, at the template position
// where it happened.
type stopError struct {
	msg   string
	where string // "NAME:LINE:COL" as text/template writes it; "" unknown
}

func (e *stopError) Error() string { return e.msg }

// placed is the error in Helm's "execution error at (POS): MESSAGE" form;
// name is the template being rendered, the place when no position is known.
func (e *stopError) placed(name string) error {
	where := e.where
	if where == "" {
		where = name
	}
	return fmt.Errorf("execution error at (%s): %s", where, e.msg)
}

// stop ends the render: it records why and where, and ends the render's
// goroutine (render waits for it).
func (t *tracer) stop(msg string) {
	t.stopped = &stopError{msg: msg, where: t.position()}
	runtime.Goexit()
}

// position is the last instrumented node reached, as text/template names a
// position ("NAME:LINE:COL", the column counted in bytes from 0).
func (t *tracer) position() string {
	if !t.hasLast {
		return ""
	}
	n := t.node(t.last)
	if n == nil {
		return ""
	}
	line, _ := n.file.position(n.pos)
	return fmt.Sprintf("%s:%d:%d", n.file.name, line, n.pos-n.file.lines[line-1])
}

// enter records that template name starts; over maxNesting it stops the
// render.
func (t *tracer) enter(name string) string {
	if len(t.nest) >= maxNesting {
		t.stop(fmt.Sprintf("template %q is nested %d templates deep, the limit (text/template's for {{template}}, counted across include and tpl): %s",
			name, len(t.nest), t.cycle(name)))
	}
	t.nest = append(t.nest, name)
	return ""
}

func (t *tracer) leave() string {
	t.nest = t.nest[:len(t.nest)-1]
	return ""
}

// include records that an include of name starts, and stops the render
// where Helm would fail it (count is how many includes of name are running)
// or over maxCalls.
func (t *tracer) include(name string, count int) {
	if count > recursionMaxNums {
		t.stop(fmt.Sprintf("include %q is nested in itself more than %d times, Helm's limit: %s",
			name, recursionMaxNums, t.cycle(name)))
	}
	if t.calls >= maxCalls {
		t.stop(fmt.Sprintf("include %q: %d include and tpl calls are running at once, plumb's limit: %s",
			name, t.calls, t.cycle(name)))
	}
	t.calls++
}

// tpl records that a tpl call starts, which copied the chart's templates
// (copies of them), and stops the render over the tpl limits.
func (t *tracer) tpl(copies int) {
	switch {
	case t.calls >= maxCalls:
		t.stop(fmt.Sprintf("tpl: %d include and tpl calls are running at once, plumb's limit: %s", t.calls, t.cycle("tpl")))
	case t.tpls >= maxTplNesting:
		t.stop(fmt.Sprintf("tpl is called inside %d tpl calls, plumb's limit (each copies the chart's templates): %s", t.tpls, t.cycle("tpl")))
	case t.tplCopies+copies > maxTplCopies:
		t.stop(fmt.Sprintf("tpl: the %d tpl calls running would hold %d copies of the chart's templates, over plumb's limit of %d: %s",
			t.tpls+1, t.tplCopies+copies, maxTplCopies, t.cycle("tpl")))
	}
	t.calls++
	t.tpls++
	t.tplCopies += copies
}

// endCall records that an include (copies 0) or a tpl call ended.
func (t *tracer) endCall(copies int) {
	t.calls--
	if copies > 0 {
		t.tpls--
		t.tplCopies -= copies
	}
}

// cycle describes the templates running from the last time name started
// to the call of name again, or, when name is not running, the chain of
// templates that leads to it.
func (t *tracer) cycle(name string) string {
	last := -1
	for i := len(t.nest) - 1; i >= 0; i-- {
		if t.nest[i] == name {
			last = i
			break
		}
	}
	if last < 0 {
		return "the chain " + chain(append(slices.Clip(t.nest), name)) + " goes too deep; make it shorter"
	}
	names := append(slices.Clone(t.nest[last:]), name)
	if len(names) == 2 {
		return fmt.Sprintf("the template calls itself without end (%s); make the recursion stop", chain(names))
	}
	return fmt.Sprintf("the templates call each other in a cycle without end (%s); make the recursion stop", chain(names))
}

// chain is "a -> b -> c", at most maxCycleNames names.
func chain(names []string) string {
	if len(names) > maxCycleNames {
		head, tail := names[:maxCycleNames/2], names[len(names)-maxCycleNames/2:]
		return strings.Join(head, " -> ") + fmt.Sprintf(" -> … %d more … -> ", len(names)-len(head)-len(tail)) + strings.Join(tail, " -> ")
	}
	return strings.Join(names, " -> ")
}
