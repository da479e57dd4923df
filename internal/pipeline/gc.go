package pipeline

import (
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plumb-ci/plumb/internal/config"
)

// The garbage collector's settings for a run. Rendering (krusty above
// all) allocates heavily and briefly, so with the default GOGC=100 garbage
// collection, not parsing, dominates its CPU time (DESIGN.md, performance
// notes). plumb raises the target to GOGC=400 and bounds the heap with a
// soft memory limit instead. The peak RSS follows the limit (a run
// allocates far more than it keeps), and each MiB the limit comes down
// costs collections, each of which marks the live heap: the base limit is
// set from the 10,000-object benchmark corpus (docs/performance.md,
// Memory). Once the rendered objects shared their equal parts, the
// inspection rules and the checks let go of what they no longer needed and
// kyaml stopped copying every document it reads, the live heap there
// peaked near 110 MB (it was 190): 208 MiB put the peak RSS at 277–280 MB
// at 5% less CPU than the 384 MiB before those changes (445 MB); 224 MiB
// 293 MB at 7% less (the collector marks 16% more at 208 MiB than at
// 224, and 30% more at 192).
//
// A fixed limit would make the collector run back to back on a repository
// whose live data outgrows it, so the limit follows the live heap: it is
// never below 7/4 of what the last collection kept (which counts what was
// allocated while it marked), up to maxHeadroom above it. The cap holds
// the peak near the live heap on the largest inputs (one file of 20,000
// objects keeps 690 MiB live: 7/4 of it put the peak RSS at 1.23 GB, the
// cap at under 1 GiB) at the cost of a collection every maxHeadroom
// allocated; below 341 MiB live, which the 10,000-object corpus stays
// under, it changes nothing. Pull-request mode holds two revisions at once
// and gets twice the base limit. An explicit GOGC or GOMEMLIMIT in the
// environment wins over all of this.
const (
	runGCPercent = 400
	// baseMemoryLimit is the heap and the runtime's own memory of a run
	// over one revision; the binary's mapped code adds about 65 MB of RSS.
	baseMemoryLimit = 208 << 20
	// The limit is at least limitHeadroomNum/limitHeadroomDen times the
	// live heap: the collector then frees at least 3/7 of the limit each
	// cycle.
	limitHeadroomNum = 7
	limitHeadroomDen = 4
	maxHeadroom      = 256 << 20
	// gcPollInterval is how often the live heap is read to move the limit.
	gcPollInterval = 50 * time.Millisecond
)

// Collector applies the collector settings of a check run with cfg until
// the returned function is called: callers hold them while they write the
// run's reports too, which allocate as much as an analyzer does (under the
// default GOGC=100 a report over 10,000 objects cost as many collections
// as the whole analysis).
func Collector(cfg *config.Config) func() {
	return runGC(revisionsOf(cfg))
}

// revisionsOf is how many revisions a run holds: two in pull-request mode.
func revisionsOf(cfg *config.Config) int {
	if cfg.BaseRef != "" {
		return 2
	}
	return 1
}

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

// followLiveHeap keeps the memory limit at least limitHeadroomNum /
// limitHeadroomDen times the live heap until stop is closed.
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
	if live > math.MaxInt64/limitHeadroomNum {
		return math.MaxInt64
	}
	headroom := min(int64(live)*(limitHeadroomNum-limitHeadroomDen)/limitHeadroomDen, maxHeadroom)
	return max(floor, int64(live)+headroom)
}
