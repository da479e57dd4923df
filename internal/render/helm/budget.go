package helm

import (
	"fmt"
	"maps"
	"math"
	"sync"
	"text/template"
	"time"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/tmplcheck"
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
// (tmplcheck), in every template its text defines. A render over its
// budget is stopped where it is (tracer.stop). Values the template
// functions build are bounded too (guardedFuncs).

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

// check says why the render must stop ("" if it need not): it has
// written more than the size budget or, looked at every 64 calls, run past
// its time.
func (b *budget) check(written int64) string {
	if written > b.maxBytes {
		return fmt.Sprintf("the templates wrote (or plumb's trace of them took) more than %d bytes, the size budget of a render target: "+
			"raise it with --max-target-size or limits.max_target_size in .plumb.yaml, or write less", b.maxBytes)
	}
	b.calls++
	if b.calls%64 == 0 && time.Now().After(b.deadline) {
		return fmt.Sprintf("the chart did not render within %v, the time budget of a render target: "+
			"raise it with --max-target-time or limits.max_target_time in .plumb.yaml, or bound the loop", b.maxTime)
	}
	return ""
}

// guardedFuncs is Helm's function map with the template guards
// (tmplcheck): text/template's string builtins as functions, set and merge
// refusing to make a map contain itself, the functions that allocate what
// an argument asks for bounded before they allocate, and every result over
// the size budget refused, so that a value doubled in a variable (which
// writes nothing) cannot take the runner's memory. Built once per size
// budget: wrapping costs a reflect.MakeFunc per function.
func guardedFuncs(maxBytes int64) template.FuncMap {
	if m, ok := guardedCache.Load(maxBytes); ok {
		return m.(template.FuncMap)
	}
	m := funcMap()
	maps.Copy(m, tmplcheck.BuiltinOverrides)
	maps.Copy(m, tmplcheck.AcyclicMutators(m))
	tmplcheck.BoundSizes(m, maxListLen, clampInt(maxBytes))
	tmplcheck.CapFuncs(m, clampInt(maxBytes))
	guardedCache.Store(maxBytes, m)
	return m
}

var guardedCache sync.Map // int64 → template.FuncMap

// clampInt is n as an int, at most math.MaxInt32 (a size budget over 2
// GiB bounds nothing a template can build anyway).
func clampInt(n int64) int { return int(min(n, math.MaxInt32)) }
