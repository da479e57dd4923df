package helm

import (
	"os"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// TestProvenance asserts where fields of rendered objects point: the values
// line that supplied them (the environment's file when it overrides, the
// chart's values.yaml, the parent chart's values for a subchart), with the
// template line as related location; or the template line (inside
// _helpers.tpl when an include wrote it).
func TestProvenance(t *testing.T) {
	cases := []struct {
		chart, values string
		kind, name    string
		path          string
		want, related string
	}{
		// chart values.yaml, directly and through toYaml, range, with, quote
		{"basic", "", "Deployment", "", "spec.replicas", "basic/values.yaml:1:1", "basic/templates/deployment.yaml:8:16"},
		{"basic", "", "Deployment", "", "spec.template.spec.containers[0].resources.limits.memory", "basic/values.yaml:14:5", "basic/templates/deployment.yaml:34:17"},
		{"basic", "", "Deployment", "", "spec.template.spec.containers[0].resources.requests.cpu", "basic/values.yaml:16:5", ""},
		{"basic", "", "Deployment", "", "spec.template.spec.containers[0].env[1].value", "basic/values.yaml:11:3", "basic/templates/deployment.yaml:31:25"},
		{"basic", "", "Deployment", "", "spec.template.spec.containers[0].env[0].name", "basic/values.yaml:10:3", ""},
		{"basic", "", "Deployment", "", "spec.template.metadata.annotations.team", "basic/values.yaml:20:3", "basic/templates/deployment.yaml:16:13"},
		{"basic", "", "Deployment", "", "spec.template.spec.tolerations[0].operator", "basic/values.yaml:23:5", ""},
		{"basic", "", "Deployment", "", "spec.template.spec.containers[0].imagePullPolicy", "basic/values.yaml:5:3", ""},
		{"basic", "", "Service", "", "spec.type", "basic/values.yaml:7:3", "basic/templates/service.yaml:8:12"},
		{"basic", "", "ConfigMap", "", "data.MODE", "basic/values.yaml:11:3", ""},
		// the tag defaults to .Chart.AppVersion: the repository is the values key printed
		{"basic", "", "Deployment", "", "spec.template.spec.containers[0].image", "basic/values.yaml:3:3", ""},
		// environment values file overriding the chart's
		{"basic", "basic/values-prod.yaml", "Deployment", "", "spec.replicas", "basic/values-prod.yaml:1:1", "basic/templates/deployment.yaml:8:16"},
		{"basic", "basic/values-prod.yaml", "Deployment", "", "spec.template.spec.containers[0].image", "basic/values-prod.yaml:3:3", "basic/templates/deployment.yaml:23:53"},
		{"basic", "basic/values-prod.yaml", "Deployment", "", "spec.template.spec.containers[0].resources.limits.memory", "basic/values-prod.yaml:8:5", ""},
		{"basic", "basic/values-prod.yaml", "Deployment", "", "spec.template.spec.containers[0].resources.requests.memory", "basic/values.yaml:17:5", ""},
		{"basic", "basic/values-prod.yaml", "Deployment", "", "spec.template.spec.nodeSelector.disk", "basic/values-prod.yaml:5:3", ""},
		// templates and _helpers.tpl includes
		{"basic", "", "Deployment", "", "metadata.name", "basic/templates/_helpers.tpl:6:5", ""},
		{"basic", "", "Deployment", "", `metadata.labels["app.kubernetes.io/managed-by"]`, "basic/templates/_helpers.tpl:17:34", ""},
		{"basic", "", "Deployment", "", `spec.selector.matchLabels["app.kubernetes.io/instance"]`, "basic/templates/_helpers.tpl:11:32", ""},
		{"basic", "", "Deployment", "", "spec.template.spec.containers[0].ports[0].name", "basic/templates/deployment.yaml:26:21", ""},
		{"basic", "", "Service", "", "spec.ports[0].targetPort", "basic/templates/service.yaml:11:19", ""},
		{"basic", "", "Deployment", "", "kind", "basic/templates/deployment.yaml:2:7", ""},
		// subcharts: parent values, the subchart's own values, globals
		{"umbrella", "umbrella/values-prod.yaml", "Deployment", "", "spec.replicas", "umbrella/values.yaml:6:3", "umbrella/charts/backend/templates/deployment.yaml:8:16"},
		{"umbrella", "umbrella/values-prod.yaml", "Deployment", "", "spec.template.spec.containers[0].ports[0].containerPort", "umbrella/charts/backend/values.yaml:5:1", ""},
		{"umbrella", "umbrella/values-prod.yaml", "Deployment", "", "metadata.labels.environment", "umbrella/values-prod.yaml:2:3", ""},
		{"umbrella", "umbrella/values-prod.yaml", "Deployment", "", "spec.template.spec.containers[0].image", "umbrella/values-prod.yaml:5:5", ""},
		{"umbrella", "", "Deployment", "", "metadata.labels.environment", "umbrella/values.yaml:3:3", ""},
		{"umbrella", "", "ConfigMap", "", "data.environment", "umbrella/values.yaml:3:3", "umbrella/templates/configmap.yaml:6:19"},
		// aliased subcharts: each alias's values
		{"aliased", "", "ConfigMap", "release-name-worker-b", "data.queue", "aliased/values.yaml:4:3", "aliased/charts/worker/templates/cm.yaml:6:13"},
		{"aliased", "", "ConfigMap", "release-name-worker-a", "data.concurrency", "aliased/charts/worker/values.yaml:2:1", ""},
		// a library chart's define, fed by the user chart's values
		{"libuser", "", "Service", "", "spec.ports[0].port", "libuser/values.yaml:3:3", "libuser/charts/common/templates/_service.tpl:8:16"},
		{"libuser", "", "Service", "", "spec.ports[0].name", "libuser/charts/common/templates/_service.tpl:9:13", ""},
		// tpl of a values string
		{"tplchart", "", "ConfigMap", "", "data.host", "tplchart/values.yaml:1:1", "tplchart/templates/configmap.yaml:9:12"},
		{"tplchart", "", "ConfigMap", "", "metadata.labels.owner", "tplchart/values.yaml:6:3", ""},
		// a .tgz subchart: its templates are inside the archive
		{"tgzdep", "", "Deployment", "", "spec.template.spec.containers[0].args[1]", "tgzdep/values.yaml:2:3", "tgzdep/charts/cache-0.1.0.tgz"},
		// CRDs from crds/ are the file itself
		{"crdchart", "", "CustomResourceDefinition", "", "spec.names.kind", "crdchart/crds/widgets.yaml:8:5", ""},
		{"crdchart", "", "Widget", "", "spec.size", "crdchart/values.yaml:2:3", "crdchart/templates/widget.yaml:6:7"},
	}
	fsys := os.DirFS("testdata/repo")
	r := NewRenderer(fsys, manifest.Limits{})
	charts := map[string]*Chart{}
	for _, c := range cases {
		ch := charts[c.chart]
		if ch == nil {
			var err error
			if ch, err = LoadChart(fsys, c.chart, manifest.Limits{}); err != nil {
				t.Fatal(err)
			}
			charts[c.chart] = ch
		}
		req := Request{Target: c.chart, KubeVersion: "v1.37.0", IncludeCRDs: true}
		if c.values != "" {
			req.Sources = []Source{{File: c.values}}
		}
		out := r.Render(ch, req)
		var obj *manifest.Object
		for _, o := range out.Objects {
			if o.ID.Kind == c.kind && (c.name == "" || o.ID.Name == c.name) {
				obj = o
				break
			}
		}
		if obj == nil {
			t.Errorf("%s[%s]: no %s %s", c.chart, c.values, c.kind, c.name)
			continue
		}
		p := manifest.MustParsePath(c.path)
		if _, ok := obj.Get(p); !ok {
			t.Errorf("%s[%s] %s %s: the field is absent", c.chart, c.values, c.kind, c.path)
			continue
		}
		loc, exact := obj.Locate(p)
		if got := manifest.FormatLocation(loc); got != c.want || !exact {
			t.Errorf("%s[%s] %s %s: at %s (exact %v), want %s", c.chart, c.values, c.kind, c.path, got, exact, c.want)
		}
		if c.related == "" {
			continue
		}
		var rel []manifest.RelatedLocation
		if ro, ok := obj.Origin.(manifest.RelatedProvenance); ok {
			rel = ro.Related(p)
		}
		if len(rel) != 1 || manifest.FormatLocation(rel[0].Location) != c.related {
			t.Errorf("%s[%s] %s %s: related %v, want %s", c.chart, c.values, c.kind, c.path, rel, c.related)
		}
	}
}
