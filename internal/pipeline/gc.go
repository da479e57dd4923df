package pipeline

import (
	"math"
	"os"
	"runtime/debug"
	"sync"
)

// renderGC raises the garbage collector's target while the render stage
// runs and returns the function that restores it. Rendering (krusty above
// all) allocates heavily and briefly: with the default GOGC=100 garbage
// collection, not parsing, dominates its CPU time (DESIGN.md, performance
// notes; measured here: about 25% less CPU with GOGC=400). A soft memory
// limit keeps the heap bounded. An explicit GOGC or GOMEMLIMIT in the
// environment wins.
//
// Pull-request mode renders two revisions at once: the first render to
// start raises the target and the last to finish restores it (the settings
// are process-wide).
func renderGC() func() {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	gcState.mu.Lock()
	if gcState.renders == 0 {
		gcState.oldPercent = debug.SetGCPercent(400)
		gcState.oldLimit = debug.SetMemoryLimit(-1)
		if gcState.oldLimit == math.MaxInt64 && os.Getenv("GOMEMLIMIT") == "" {
			debug.SetMemoryLimit(2 << 30)
		}
	}
	gcState.renders++
	gcState.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			gcState.mu.Lock()
			defer gcState.mu.Unlock()
			if gcState.renders--; gcState.renders == 0 {
				debug.SetGCPercent(gcState.oldPercent)
				debug.SetMemoryLimit(gcState.oldLimit)
			}
		})
	}
}

// gcState counts the renders running under renderGC's settings.
var gcState struct {
	mu         sync.Mutex
	renders    int
	oldPercent int
	oldLimit   int64
}
