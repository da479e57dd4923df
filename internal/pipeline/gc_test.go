package pipeline

import (
	"math"
	"runtime/debug"
	"testing"
)

// Overlapping runs (pull-request mode, a load inside a check) restore the
// collector's settings only when the last one ends, whatever the order.
func TestRunGCNests(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	beforeLimit := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(beforeLimit)
	a := runGC()
	b := runGC()
	a()
	if p := debug.SetGCPercent(-2); p != runGCPercent {
		t.Errorf("after the first run ended: GOGC %d, want %d while the other runs", p, runGCPercent)
	}
	debug.SetGCPercent(runGCPercent)
	if l := debug.SetMemoryLimit(-1); l < baseMemoryLimit || l == math.MaxInt64 {
		t.Errorf("memory limit %d during a run, want at least %d", l, baseMemoryLimit)
	}
	b()
	b() // a second call is harmless
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("after both: GOGC %d, want 100", p)
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Errorf("after both: memory limit %d, want none", l)
	}
}

// An explicit GOGC or GOMEMLIMIT leaves the collector alone.
func TestRunGCLeavesExplicitSettings(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "1GiB")
	before := debug.SetGCPercent(123)
	defer debug.SetGCPercent(before)
	runGC()()
	if p := debug.SetGCPercent(-2); p != 123 {
		t.Errorf("GOGC %d, want the 123 set before", p)
	}
}

// The limit follows the live heap so that a repository whose live data
// outgrows the base limit does not make the collector run back to back.
func TestMemoryLimitFollowsTheLiveHeap(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{0, baseMemoryLimit},
		{100 << 20, baseMemoryLimit},
		{baseMemoryLimit / 2, baseMemoryLimit},
		{1 << 30, 2 << 30},
		{math.MaxUint64, math.MaxInt64},
	} {
		if got := memoryLimitFor(c.live); got != c.want {
			t.Errorf("live %d: limit %d, want %d", c.live, got, c.want)
		}
	}
}
