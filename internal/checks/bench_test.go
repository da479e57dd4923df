package checks

import (
	"context"
	"runtime"
	"testing"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/bench"
	"github.com/plumb-ci/plumb/internal/render"
)

// BenchmarkDefaultCatalog runs the 40 default checks over 10,000 objects in
// 10 render targets and reports check-target evaluations per second (the
// issue's target: at least 100,000 on 2 cores) and objects per second.
// "mixed": one block of workloads in five breaks half of the checks;
// "failing": every workload does (about 8 findings per object).
func BenchmarkDefaultCatalog(b *testing.B) {
	for _, c := range []struct {
		name     string
		badEvery int
	}{{"mixed", 5}, {"failing", 1}} {
		b.Run(c.name, func(b *testing.B) { benchCatalog(b, benchTargetsMixed(b, 10_000, c.badEvery)) })
	}
}

func benchCatalog(b *testing.B, targets []*render.Target) {
	cat := defaultCatalog(b)
	checks := cat.Usable()
	in := &analyzer.Input{Targets: targets, Env: map[string]any{"environment": "prod"}}
	a := NewAnalyzer(checks, nil)
	b.ResetTimer()
	cpu0 := bench.CPUTime()
	pairs, findings := 0, 0
	for i := 0; i < b.N; i++ {
		out, err := a.Analyze(context.Background(), in)
		if err != nil {
			b.Fatal(err)
		}
		pairs, findings = 0, len(out.Findings)
		for _, cr := range out.Section.(*Result).CheckResults {
			pairs += cr.AgentsCheckResults.Len()
		}
	}
	b.StopTimer()
	cpu := (bench.CPUTime() - cpu0).Seconds() / float64(b.N)
	sec := b.Elapsed().Seconds() / float64(b.N)
	// CPU seconds do not depend on what else runs on the machine; divided
	// over the cores they give the throughput on an otherwise idle machine.
	b.ReportMetric(float64(pairs)/cpu*float64(runtime.GOMAXPROCS(0)), "evaluations/s-idle")
	b.ReportMetric(float64(len(checks)), "checks")
	b.ReportMetric(float64(pairs), "evaluations/op")
	b.ReportMetric(float64(findings), "findings/op")
	b.ReportMetric(float64(pairs)/sec, "evaluations/s")
	b.ReportMetric(10_000/sec, "objects/s")
}

// BenchmarkLoadDefaultCatalog measures reading, linting and compiling the
// default catalog (done once per run).
func BenchmarkLoadDefaultCatalog(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if cat := Load(DefaultSource()); len(cat.Usable()) != 41 {
			b.Fatal("catalog does not load")
		}
	}
}
