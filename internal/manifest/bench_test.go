package manifest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/bench"
)

// benchObject renders one realistic object (a Deployment, a Service or a
// ConfigMap, about 20–45 lines) for the loading benchmark.
func benchObject(b *strings.Builder, i int) {
	switch i % 3 {
	case 0:
		fmt.Fprintf(b, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-%[1]d
  namespace: team-%[2]d
  labels:
    app.kubernetes.io/name: app-%[1]d
    app.kubernetes.io/part-of: shop
spec:
  replicas: %[3]d
  selector:
    matchLabels:
      app.kubernetes.io/name: app-%[1]d
  template:
    metadata:
      labels:
        app.kubernetes.io/name: app-%[1]d
    spec:
      containers:
        - name: app
          image: registry.example.com/shop/app-%[1]d:1.%[3]d.0
          ports:
            - containerPort: 8080
          resources:
            requests: {cpu: 100m, memory: 128Mi}
            limits: {memory: 256Mi}
          readinessProbe:
            httpGet: {path: /healthz, port: 8080}
          securityContext:
            runAsNonRoot: true
            readOnlyRootFilesystem: true
            allowPrivilegeEscalation: false
            capabilities:
              drop: [ALL]
`, i, i%20, i%5+1)
	case 1:
		fmt.Fprintf(b, `apiVersion: v1
kind: Service
metadata:
  name: app-%[1]d
  namespace: team-%[2]d
spec:
  selector:
    app.kubernetes.io/name: app-%[1]d
  ports:
    - name: http
      port: 80
      targetPort: 8080
`, i, i%20)
	default:
		fmt.Fprintf(b, `apiVersion: v1
kind: ConfigMap
metadata:
  name: app-%[1]d
  namespace: team-%[2]d
data:
  LOG_LEVEL: info
  FEATURE_FLAGS: "a,b,c"
  config.yaml: |
    server:
      port: 8080
      timeout: 30s
`, i, i%20)
	}
}

// writeBenchCorpus writes n objects, 50 per file, 5 files per directory.
func writeBenchCorpus(b *testing.B, n int) string {
	root := b.TempDir()
	var sb strings.Builder
	for i := 0; i < n; i++ {
		if i%50 != 0 {
			sb.WriteString("---\n")
		}
		benchObject(&sb, i)
		if i%50 == 49 || i == n-1 {
			file := filepath.Join(root, fmt.Sprintf("dir%03d", i/250), fmt.Sprintf("f%05d.yaml", i/50))
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
				b.Fatal(err)
			}
			sb.Reset()
		}
	}
	return root
}

// BenchmarkLoad measures loading with positions and classifying objects:
// the target is at least 20,000 objects/s on 2 cores and a peak memory
// under 300 MB. peak-RSS-MB is the process's resident-set high-water mark
// during the loop (Linux; reset before it where the kernel allows).
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			root := writeBenchCorpus(b, n)
			r, err := os.OpenRoot(root)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			fsys := r.FS()
			b.ReportAllocs()
			runtime.GC()
			resetPeakRSS()
			b.ResetTimer()
			cpu := bench.CPUTime()
			for b.Loop() {
				set := Load(fsys, []string{"."}, LoadOptions{})
				count := 0
				for _, d := range set.Documents {
					objs, _ := d.Objects("t")
					count += len(objs)
				}
				if count != n || len(set.Problems) != 0 {
					b.Fatalf("loaded %d objects, problems %v", count, set.Problems)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
			// On a shared machine wall time depends on the other jobs; the
			// CPU time does much less.
			b.ReportMetric((bench.CPUTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
			if mb, ok := peakRSSMB(); ok {
				b.ReportMetric(mb, "peak-RSS-MB")
			}
		})
	}
}

// resetPeakRSS resets the kernel's resident-set high-water mark of this
// process (Linux 4.0+: writing 5 to clear_refs); elsewhere it does nothing.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSSMB reads VmHWM, the resident-set high-water mark, in MB.
func peakRSSMB() (float64, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			if err != nil {
				return 0, false
			}
			return kb / 1024, true
		}
	}
	return 0, false
}
