package compare

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plumb-ci/plumb/internal/bench"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// Targets (issue 6): the RAN DU reference against its conforming inputs in
// under 100 ms; 10,000 inputs against 100 templates in under 2 s, on 2
// cores (go test -bench . -cpu 2 ./internal/compare).

// Wall time depends on what else runs on a shared machine; the benchmarks
// also report cpu-s/op, the CPU time of both cores added up, which does not.

func BenchmarkRANConforming(b *testing.B) {
	ref := loadRAN(b)
	inputs := ranInputs(b, ref)
	b.ResetTimer()
	start := bench.CPUTime()
	for b.Loop() {
		res := ref.Compare(context.Background(), inputs, Options{})
		if res.NumDiffCRs != 0 {
			b.Fatal("drift")
		}
	}
	reportCPU(b, start)
	b.ReportMetric(float64(len(inputs)*b.N)/b.Elapsed().Seconds(), "objects/s")
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric((bench.CPUTime()-start).Seconds()/float64(b.N), "cpu-s/op")
}

func BenchmarkRANLoadAndCompare(b *testing.B) {
	dir := ranDir(b)
	inputs := ranInputs(b, loadRAN(b))
	b.ResetTimer()
	start := bench.CPUTime()
	for b.Loop() {
		ref, ps := LoadPath(dir+"/metadata.yaml", "ran")
		if ref == nil {
			b.Fatal(ps)
		}
		ref.Compare(context.Background(), inputs, Options{})
	}
	reportCPU(b, start)
}

// syntheticReference has n templates, each for its own kind, with a
// templated name and namespace (so each correlates with many inputs), a
// regex inline diff on the image and, for every third, ignore-unspecified
// -fields.
func syntheticReference(b *testing.B, n int) *Reference {
	return mustLoad(b, syntheticReferenceFiles(n))
}

func syntheticReferenceFiles(n int) map[string]string {
	files := map[string]string{}
	var md strings.Builder
	md.WriteString("apiVersion: v2\nparts:\n  - name: apps\n    components:\n      - name: all\n        anyOf:\n")
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("kind%03d.yaml", i)
		fmt.Fprintf(&md, "          - path: %s\n            config:\n", name)
		if i%3 == 0 {
			md.WriteString("              ignore-unspecified-fields: true\n")
		}
		md.WriteString("              perField:\n                - pathToKey: spec.template.spec.containers.0.image\n                  inlineDiffFunc: regex\n")
		files[name] = fmt.Sprintf(`apiVersion: example.com/v1
kind: Widget%03d
metadata:
  name: {{ .metadata.name }}
  namespace: {{ .metadata.namespace }}
  labels:
    app.kubernetes.io/name: {{ index (.metadata.labels | default dict) "app.kubernetes.io/name" }}
    app.kubernetes.io/part-of: shop
spec:
  replicas: {{ .spec.replicas }}
  selector:
    matchLabels:
      app.kubernetes.io/name: {{ index (.metadata.labels | default dict) "app.kubernetes.io/name" }}
  template:
    spec:
      containers:
        - name: app
          image: 'registry\.example\.com/shop/[a-z0-9-]+:1\.[0-9]+\.0'
          resources:
            requests: {cpu: 100m, memory: 128Mi}
            limits: {memory: 256Mi}
          securityContext:
            runAsNonRoot: true
            readOnlyRootFilesystem: true
            allowPrivilegeEscalation: false
`, i)
	}
	files["metadata.yaml"] = md.String()
	return files
}

// syntheticInputs are n objects spread over the kinds; one in ten drifts.
func syntheticInputs(b *testing.B, n, kinds int) []*manifest.Object {
	var docs strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			docs.WriteString("---\n")
		}
		readOnly := "true"
		if i%10 == 0 {
			readOnly = "false"
		}
		fmt.Fprintf(&docs, `apiVersion: example.com/v1
kind: Widget%03d
metadata:
  name: app-%[2]d
  namespace: team-%[3]d
  labels:
    app.kubernetes.io/name: app-%[2]d
    app.kubernetes.io/part-of: shop
spec:
  replicas: %[4]d
  selector:
    matchLabels:
      app.kubernetes.io/name: app-%[2]d
  template:
    spec:
      containers:
        - name: app
          image: registry.example.com/shop/app-%[2]d:1.%[4]d.0
          resources:
            requests: {cpu: 100m, memory: 128Mi}
            limits: {memory: 256Mi}
          securityContext:
            runAsNonRoot: true
            readOnlyRootFilesystem: %[5]s
            allowPrivilegeEscalation: false
`, i%kinds, i, i%20, i%5+1, readOnly)
	}
	return objects(b, docs.String())
}

func Benchmark10kInputs100Templates(b *testing.B) {
	ref := syntheticReference(b, 100)
	inputs := syntheticInputs(b, 10_000, 100)
	b.ResetTimer()
	start := bench.CPUTime()
	for b.Loop() {
		res := ref.Compare(context.Background(), inputs, Options{})
		if len(res.Compared) != 10_000 || res.NumDiffCRs != 1000 {
			b.Fatalf("compared %d, diffs %d", len(res.Compared), res.NumDiffCRs)
		}
	}
	reportCPU(b, start)
	b.ReportMetric(float64(len(inputs)*b.N)/b.Elapsed().Seconds(), "objects/s")
}
