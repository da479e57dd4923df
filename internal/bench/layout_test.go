package bench_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/plumb-ci/plumb/internal/bench"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/pipeline"
	"github.com/plumb-ci/plumb/internal/report"
)

// plainCorpus writes a plain-manifest corpus in a temporary directory.
func plainCorpus(tb testing.TB, s bench.PlainSpec) *bench.PlainCorpus {
	tb.Helper()
	c, err := bench.GeneratePlain(tb.TempDir(), s)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// checkPlain is `plumb check` (no cache, default checks) on a plain
// corpus, with the text report written; it returns the number of
// findings and of those with an edit.
func checkPlain(tb testing.TB, c *bench.PlainCorpus) (findings, edited int) {
	tb.Helper()
	return checkPlainWith(tb, c, []string{"--no-cache"})
}

// checkPlainWith is checkPlain with the given flags.
func checkPlainWith(tb testing.TB, c *bench.PlainCorpus, args []string) (findings, edited int) {
	tb.Helper()
	fset := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := config.BindCheckFlags(fset)
	if err := fset.Parse(args); err != nil {
		tb.Fatal(err)
	}
	cfg, err := config.Resolve(nil, fl, c.Dir)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Reproducible = true
	res, err := pipeline.Check(context.Background(), cfg)
	if err != nil {
		tb.Fatal(err)
	}
	if len(res.Report.Objects) != c.Spec.Objects {
		tb.Fatalf("%d objects reported, want %d", len(res.Report.Objects), c.Spec.Objects)
	}
	if err := (report.Text{}).Write(io.Discard, res.Report); err != nil {
		tb.Fatal(err)
	}
	for i := range res.Report.Findings {
		if res.Report.Findings[i].Fixable() {
			edited++
		}
	}
	return len(res.Report.Findings), edited
}

// BenchmarkObjectsPerFile is `plumb check` on the same 2,000 small objects
// (Deployments lacking every setting the default checks ask for: 22,000
// findings, 10,000 with an edit) laid out 10, 200 and 2,000 to a
// file: the cost must follow the objects and findings, not how they are
// spread (the fix stage once copied the whole file for every finding in
// it, which made one file of 2,000 objects cost 20 times 200 files).
func BenchmarkObjectsPerFile(b *testing.B) {
	for _, perFile := range []int{10, 200, 2000} {
		b.Run(fmt.Sprintf("per-file=%d", perFile), func(b *testing.B) {
			c := plainCorpus(b, bench.PlainSpec{Seed: 1, Objects: 2000, PerFile: perFile, Bare: true})
			var peak uint64
			cpu := bench.CPUTime()
			for b.Loop() {
				w := startHeapWatch("")
				checkPlain(b, c)
				peak = max(peak, w.stop(b))
			}
			reportRates(b, c.Spec.Objects, bench.CPUTime()-cpu)
			b.ReportMetric(float64(peak)/(1<<20), "peak-live-MB")
		})
	}
}

// TestOneFileOfManyObjects is the hostile layout: one file of 20,000 small
// objects, each with eleven findings (five with an edit), is
// checked within 60 CPU-seconds and 1 GiB on the 2-core machine. The bounds are
// generous (the run takes a third of either); they fail a cost that grows
// with the square of the file, not a slow machine.
//
// The race detector makes the run 5-10 times slower and its shadow memory
// is not the program's: under -race the test checks 2,000 objects in one
// file against the live heap only (the quadratic fix stage took 9 GB
// there). -short skips it: it costs 20 CPU-seconds.
func TestOneFileOfManyObjects(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000 objects cost 20 CPU-seconds; -short skips them")
	}
	objects := 20000
	if raceEnabled {
		objects = 2000
	}
	c := plainCorpus(t, bench.PlainSpec{Seed: 1, Objects: objects, PerFile: objects, Bare: true})
	const maxCPU, maxMemory = 60 * time.Second, 1 << 30
	w := startHeapWatch(os.Getenv("PLUMB_PEAK_HEAP_PROFILE"))
	start, cpu := time.Now(), bench.CPUTime()
	findings, edited := checkPlain(t, c)
	elapsed, cpu := time.Since(start), bench.CPUTime()-cpu
	peak := w.stop(t)
	if findings < 10*objects || edited != 5*objects {
		t.Errorf("%d findings, %d with an edit; want at least ten an object, five with an edit", findings, edited)
	}
	t.Logf("%d objects in one file: %v (%v CPU), peak live heap %d MiB, peak RSS %d MiB", objects,
		elapsed.Round(time.Millisecond), cpu.Round(time.Millisecond), peak>>20, peakRSS()>>20)
	// CPU time, not wall time: other jobs on the machine stretch the one,
	// not the other, and on two cores 60 CPU-seconds is at most 60 s.
	if cpu > maxCPU {
		t.Errorf("checking %d objects in one file took %v of CPU, more than %v", objects, cpu, maxCPU)
	}
	if peak > maxMemory {
		t.Errorf("checking %d objects in one file took a live heap of %d MiB, more than %d", objects, peak>>20, maxMemory>>20)
	}
	if rss := peakRSS(); !raceEnabled && rss > maxMemory {
		t.Errorf("checking %d objects in one file took %d MiB of memory (peak RSS), more than %d", objects, rss>>20, maxMemory>>20)
	}
}

// peakRSS is the largest resident set of this process so far, in bytes.
func peakRSS() uint64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return uint64(ru.Maxrss) << 10 // kilobytes on Linux
}

// BenchmarkPlainManifests is `plumb check` on 10,000 plain objects of the
// benchmark's apps in 200 files, with the default checks and without them:
// the checks' share of a plain-manifest run (the files are read and
// validated in either).
func BenchmarkPlainManifests(b *testing.B) {
	c := plainCorpus(b, bench.PlainSpec{Seed: 1, Objects: 10000, PerFile: 50})
	for _, checks := range []bool{true, false} {
		b.Run(fmt.Sprintf("default-checks=%v", checks), func(b *testing.B) {
			args := []string{"--no-cache"}
			if !checks {
				args = append(args, "--no-default-checks")
			}
			cpu := bench.CPUTime()
			for b.Loop() {
				checkPlainWith(b, c, args)
			}
			reportRates(b, c.Spec.Objects, bench.CPUTime()-cpu)
		})
	}
}
