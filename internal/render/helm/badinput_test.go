package helm

import (
	"os"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// TestBadInput: what a chart gets wrong is a problem at the line to edit,
// with Helm's message and what to do.
func TestBadInput(t *testing.T) {
	cases := []struct {
		chart, values, kube string
		rule, at, message   string
	}{
		{"bad/parseerror", "", "", RuleTemplate, "bad/parseerror/templates/cm.yaml:5", "the template does not parse: unclosed action started at bad/parseerror/templates/cm.yaml:4"},
		{"bad/schema", "bad/schema/values-prod.yaml", "", RuleValues, "bad/schema/values-prod.yaml:1:1", "schema: values break values.schema.json at /replicas: got string, want integer"},
		{"bad/failing", "", "", RuleTemplate, "bad/failing/templates/cm.yaml:2:4", "template failed: mode legacy was removed in 2.0: set mode: modern"},
		{"requiredchart", "", "", RuleTemplate, "requiredchart/templates/cm.yaml:6:11", "template failed: database.host is required: set it in your values file"},
		{"lookupchart", "", "v1.20.0", RuleChart, "lookupchart/Chart.yaml:4:1", "chart requires kubeVersion: >=1.25.0-0 which is incompatible with Kubernetes v1.20.0"},
	}
	fsys := os.DirFS("testdata/repo")
	r := NewRenderer(fsys, manifest.Limits{})
	for _, c := range cases {
		ch, err := LoadChart(fsys, c.chart, manifest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		req := Request{Target: c.chart, KubeVersion: "v1.37.0"}
		if c.kube != "" {
			req.KubeVersion = c.kube
		}
		if c.values != "" {
			req.Sources = []Source{{File: c.values}}
		}
		out := r.Render(ch, req)
		if len(out.Objects) != 0 || len(out.Problems) != 1 {
			t.Errorf("%s: %d objects, problems %v; want one problem", c.chart, len(out.Objects), out.Problems)
			continue
		}
		p := out.Problems[0]
		if p.Rule != c.rule || manifest.FormatLocation(p.Location) != c.at || !strings.HasPrefix(p.Message, c.message) || p.Input || p.Level != "error" {
			t.Errorf("%s: %s %s: %q (input %v, %s)\nwant %s %s: %q", c.chart, p.Rule, manifest.FormatLocation(p.Location), p.Message, p.Input, p.Level, c.rule, c.at, c.message)
		}
		if strings.ContainsAny(p.Key, "0123456789") && strings.Contains(p.Key, ".yaml:") {
			t.Errorf("%s: the key %q holds a line number (fingerprints must survive edits)", c.chart, p.Key)
		}
	}
}

// TestSchemaDefaultsPass: the chart's own values satisfy its schema.
func TestSchemaDefaultsPass(t *testing.T) {
	fsys := os.DirFS("testdata/repo")
	ch, err := LoadChart(fsys, "bad/schema", manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	out := NewRenderer(fsys, manifest.Limits{}).Render(ch, Request{Target: "x", KubeVersion: "v1.37.0"})
	if len(out.Problems) != 0 || len(out.Objects) != 1 {
		t.Fatalf("problems %v, %d objects", out.Problems, len(out.Objects))
	}
}
