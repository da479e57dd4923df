package helm

import (
	"os"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

func TestSmokePodinfo(t *testing.T) {
	root := os.Getenv("SMOKE_ROOT")
	dir := os.Getenv("SMOKE_CHART")
	if root == "" {
		t.Skip()
	}
	fsys := os.DirFS(root)
	c, err := LoadChart(fsys, dir, 10<<20)
	if err != nil {
		t.Fatal(err)
	}
	r := NewRenderer(fsys, manifest.Limits{})
	var srcs []Source
	if f := os.Getenv("SMOKE_VALUES"); f != "" {
		srcs = append(srcs, Source{File: f})
	}
	out := r.Render(c, Request{Target: dir, KubeVersion: "v1.37.0", IncludeCRDs: true, Sources: srcs})
	for _, p := range out.Problems {
		t.Logf("problem: %s", p.Error())
	}
	for _, o := range out.Objects {
		t.Logf("object %s", o.ID)
		for _, ps := range []string{"metadata.name", "metadata.labels", "spec.replicas", "spec.template.spec.containers[0].image", "spec.template.spec.containers[0].resources.limits.memory", "spec.template.spec.containers[0].resources.requests.cpu", "metadata.labels[\"app.kubernetes.io/name\"]", "spec.ports[0].port", "spec.template.spec.containers[0].ports[0].containerPort", "spec.template.spec.containers[0].env[0].value"} {
			p := manifest.MustParsePath(ps)
			if _, ok := o.Get(p); !ok {
				continue
			}
			loc, exact := o.Locate(p)
			var rel []manifest.Location
			if r, ok := o.Origin.(interface {
				Related(manifest.Path) []manifest.Location
			}); ok {
				rel = r.Related(p)
			}
			t.Logf("   %s -> %s %v rel=%v", ps, manifest.FormatLocation(loc), exact, rel)
		}
	}
}
