package pipeline

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// The garbage collector's settings for a run. Rendering (krusty above
// all) allocates heavily and briefly, so with the default GOGC=100 garbage
// collection, not parsing, dominates its CPU time (DESIGN.md, performance
// notes). plumb raises the target to GOGC=400 and bounds the heap with a
// soft memory limit instead: on the 10,000-object benchmark corpus that is
// 12 CPU seconds instead of 14–16 and a peak of about 520 MB instead of
// 650–800 MB (the peak comes from the analyzers, after rendering).
//
// A fixed limit would make the collector run back to back on a repository
// whose live data outgrows it, so the limit follows the live heap: it is
// never below twice what the last collection kept. Pull-request mode holds
// two revisions at once and gets twice the base limit. An explicit GOGC or
// GOMEMLIMIT in the environment wins over all of this.
const (
	runGCPercent = 400
	// baseMemoryLimit keeps the process under 600 MB (heap plus the
	// runtime's own memory) while the live heap stays under half of it.
	baseMemoryLimit = 448 << 20
	// limitHeadroom is the limit's multiple of the live heap.
	limitHeadroom = 2
	// gcPollInterval is how often the live heap is read to move the limit.
	gcPollInterval = 50 * time.Millisecond
)

// runGC applies the collector settings for a run over this many
// revisions (2 in pull-request mode) and returns the function that
// restores the previous ones. Runs may nest or overlap (plumb check loads
// inside its run; tests run several at once): the first to start applies
// the settings and the last to finish restores them, since they are
// process-wide.
func runGC(revisions int) func() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	gcState.mu.Lock()
	if gcState.runs == 0 {
		gcState.oldPercent = debug.SetGCPercent(runGCPercent)
		gcState.oldLimit = debug.SetMemoryLimit(baseMemoryLimit)
		gcState.floor.Store(baseMemoryLimit)
		gcState.stop = make(chan struct{})
		gcState.done = make(chan struct{})
		go followLiveHeap(gcState.stop, gcState.done)
	}
	if floor := int64(max(revisions, 1)) * baseMemoryLimit; floor > gcState.floor.Load() {
		gcState.floor.Store(floor)
		debug.SetMemoryLimit(floor)
	}
	gcState.runs++
	gcState.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			gcState.mu.Lock()
			defer gcState.mu.Unlock()
			if gcState.runs--; gcState.runs == 0 {
				close(gcState.stop)
				<-gcState.done
				debug.SetGCPercent(gcState.oldPercent)
				debug.SetMemoryLimit(gcState.oldLimit)
			}
		})
	}
}

// gcState counts the runs under runGC's settings.
var gcState struct {
	mu         sync.Mutex
	runs       int
	oldPercent int
	oldLimit   int64
	// floor is the lowest memory limit of the runs in progress: the base
	// limit times the most revisions one of them holds.
	floor      atomic.Int64
	stop, done chan struct{}
}

// followLiveHeap keeps the memory limit at least limitHeadroom times the
// live heap until stop is closed.
func followLiveHeap(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	tick := time.NewTicker(gcPollInterval)
	defer tick.Stop()
	limit := gcState.floor.Load()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return // not measured by this runtime: keep the base limit
		}
		live := sample[0].Value.Uint64()
		if want := memoryLimitFor(live, gcState.floor.Load()); want != limit {
			limit = want
			debug.SetMemoryLimit(limit)
		}
	}
}

// memoryLimitFor is the limit for a live heap: floor, or more when the
// live heap needs it.
func memoryLimitFor(live uint64, floor int64) int64 {
	if live > math.MaxInt64/limitHeadroom {
		return math.MaxInt64
	}
	return max(floor, int64(live)*limitHeadroom)
}
