package helm

import (
	"errors"
	"fmt"
	"time"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// A chart's templates are the pull request's code, and text/template runs
// them to the end: a range over `until 100000000`, an include that includes
// itself twice at each level, or a value printed in a loop would hold the
// run for hours or take the runner's memory. A chart render therefore has
// its render target's budget (manifest.Limits): MaxTargetTime for the
// render, and MaxTargetBytes for what the templates write. The
// instrumentation calls (instrument.go) run before every node and at every
// range iteration, so they are where the budget is checked; tpl's text,
// which is not instrumented, gets a check at each range iteration
// (tmplcheck). A list function asked for more than maxListLen elements,
// and repeat asked for more than the size budget, fail before allocating.

// fnBudget is the budget check put into tpl's trees.
const fnBudget = "__plumb_budget"

// maxListLen bounds the lists until, untilStep and seq build: real charts
// count replicas or ports; 100,000,000 elements are 800 MB before the
// first iteration.
const maxListLen = 1_000_000

// budget is one render's bound in time and output.
type budget struct {
	deadline time.Time
	maxTime  time.Duration
	maxBytes int64
	calls    uint32
}

func newBudget(limits manifest.Limits) *budget {
	limits = limits.OrDefault()
	return &budget{deadline: time.Now().Add(limits.MaxTargetTime), maxTime: limits.MaxTargetTime, maxBytes: limits.MaxTargetBytes}
}

// errBudget marks a render stopped by its budget.
var errBudget = errors.New("over the render target's budget")

// budgetError says which bound stopped the render.
type budgetError struct{ msg string }

func (e *budgetError) Error() string { return e.msg }
func (e *budgetError) Unwrap() error { return errBudget }

// at places a render stopped by the budget at the innermost position of a
// chart template in err's chain of template errors (the loop or the node
// that was running), in Helm's "execution error at (POS): MESSAGE" form,
// without the chain of calls that led there; name is the template being
// rendered, the place when no position is known.
func (e *budgetError) at(err error, name string, tpls map[string]renderable) error {
	where := name
	for _, m := range templatePosRE.FindAllStringSubmatch(err.Error(), -1) {
		if _, ok := tpls[m[1]]; ok {
			where = m[0]
		}
	}
	return fmt.Errorf("execution error at (%s): %s", where, e.msg)
}

// check fails once the render has written more than the size budget or,
// looked at every 64 calls, run past its time.
func (b *budget) check(written int64) error {
	if b == nil {
		return nil
	}
	if written > b.maxBytes {
		return &budgetError{fmt.Sprintf("the templates wrote (or plumb's trace of them took) more than %d bytes, the size budget of a render target: "+
			"raise it with --max-target-size or limits.max_target_size in .plumb.yaml, or write less", b.maxBytes)}
	}
	b.calls++
	if b.calls%64 == 0 && time.Now().After(b.deadline) {
		return &budgetError{fmt.Sprintf("the chart did not render within %v, the time budget of a render target: "+
			"raise it with --max-target-time or limits.max_target_time in .plumb.yaml, or bound the loop", b.maxTime)}
	}
	return nil
}

// boundedLists are until, untilStep, seq and repeat, failing before they
// allocate more than the budget allows.
func (b *budget) boundedLists(fm map[string]any) {
	until := fm["until"].(func(int) []int)
	untilStep := fm["untilStep"].(func(int, int, int) []int)
	seq := fm["seq"].(func(...int) string)
	repeat := fm["repeat"].(func(int, string) string)
	tooLong := func(name string, n int) error {
		return fmt.Errorf("%s: a list of %d elements is over plumb's bound of %d", name, n, maxListLen)
	}
	fm["until"] = func(n int) ([]int, error) {
		if n > maxListLen || -n > maxListLen {
			return nil, tooLong("until", n)
		}
		return until(n), nil
	}
	fm["untilStep"] = func(start, stop, step int) ([]int, error) {
		if step != 0 && ((stop-start)/step > maxListLen || (start-stop)/step > maxListLen) {
			return nil, tooLong("untilStep", (stop-start)/step)
		}
		return untilStep(start, stop, step), nil
	}
	fm["seq"] = func(params ...int) (string, error) {
		if len(params) > 0 {
			lo, hi := 1, params[len(params)-1]
			if len(params) > 1 {
				lo = params[0]
			}
			if hi-lo > maxListLen || lo-hi > maxListLen {
				return "", tooLong("seq", hi-lo)
			}
		}
		return seq(params...), nil
	}
	fm["repeat"] = func(count int, s string) (string, error) {
		if count > 0 && int64(len(s))*int64(count) > b.maxBytes {
			return "", fmt.Errorf("repeat: the result would be over %d bytes, the size budget of a render target", b.maxBytes)
		}
		return repeat(count, s), nil
	}
}
