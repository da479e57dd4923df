package renderdiff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

func benchTargets(b *testing.B, n int, version func(i int) int) []*render.Target {
	var sb strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-%[1]d
  namespace: team
  labels: {app: app-%[1]d}
spec:
  replicas: %[2]d
  selector:
    matchLabels: {app: app-%[1]d}
  template:
    metadata:
      labels: {app: app-%[1]d}
    spec:
      containers:
        - name: app
          image: registry.example.com/shop/app-%[1]d:1.%[2]d.0
          ports: [{containerPort: 8080}]
          resources:
            requests: {cpu: 100m, memory: 128Mi}
            limits: {memory: 256Mi}
`, i, version(i))
	}
	docs, _ := manifest.Parse("t/all.yaml", []byte(sb.String()), manifest.Limits{})
	t := &render.Target{Name: "t"}
	for _, d := range docs {
		objs, _ := d.Objects("t")
		t.Objects = append(t.Objects, objs...)
	}
	return []*render.Target{t}
}

// BenchmarkCompute diffs 1,000 objects of which one in ten changed.
func BenchmarkCompute(b *testing.B) {
	base := benchTargets(b, 1000, func(int) int { return 1 })
	head := benchTargets(b, 1000, func(i int) int {
		if i%10 == 0 {
			return 2
		}
		return 1
	})
	b.ReportAllocs()
	for b.Loop() {
		if got := Compute(base, head); got[0].Changed != 100 {
			b.Fatal(got[0].Changed)
		}
	}
	b.ReportMetric(1000*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
}
