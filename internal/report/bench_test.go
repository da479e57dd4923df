package report

import (
	"fmt"
	"io"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// benchReport has n findings over n/10 files and 50 rules, a tenth of them
// with a drift diff.
func benchReport(n int) *Report {
	r := &Report{Version: "1.0.0"}
	for i := 0; i < 50; i++ {
		r.Rules = append(r.Rules, finding.Rule{ID: fmt.Sprintf("check/R%02d", i), Name: fmt.Sprintf("Rule%02d", i), Short: "short", Help: "help", Level: finding.Level(i % 3)})
	}
	for i := 0; i < n; i++ {
		f := finding.Finding{Source: "check", RuleID: fmt.Sprintf("check/R%02d", i%50), Level: finding.Level(i % 3),
			Message:  fmt.Sprintf("container %d uses the mutable tag latest", i),
			Object:   finding.ObjectID{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "ns", Name: fmt.Sprint("app", i), Target: fmt.Sprint("overlays/", i%20)},
			Path:     manifest.MustParsePath("spec.template.spec.containers[0].image"),
			Location: finding.Location{File: fmt.Sprintf("apps/app%d/deployment.yaml", i/10), Line: 10 + i%10, Column: 5, EndLine: 10 + i%10, EndColumn: 30},
			Related:  []finding.Related{{Location: finding.Location{File: "base/deployment.yaml", Line: 20}}}}
		if i%10 == 0 {
			f.Diff = "--- reference\n+++ rendered\n@@ -1,3 +1,3 @@\n spec:\n-  replicas: 3\n+  replicas: 1\n"
		}
		f.SetFingerprint()
		r.Findings = append(r.Findings, f)
	}
	finding.Sort(r.Findings)
	return r
}

func benchSink(b *testing.B, s Sink, n int) {
	r := benchReport(n)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Write(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "findings/s")
}

func BenchmarkSARIF10k(b *testing.B) { benchSink(b, SARIF{}, 10000) }
func BenchmarkSARIFOverLimit(b *testing.B) {
	benchSink(b, SARIF{Limits: SARIFLimits{GzipBytes: 1 << 20}}, 10000)
}
func BenchmarkMarkdownComment10k(b *testing.B) {
	benchSink(b, Markdown{MaxBytes: 65000, MaxFindings: 50}, 10000)
}
func BenchmarkMarkdownJobSummary10k(b *testing.B) {
	benchSink(b, Markdown{MaxBytes: 1 << 20, MaxFindings: 1000}, 10000)
}
func BenchmarkAnnotations10k(b *testing.B) { benchSink(b, Annotations{}, 10000) }
