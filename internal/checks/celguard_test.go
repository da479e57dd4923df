package checks

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// evalBounded evaluates src over facts with cost tracking and the
// deadline, and returns the error and what the evaluation allocated.
func evalBounded(t *testing.T, src string, facts map[string]any, alsoFast bool) (*EvalError, uint64, time.Duration) {
	t.Helper()
	c := compile(scopeExpect, src)
	if len(c.errs) > 0 {
		t.Fatalf("%s: %s", src, c.errString())
	}
	act := &activation{facts: celMap(facts)}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, err := run(c.prog, act, true)
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	// The untracked program (a run's fast path) is guarded the same way.
	if alsoFast {
		if _, ferr := run(c.fast, act, false); (ferr == nil) != (err == nil) {
			t.Errorf("%s: the fast program gives %v, the tracked one %v", src, ferr, err)
		}
	}
	return err, after.TotalAlloc - before.TotalAlloc, elapsed
}

// A call that would build a value far larger than its inputs is refused
// from its arguments, before anything is allocated; so is a result over
// the value limit, which a message or a report would otherwise print.
// Each of these built gigabytes (issue 18, item 5).
func TestBuiltValuesAreBoundedBeforeTheyAreBuilt(t *testing.T) {
	facts := map[string]any{"k": strings.Repeat("x", 100_000), "small": "abc"}
	for _, c := range []struct {
		src string
		// guarded: refused from its arguments, so also by the program
		// without the meter (the fast path of expressions proven cheap).
		guarded bool
	}{
		{`facts.k.split("").map(x, facts.k).join("") != ""`, true},
		{`facts.k.replace("", facts.k) != ""`, true},
		{`facts.k.split("").map(x, facts.k).join(",").size() > 0`, true},
		{`"%s".format([facts.k.split("").map(x, facts.k)]) != ""`, true},
		{`facts.k.split("").map(x, facts.k)`, true},
		{`lists.range(100000000).size() > 0`, true},
		{`facts.k.split("").map(x, facts.k.split("")).flatten().size() > 0`, false},
	} {
		err, alloc, elapsed := evalBounded(t, c.src, facts, c.guarded)
		if err == nil || err.Type != "too_many_operations" || !strings.Contains(err.Message, "limit exceeded") {
			t.Errorf("%s: error %v, want a limit", c.src, err)
		}
		if alloc > 256<<20 {
			t.Errorf("%s: allocated %d MiB before it was stopped", c.src, alloc>>20)
		}
		t.Logf("%s: %v, %.1f MiB, %v", c.src, err, float64(alloc)/(1<<20), elapsed.Round(time.Millisecond))
	}
	// What is within the limits still evaluates.
	for _, src := range []string{
		`facts.small.split("").join("-") == "a-b-c"`,
		`facts.small.replace("b", "bb") == "abbc"`,
		`facts.k.split("").size() == 100000`,
	} {
		if err, _, _ := evalBounded(t, src, facts, true); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
}

// An evaluation that runs past the deadline is interrupted in its
// comprehension, and reported in the cost limit's words (which of the two
// comes first depends on the machine's load). The expression here is well
// under the cost limit; the deadline is made to pass at once.
func TestDeadlineStopsAnEvaluation(t *testing.T) {
	facts := map[string]any{"k": strings.Repeat("x", 100_000)}
	src := `facts.k.split("").all(x, x == "x")`
	if err, _, _ := evalBounded(t, src, facts, false); err != nil {
		t.Fatalf("within the limits: %v", err)
	}
	withEvalTimeLimit(t, time.Nanosecond)
	err, _, elapsed := evalBounded(t, src, facts, false)
	if err == nil || err.Message != costStop().Message {
		t.Errorf("error %v, want %q", err, costStop().Message)
	}
	t.Logf("stopped after %v", elapsed)
}
