package bench_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"testing"
	"time"

	"github.com/plumb-ci/plumb/internal/pipeline"
	"github.com/plumb-ci/plumb/internal/report"
)

// BenchmarkCheckPeakHeap is `plumb check` (no cache) writing the text,
// JSON and SARIF reports, with the largest live heap seen (peak-live-MB):
// the heap the collector found reachable at the end of a cycle, read every
// few milliseconds; and the heap the finished run holds while the reports
// are written (report-live-MB). The live heap is only measured at the end of a cycle, so
// run it with a low GOGC (which also keeps the pipeline's own collector
// settings out of the way) for a fine reading:
//
//	GOGC=25 go test -run '^$' -bench CheckPeakHeap -benchtime 1x ./internal/bench
//
// With PLUMB_PEAK_HEAP_PROFILE=FILE it writes the heap profile taken when
// the peak was seen (up to two cycles old, as heap profiles are) for
// `go tool pprof -sample_index=inuse_space`.
func BenchmarkCheckPeakHeap(b *testing.B) {
	for _, size := range sizes {
		b.Run(size.name, func(b *testing.B) {
			c := corpus(b, size.spec)
			cfg := checkConfig(b, c)
			var peak, kept uint64
			for b.Loop() {
				w := startHeapWatch(os.Getenv("PLUMB_PEAK_HEAP_PROFILE"))
				res, err := pipeline.Check(context.Background(), cfg)
				if err != nil {
					b.Fatal(err)
				}
				kept = max(kept, liveAfterGC())
				for _, s := range []report.Sink{report.Text{}, report.JSON{}, report.SARIF{}} {
					if err := s.Write(io.Discard, res.Report); err != nil {
						b.Fatal(err)
					}
				}
				peak = max(peak, w.stop(b))
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-live-MB")
			b.ReportMetric(float64(kept)/(1<<20), "report-live-MB")
		})
	}
}

// liveAfterGC is the heap still reachable after a full collection: what
// the finished run (its report) holds while the reports are written.
func liveAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// heapWatch follows the live heap until stopped.
type heapWatch struct {
	profile string
	done    chan struct{}
	wg      sync.WaitGroup
	peak    uint64
	best    []byte
}

func startHeapWatch(profile string) *heapWatch {
	w := &heapWatch{profile: profile, done: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > w.peak {
				w.peak = v
				if w.profile != "" {
					var buf bytes.Buffer
					if pprof.Lookup("heap").WriteTo(&buf, 0) == nil {
						w.best = buf.Bytes()
					}
				}
			}
		}
	}()
	return w
}

// stop ends the watch, writes the profile when one was asked for, and
// returns the peak.
func (w *heapWatch) stop(b testing.TB) uint64 {
	close(w.done)
	w.wg.Wait()
	if w.profile != "" && w.best != nil {
		if err := os.WriteFile(w.profile, w.best, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return w.peak
}
