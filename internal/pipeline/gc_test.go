package pipeline

import (
	"runtime/debug"
	"testing"
)

// Two overlapping renders (pull-request mode) restore the collector's
// settings only when the last one ends, whatever the order.
func TestRenderGCNests(t *testing.T) {
	t.Setenv("GOGC", "")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	a := renderGC()
	b := renderGC()
	a()
	if p := debug.SetGCPercent(-2); p != 400 {
		t.Errorf("after the first render ended: GOGC %d, want 400 while the other runs", p)
	}
	debug.SetGCPercent(400)
	b()
	b() // a second call is harmless
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("after both: GOGC %d, want 100", p)
	}
}
