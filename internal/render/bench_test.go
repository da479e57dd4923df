package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/plumb-ci/plumb/internal/bench"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// The benchmark repository: 100 overlays of 50 objects each over 10 shared
// bases (the shape of DESIGN.md's performance notes). Each overlay sets a
// namespace, a name prefix, labels, an image tag and replicas, and applies
// a strategic merge patch and a JSON 6902 patch.
const (
	benchOverlays = 100
	benchBases    = 10
	benchObjects  = 50
)

var benchRepo struct {
	once sync.Once
	dir  string
}

func benchRepoDir(b *testing.B) string {
	benchRepo.once.Do(func() {
		dir, err := os.MkdirTemp("", "plumb-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchRepo.dir = dir
		write := func(name, content string) {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		for base := 0; base < benchBases; base++ {
			var res []string
			for i := 0; i < benchObjects/2; i++ {
				name := fmt.Sprintf("app%d", i)
				res = append(res, name+".yaml")
				write(fmt.Sprintf("bases/b%d/%s.yaml", base, name), fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  labels:
    app: %[1]s
spec:
  replicas: 1
  selector:
    matchLabels:
      app: %[1]s
  template:
    metadata:
      labels:
        app: %[1]s
    spec:
      containers:
        - name: main
          image: registry.example.com/%[1]s:1.0.0
          ports:
            - containerPort: 8080
          env:
            - name: MODE
              value: base
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
        - name: sidecar
          image: envoy:1.29
          args: ["--config", "/etc/envoy.yaml"]
---
apiVersion: v1
kind: Service
metadata:
  name: %[1]s
spec:
  selector:
    app: %[1]s
  ports:
    - port: 80
      targetPort: 8080
`, name))
			}
			write(fmt.Sprintf("bases/b%d/kustomization.yaml", base), "resources:\n  - "+strings.Join(res, "\n  - ")+"\n")
		}
		for o := 0; o < benchOverlays; o++ {
			write(fmt.Sprintf("overlays/o%d/kustomization.yaml", o), fmt.Sprintf(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: team-%[1]d
namePrefix: o%[1]d-
resources:
  - ../../bases/b%[2]d
labels:
  - pairs:
      overlay: o%[1]d
    includeSelectors: true
images:
  - name: envoy
    newTag: "1.30"
replicas:
  - name: app3
    count: 3
patches:
  - path: smp.yaml
  - path: json.yaml
    target:
      kind: Deployment
      name: app1
`, o, o%benchBases))
			write(fmt.Sprintf("overlays/o%d/smp.yaml", o), `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app0
spec:
  template:
    spec:
      containers:
        - name: main
          env:
            - name: MODE
              value: overlay
`)
			write(fmt.Sprintf("overlays/o%d/json.yaml", o), "- op: replace\n  path: /spec/replicas\n  value: 2\n")
		}
	})
	return benchRepo.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchRepo.dir != "" {
		os.RemoveAll(benchRepo.dir)
	}
	os.Exit(code)
}

var benchPaths = []manifest.Path{
	nil,
	manifest.MustParsePath("spec.template.spec.containers[0].image"),
	manifest.MustParsePath("metadata.labels.overlay"),
}

// BenchmarkRender is plumb's render of the benchmark repository with
// provenance (every object located at three paths), on all cores; with
// the default GC and with GOGC=400 (the lever the pipeline pulls).
func BenchmarkRender(b *testing.B) {
	dir := benchRepoDir(b)
	root, err := os.OpenRoot(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer root.Close()
	set := manifest.Load(root.FS(), []string{"."}, manifest.LoadOptions{})
	for _, gc := range []int{100, 400} {
		b.Run(fmt.Sprintf("gogc=%d", gc), func(b *testing.B) {
			defer debug.SetGCPercent(debug.SetGCPercent(gc))
			runtime.GC()
			b.ResetTimer()
			start, cpu := time.Now(), bench.CPUTime()
			objects := 0
			for i := 0; i < b.N; i++ {
				res := Render(context.Background(), root.FS(), set, Options{})
				if len(res.Problems) > 0 {
					b.Fatal(res.Problems[0].Error())
				}
				for _, o := range res.Objects() {
					for _, p := range benchPaths {
						o.Locate(p)
					}
					objects++
				}
			}
			if objects != b.N*benchOverlays*benchObjects {
				b.Fatalf("%d objects", objects)
			}
			b.ReportMetric(float64(objects)/time.Since(start).Seconds(), "objects/s")
			b.ReportMetric((bench.CPUTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkKrusty is krusty alone on the same targets, with as many
// workers: `kustomize build` of each overlay on the real file system
// (build: Run and AsYaml, as the CLI prints; run-only: Run without
// printing, the strictest baseline).
func BenchmarkKrusty(b *testing.B) {
	dir := benchRepoDir(b)
	restore := silenceStderr()
	defer restore()
	for _, c := range []struct {
		name  string
		print bool
		gc    int
	}{{"build/gogc=100", true, 100}, {"run-only/gogc=100", false, 100}, {"build/gogc=400", true, 400}} {
		b.Run(c.name, func(b *testing.B) {
			defer debug.SetGCPercent(debug.SetGCPercent(c.gc))
			runtime.GC()
			b.ResetTimer()
			start, cpu := time.Now(), bench.CPUTime()
			for i := 0; i < b.N; i++ {
				krustyAll(b, dir, c.print)
			}
			b.ReportMetric(float64(b.N*benchOverlays*benchObjects)/time.Since(start).Seconds(), "objects/s")
			b.ReportMetric((bench.CPUTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

func krustyAll(b *testing.B, dir string, print bool) {
	next := make(chan int)
	var wg sync.WaitGroup
	errs := make(chan error, benchOverlays)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for o := range next {
				m, err := krusty.MakeKustomizer(krustyOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(dir, fmt.Sprintf("overlays/o%d", o)))
				if err == nil && print {
					_, err = m.AsYaml()
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	for o := 0; o < benchOverlays; o++ {
		next <- o
	}
	close(next)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}
