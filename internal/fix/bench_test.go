package fix_test

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/spf13/pflag"

	"github.com/plumb-ci/plumb/internal/bench"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/fix"
	"github.com/plumb-ci/plumb/internal/pipeline"
	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// BenchmarkResolve times the fix stage on the real-world corpus: the
// default catalog's fixes of every repository resolved to source edits.
func BenchmarkResolve(b *testing.B) {
	corpus := testcorpus.Dir(b, "realworld")
	for _, repo := range []string{"podinfo", "microservices-demo", "examples", "library"} {
		b.Run(repo, func(b *testing.B) {
			dir, _ := filepath.Abs(filepath.Join(corpus, repo))
			fset := pflag.NewFlagSet("check", pflag.ContinueOnError)
			fl := config.BindCheckFlags(fset)
			fl.Root = dir
			cfg, err := config.Load(fl, dir)
			if err != nil {
				b.Fatal(err)
			}
			res, err := pipeline.Check(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			rendered, err := pipeline.Load(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			fs := res.Report.Findings
			fixes := 0
			for _, f := range fs {
				if f.Fix != nil {
					fixes++
				}
			}
			runtime.GC()
			cpu := bench.CPUTime()
			b.ResetTimer()
			for range b.N {
				fix.Resolve(fs, rendered.Render.Targets, fix.Options{FS: rendered.FS, Limits: cfg.Limits})
			}
			b.StopTimer()
			b.ReportMetric(float64(bench.CPUTime()-cpu)/float64(b.N)/1e6, "cpu-ms/op")
			b.ReportMetric(float64(fixes)*float64(b.N)/b.Elapsed().Seconds(), "fixes/s")
			edited := 0
			for _, f := range fs {
				if f.Fixable() {
					edited++
				}
			}
			if edited == 0 {
				b.Fatal("no fix resolved")
			}
		})
	}
}
