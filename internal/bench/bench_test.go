package bench_test

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/bench"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/pipeline"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/internal/report"
)

// sizes are the two corpora every benchmark runs on, so that cost growth
// is visible: 1,000 and 10,000 objects.
var sizes = []struct {
	name string
	spec bench.Spec
}{{"1k", bench.Small}, {"10k", bench.Default}}

// corpora holds the generated repositories, one per spec, for the whole
// test binary.
var corpora struct {
	sync.Mutex
	dirs []string
	byID map[bench.Spec]*bench.Corpus
}

func corpus(tb testing.TB, s bench.Spec) *bench.Corpus {
	corpora.Lock()
	defer corpora.Unlock()
	if c := corpora.byID[s]; c != nil {
		return c
	}
	dir, err := os.MkdirTemp("", "plumb-bench-")
	if err != nil {
		tb.Fatal(err)
	}
	corpora.dirs = append(corpora.dirs, dir)
	c, err := bench.Generate(dir, s)
	if err != nil {
		tb.Fatal(err)
	}
	if corpora.byID == nil {
		corpora.byID = map[bench.Spec]*bench.Corpus{}
	}
	corpora.byID[s] = c
	return c
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range corpora.dirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// checkConfig is the configuration `plumb check` builds in the corpus
// root with the reference and the rules: the default checks catalog (40
// checks), the KubeVirt validations, the comparison and the rules, all on;
// without the persistent cache (a cold run) unless args name one.
func checkConfig(tb testing.TB, c *bench.Corpus, args ...string) *config.Config {
	tb.Helper()
	fset := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fl := config.BindCheckFlags(fset)
	if !slices.Contains(args, "--cache-dir") {
		args = append(args, "--no-cache")
	}
	args = append([]string{"--reference", c.Reference, "--rules", c.RulesFile}, args...)
	if err := fset.Parse(args); err != nil {
		tb.Fatal(err)
	}
	fl.Paths = fset.Args()
	cfg, err := config.Resolve(nil, fl, c.Dir)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Reproducible = true
	return cfg
}

// BenchmarkCheck is the whole of `plumb check` on the corpus: load,
// render, the three rule phases, every analyzer, suppressions, and the
// text report it prints by default (BenchmarkStageReports times the other
// formats on the same report).
func BenchmarkCheck(b *testing.B) {
	for _, size := range sizes {
		b.Run(size.name, func(b *testing.B) {
			c := corpus(b, size.spec)
			cfg := checkConfig(b, c)
			b.ReportAllocs()
			cpu := bench.CPUTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				res, err := pipeline.Check(context.Background(), cfg)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Report.Objects) < c.Objects {
					b.Fatalf("%d objects reported, want at least %d", len(res.Report.Objects), c.Objects)
				}
				if err := (report.Text{}).Write(io.Discard, res.Report); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			reportRates(b, c.Objects, bench.CPUTime()-cpu)
		})
	}
}

// reportRates adds objects/s (wall) and CPU seconds per operation, which
// stays comparable when other processes share the machine.
func reportRates(b *testing.B, objects int, cpu time.Duration) {
	b.ReportMetric(float64(objects)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// stage is one corpus prepared for the stage benchmarks: the configuration
// and the repository, opened as the pipeline opens it.
type stage struct {
	c    *bench.Corpus
	cfg  *config.Config
	fsys fs.FS
}

func newStage(b *testing.B, s bench.Spec) *stage {
	c := corpus(b, s)
	root, err := os.OpenRoot(c.Dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { root.Close() })
	return &stage{c: c, cfg: checkConfig(b, c), fsys: root.FS()}
}

func (st *stage) load() *manifest.Set {
	return manifest.Load(st.fsys, st.cfg.Paths, manifest.LoadOptions{Limits: st.cfg.Limits, Exclude: st.cfg.Exclude})
}

func (st *stage) render(b *testing.B, set *manifest.Set) *render.Result {
	res := render.Render(context.Background(), st.fsys, set, render.Options{Limits: st.cfg.Limits})
	if len(res.Problems) > 0 {
		b.Fatal(res.Problems[0].Error())
	}
	return res
}

// forSizes runs fn as a sub-benchmark per corpus size and reports
// objects/s and CPU seconds per operation.
func forSizes(b *testing.B, fn func(b *testing.B, st *stage, m *meter)) {
	for _, size := range sizes {
		b.Run(size.name, func(b *testing.B) {
			st := newStage(b, size.spec)
			b.ReportAllocs()
			m := &meter{b: b}
			b.ResetTimer()
			m.start()
			fn(b, st, m)
			m.stop()
			reportRates(b, st.c.Objects, m.cpu)
		})
	}
}

// meter stops and starts the benchmark timer and the CPU time count
// together.
type meter struct {
	b       *testing.B
	cpu     time.Duration
	started time.Duration
}

func (m *meter) start() {
	m.started = bench.CPUTime()
	m.b.StartTimer()
}

func (m *meter) stop() {
	m.b.StopTimer()
	m.cpu += bench.CPUTime() - m.started
}

// BenchmarkStageLoad reads every file of the corpus with positions.
func BenchmarkStageLoad(b *testing.B) {
	forSizes(b, func(b *testing.B, st *stage, m *meter) {
		for i := 0; i < b.N; i++ {
			if set := st.load(); len(set.Documents) == 0 {
				b.Fatal("nothing loaded")
			}
		}
	})
}

// BenchmarkStageRender renders every target (kustomize overlays and
// Templates) and locates every object's source, as the report does.
func BenchmarkStageRender(b *testing.B) {
	forSizes(b, func(b *testing.B, st *stage, m *meter) {
		m.stop()
		set := st.load()
		m.start()
		for i := 0; i < b.N; i++ {
			res := st.render(b, set)
			for _, o := range res.Objects() {
				o.Locate(nil)
			}
		}
	})
}

// BenchmarkStageKrusty is krusty alone on the same overlays, with as many
// workers as plumb's render uses: Run and AsYaml, what `kustomize build`
// does for each overlay.
func BenchmarkStageKrusty(b *testing.B) {
	forSizes(b, func(b *testing.B, st *stage, m *meter) {
		for i := 0; i < b.N; i++ {
			krustyAll(b, st.c)
		}
	})
}

func krustyAll(b *testing.B, c *bench.Corpus) {
	opts := krusty.MakeDefaultOptions()
	opts.Reorder = krusty.ReorderOptionUnspecified
	next := make(chan string)
	errs := make(chan error, len(c.Overlays))
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for dir := range next {
				m, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), filepath.Join(c.Dir, dir))
				if err == nil {
					_, err = m.AsYaml()
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	for _, dir := range c.Overlays {
		next <- dir
	}
	close(next)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}

// BenchmarkStageRules runs the three phases of the built-in rules and the
// corpus's rules. Preprocess rules change objects, so every iteration
// renders afresh (outside the timer).
func BenchmarkStageRules(b *testing.B) {
	forSizes(b, func(b *testing.B, st *stage, m *meter) {
		engine, problems, err := pipeline.RulesEngine(st.cfg)
		if err != nil || len(problems) > 0 {
			b.Fatal(err, problems)
		}
		m.stop()
		set := st.load()
		for i := 0; i < b.N; i++ {
			res := st.render(b, set)
			m.start()
			run := engine.NewRun()
			run.Early(set.Documents)
			run.Preprocess(res.Targets)
			run.Main(res.Targets, nil)
			_ = run.Section()
			m.stop()
		}
		m.start()
	})
}

// BenchmarkStageAnalyzers runs each analyzer on its own over the corpus
// after the preprocess rules, as the pipeline feeds them.
func BenchmarkStageAnalyzers(b *testing.B) {
	for _, size := range sizes {
		b.Run(size.name, func(b *testing.B) {
			st := newStage(b, size.spec)
			rendered, err := pipeline.Load(context.Background(), st.cfg)
			if err != nil {
				b.Fatal(err)
			}
			in := &analyzer.Input{Targets: rendered.Render.Targets, Env: st.cfg.Checks.Env, TargetEnv: rendered.Rules.TargetEnv()}
			engines, setup := pipeline.Analyzers(context.Background(), st.cfg, st.fsys)
			if len(setup) > 0 {
				b.Fatal(setup)
			}
			for _, a := range engines {
				b.Run(a.Name(), func(b *testing.B) {
					b.ReportAllocs()
					cpu := bench.CPUTime()
					for i := 0; i < b.N; i++ {
						if _, err := a.Analyze(context.Background(), in); err != nil {
							b.Fatal(err)
						}
					}
					reportRates(b, st.c.Objects, bench.CPUTime()-cpu)
				})
			}
		})
	}
}

// BenchmarkStageReports writes the finished report in every format.
func BenchmarkStageReports(b *testing.B) {
	for _, size := range sizes {
		b.Run(size.name, func(b *testing.B) {
			st := newStage(b, size.spec)
			res, err := pipeline.Check(context.Background(), st.cfg)
			if err != nil {
				b.Fatal(err)
			}
			for _, s := range []struct {
				name string
				sink report.Sink
			}{{"text", report.Text{}}, {"json", report.JSON{}}, {"sarif", report.SARIF{}}, {"markdown", report.Markdown{}}} {
				b.Run(s.name, func(b *testing.B) {
					b.ReportAllocs()
					cpu := bench.CPUTime()
					var w countingWriter
					for i := 0; i < b.N; i++ {
						if err := s.sink.Write(&w, res.Report); err != nil {
							b.Fatal(err)
						}
					}
					reportRates(b, st.c.Objects, bench.CPUTime()-cpu)
					b.ReportMetric(float64(w.n)/float64(b.N)/(1<<20), "MiB/op")
				})
			}
		})
	}
}

// countingWriter counts what a sink writes.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}
