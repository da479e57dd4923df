package pipeline

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/plumb-ci/plumb/internal/config"
)

// defaultCollector starts a test from Go's default collector settings
// (no GOGC or GOMEMLIMIT in the environment) and restores the previous ones
// after it.
func defaultCollector(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })
	beforeLimit := debug.SetMemoryLimit(math.MaxInt64)
	t.Cleanup(func() { debug.SetMemoryLimit(beforeLimit) })
}

// Overlapping runs (pull-request mode, a load inside a check) restore the
// collector's settings only when the last one ends, whatever the order.
func TestRunGCNests(t *testing.T) {
	defaultCollector(t)
	a := runGC(1)
	b := runGC(2)
	a()
	if p := debug.SetGCPercent(-2); p != runGCPercent {
		t.Errorf("after the first run ended: GOGC %d, want %d while the other runs", p, runGCPercent)
	}
	debug.SetGCPercent(runGCPercent)
	if l := debug.SetMemoryLimit(-1); l < 2*baseMemoryLimit || l == math.MaxInt64 {
		t.Errorf("memory limit %d while a pull-request run holds two revisions, want at least %d", l, 2*baseMemoryLimit)
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
	runGC(1)()
	if p := debug.SetGCPercent(-2); p != 123 {
		t.Errorf("GOGC %d, want the 123 set before", p)
	}
}

// The limit follows the live heap so that a repository whose live data
// outgrows the base limit does not make the collector run back to back.
func TestMemoryLimitFollowsTheLiveHeap(t *testing.T) {
	for _, c := range []struct {
		live  uint64
		floor int64
		want  int64
	}{
		{0, baseMemoryLimit, baseMemoryLimit},
		{100 << 20, baseMemoryLimit, baseMemoryLimit},
		{baseMemoryLimit / 2, baseMemoryLimit, baseMemoryLimit},
		{baseMemoryLimit * 4 / 7, baseMemoryLimit, baseMemoryLimit},
		{300 << 20, baseMemoryLimit, 525 << 20},
		{1 << 30, baseMemoryLimit, 1<<30 + maxHeadroom},
		{baseMemoryLimit, 2 * baseMemoryLimit, 2 * baseMemoryLimit},
		{math.MaxUint64, baseMemoryLimit, math.MaxInt64},
	} {
		if got := memoryLimitFor(c.live, c.floor); got != c.want {
			t.Errorf("live %d, floor %d: limit %d, want %d", c.live, c.floor, got, c.want)
		}
	}
}

// Collector holds a run's settings for its caller (who writes the reports
// under them), for as many revisions as the configuration compares.
func TestCollectorHoldsTheRunsSettings(t *testing.T) {
	defaultCollector(t)
	release := Collector(&config.Config{BaseRef: "origin/main"})
	if p := debug.SetGCPercent(runGCPercent); p != runGCPercent {
		t.Errorf("GOGC %d while held, want %d", p, runGCPercent)
	}
	if l := debug.SetMemoryLimit(-1); l < 2*baseMemoryLimit || l == math.MaxInt64 {
		t.Errorf("memory limit %d for two revisions, want at least %d", l, 2*baseMemoryLimit)
	}
	release()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("GOGC %d after release, want 100", p)
	}
}
