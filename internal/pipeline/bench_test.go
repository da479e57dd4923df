package pipeline

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/plumb-ci/plumb/internal/bench"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
)

// benchObject writes one realistic object (a Deployment, a Service or a
// ConfigMap); version changes the Deployment's image and replicas.
func benchObject(b *strings.Builder, i, version int) {
	switch i % 3 {
	case 0:
		fmt.Fprintf(b, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-%[1]d
  namespace: team-%[2]d
  labels:
    app.kubernetes.io/name: app-%[1]d
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
          securityContext:
            runAsNonRoot: true
            readOnlyRootFilesystem: true
`, i, i%20, version+1)
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
  config.yaml: |
    server:
      port: 8080
`, i, i%20)
	}
}

// benchRepo commits n objects (50 per file, 5 files per directory: one
// render target per 250 objects) and then changes every changeEvery-th file
// in the working tree, as a pull request would.
func benchRepo(b *testing.B, n, changeEvery int) (*gittest.Repo, string) {
	r := gittest.New(b)
	write := func(version func(file int) int) {
		files := map[string]string{}
		var sb strings.Builder
		for i := 0; i < n; i++ {
			if i%50 != 0 {
				sb.WriteString("---\n")
			}
			benchObject(&sb, i, version(i/50))
			if i%50 == 49 || i == n-1 {
				files[fmt.Sprintf("apps/dir%03d/f%05d.yaml", i/250, i/50)] = sb.String()
				sb.Reset()
			}
		}
		r.Write(files)
	}
	write(func(int) int { return 0 })
	base := r.Commit("base")
	write(func(file int) int {
		if file%changeEvery == 0 {
			return 1
		}
		return 0
	})
	return r, base
}

// BenchmarkPullRequestMode compares a pull-request run (base from git and
// head, with classification and the rendered diff) with a single-revision
// run on the same 10,000 objects. The target: PR mode takes at most
// 2.1× the single run. The ratio is reported as "x-single".
func BenchmarkPullRequestMode(b *testing.B) {
	const n = 10000
	r, base := benchRepo(b, n, 10)
	single := testConfig(b, r.Dir, nil, "--no-cache")
	pr := testConfig(b, r.Dir, nil, "--no-cache", "--base-ref", base)
	ctx := context.Background()
	run := func(cfg *config.Config) time.Duration {
		start := time.Now()
		res, err := Check(ctx, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Report.Objects) != n {
			b.Fatalf("%d objects", len(res.Report.Objects))
		}
		return time.Since(start)
	}
	run(single) // warm the page cache and git's object store
	run(pr)
	b.Run("single", func(b *testing.B) {
		for b.Loop() {
			run(single)
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
	})
	b.Run("pr", func(b *testing.B) {
		for b.Loop() {
			run(pr)
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
	})
	// Alternate the two so that both see the same machine load; the CPU
	// time ratio is reported too, as it suffers less from other processes
	// on a shared machine.
	b.Run("ratio", func(b *testing.B) {
		var s, p, sCPU, pCPU time.Duration
		for b.Loop() {
			c := bench.CPUTime()
			s += run(single)
			sCPU += bench.CPUTime() - c
			c = bench.CPUTime()
			p += run(pr)
			pCPU += bench.CPUTime() - c
		}
		b.ReportMetric(float64(p)/float64(s), "x-single")
		b.ReportMetric(float64(pCPU)/float64(sCPU), "x-single-cpu")
	})
}

// benchKustomizeRepo commits 10 bases of 50 objects and 200 overlays (each
// renders one base into its own namespace with a patch): 10,000 rendered
// objects. The working tree then changes one base (its 20 overlays render
// differently) and one overlay's patch.
func benchKustomizeRepo(b *testing.B) (*gittest.Repo, string) {
	r := gittest.New(b)
	files := map[string]string{}
	for base := 0; base < 10; base++ {
		dir := fmt.Sprintf("bases/base%02d", base)
		var res []string
		for f := 0; f < 5; f++ {
			var sb strings.Builder
			for i := 0; i < 10; i++ {
				if i > 0 {
					sb.WriteString("---\n")
				}
				benchObject(&sb, base*50+f*10+i, 0)
			}
			name := fmt.Sprintf("f%d.yaml", f)
			files[dir+"/"+name] = sb.String()
			res = append(res, "  - "+name)
		}
		files[dir+"/kustomization.yaml"] = "resources:\n" + strings.Join(res, "\n") + "\n"
	}
	for o := 0; o < 200; o++ {
		dir := fmt.Sprintf("overlays/o%03d", o)
		files[dir+"/kustomization.yaml"] = fmt.Sprintf("namespace: env-%03d\nresources:\n  - ../../bases/base%02d\npatches:\n  - path: patch.yaml\n", o, o%10)
		d := (o % 10) * 50
		d += (3 - d%3) % 3 // a Deployment (benchObject makes every third object one)
		files[dir+"/patch.yaml"] = fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-%d\n  namespace: team-%d\nspec:\n  replicas: %d\n", d, d%20, o%5+1)
	}
	r.Write(files)
	base := r.Commit("base")
	r.Write(map[string]string{
		"bases/base03/f0.yaml":     strings.ReplaceAll(files["bases/base03/f0.yaml"], ":1.1.0", ":1.2.0"),
		"overlays/o007/patch.yaml": strings.Replace(files["overlays/o007/patch.yaml"], "replicas: 3", "replicas: 4", 1),
	})
	return r, base
}

// BenchmarkPullRequestModeKustomize is BenchmarkPullRequestMode on 10,000
// objects rendered by kustomize (200 overlays of 10 bases).
func BenchmarkPullRequestModeKustomize(b *testing.B) {
	r, base := benchKustomizeRepo(b)
	single := testConfig(b, r.Dir, nil, "--no-cache")
	pr := testConfig(b, r.Dir, nil, "--no-cache", "--base-ref", base)
	ctx := context.Background()
	run := func(cfg *config.Config) time.Duration {
		start := time.Now()
		res, err := Check(ctx, cfg)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Report.Objects) != 10000 {
			b.Fatalf("%d objects", len(res.Report.Objects))
		}
		return time.Since(start)
	}
	b.Run("ratio", func(b *testing.B) {
		var s, p, sCPU, pCPU time.Duration
		for b.Loop() {
			c := bench.CPUTime()
			s += run(single)
			sCPU += bench.CPUTime() - c
			c = bench.CPUTime()
			p += run(pr)
			pCPU += bench.CPUTime() - c
		}
		b.ReportMetric(float64(s.Milliseconds())/float64(b.N), "single-ms")
		b.ReportMetric(float64(p.Milliseconds())/float64(b.N), "pr-ms")
		b.ReportMetric(float64(p)/float64(s), "x-single")
		b.ReportMetric(float64(pCPU)/float64(sCPU), "x-single-cpu")
	})
}
