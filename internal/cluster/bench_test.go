package cluster

import (
	"context"
	"fmt"
	"testing"

	"github.com/plumb-ci/plumb/internal/bench"
	"github.com/plumb-ci/plumb/internal/cluster/fakeapi"
)

// BenchmarkFetch10k reads 10,000 ConfigMaps and 1,000 Deployments from
// the fake API server in pages of 500, two kinds at a time: the cost of
// live mode's fetch on the client side (decoding the lists) plus the fake
// server's encoding, both on this machine.
func BenchmarkFetch10k(b *testing.B) {
	f := &fakeapi.Server{T: b, Objects: map[string][]map[string]any{}}
	for i := range 10_000 {
		o := fakeapi.Object("v1", "ConfigMap", fmt.Sprintf("ns%d", i%50), fmt.Sprintf("cm%d", i))
		o["data"] = map[string]any{"key": fmt.Sprintf("value-%d", i), "other": "some longer configuration text"}
		f.Objects["/api/v1/configmaps"] = append(f.Objects["/api/v1/configmaps"], o)
	}
	for i := range 1_000 {
		f.Objects["/apis/apps/v1/deployments"] = append(f.Objects["/apis/apps/v1/deployments"], fakeapi.Object("apps/v1", "Deployment", "web", fmt.Sprintf("d%d", i)))
	}
	cfg, err := RESTConfig(Options{Kubeconfig: f.Start(), Context: "good"})
	if err != nil {
		b.Fatal(err)
	}
	kinds := []Kind{{"v1", "ConfigMap"}, {"apps/v1", "Deployment"}}
	b.ResetTimer()
	start := bench.CPUTime()
	for range b.N {
		res, err := Fetch(context.Background(), cfg, kinds, Options{})
		if err != nil || len(res.Objects) != 11_000 {
			b.Fatalf("%v, %d objects", err, len(res.Objects))
		}
	}
	// CPU of the whole process: the client and the fake server.
	b.ReportMetric((bench.CPUTime()-start).Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(11_000*b.N)/b.Elapsed().Seconds(), "objects/s")
}
