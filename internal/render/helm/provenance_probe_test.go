package helm

import (
	"os"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

func TestProbe(t *testing.T) {
	if os.Getenv("PROBE") == "" {
		t.Skip()
	}
	fsys := os.DirFS("testdata/repo")
	for _, c := range []struct{ chart, values string }{{"basic", ""}, {"basic", "basic/values-prod.yaml"}, {"umbrella", "umbrella/values-prod.yaml"}, {"libuser", ""}, {"tplchart", ""}, {"aliased", ""}, {"tgzdep", ""}, {"crdchart", ""}, {"hookschart", ""}} {
		ch, _ := LoadChart(fsys, c.chart, 10<<20)
		req := Request{Target: c.chart, KubeVersion: "v1.37.0", IncludeCRDs: true}
		if c.values != "" {
			req.Sources = []Source{{File: c.values}}
		}
		out := NewRenderer(fsys, manifest.Limits{}).Render(ch, req)
		for _, o := range out.Objects {
			var walk func(v any, p manifest.Path)
			walk = func(v any, p manifest.Path) {
				switch x := v.(type) {
				case map[string]any:
					for k, c := range x {
						walk(c, p.Child(manifest.Key(k)))
					}
					return
				case []any:
					for i, c := range x {
						walk(c, p.Child(manifest.Index(i)))
					}
					return
				}
				loc, _ := o.Locate(p)
				var rel []manifest.Location
				if r, ok := o.Origin.(interface{ Related(manifest.Path) []manifest.Location }); ok {
					rel = r.Related(p)
				}
				rs := ""
				if len(rel) > 0 {
					rs = " (" + manifest.FormatLocation(rel[0]) + ")"
				}
				t.Logf("%s %s %s %v -> %s%s", c.values, o.ID.Kind, p, v, manifest.FormatLocation(loc), rs)
			}
			walk(o.Content, nil)
		}
	}
}
