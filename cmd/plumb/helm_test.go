package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const chartRepo = "../../internal/render/helm/testdata/repo"

// TestRenderChartFlags: helm template's flags on plumb render.
func TestRenderChartFlags(t *testing.T) {
	code, out, errOut := plumb(t, "render", "--root", chartRepo, chartRepo+"/basic",
		"-f", chartRepo+"/basic/values-prod.yaml", "--set", "replicaCount=5", "--set-string", "image.tag=007",
		"--release-name", "shop", "--namespace", "shop")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		"# target: basic[values-prod.yaml,--set]\n",
		"name: shop-basic\n",
		"replicas: 5\n",
		`image: "ghcr.io/example/basic:007"`,
		"disk: ssd\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Thank you") {
		t.Error("NOTES.txt was rendered as an object")
	}
}

// TestRenderChartConvention: a chart renders with its defaults and once per
// values-*.yaml next to Chart.yaml; --show-origin blames values lines.
func TestRenderChartConvention(t *testing.T) {
	code, out, errOut := plumb(t, "render", "--root", chartRepo, chartRepo+"/basic", "--show-origin")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		"# target: basic\n",
		"# target: basic[values-prod.yaml]\n",
		"replicas: 2  # basic/values.yaml:1\n",
		"replicas: 3  # basic/values-prod.yaml:1\n",
		"memory: 256Mi  # basic/values-prod.yaml:8\n",
		"app.kubernetes.io/managed-by: Helm  # basic/templates/_helpers.tpl:17\n",
		"targetPort: http  # basic/templates/service.yaml:11\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestCheckChartFindings: findings on chart objects point at the values
// line, with the template line related; chart problems are findings, not
// exit 2.
func TestCheckChartFindings(t *testing.T) {
	code, out, errOut := plumb(t, "check", "--root", chartRepo, chartRepo+"/basic", chartRepo+"/requiredchart",
		"--format", "json", "--select", "C10002,E10001", "--env", "environment=prod")
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var rep struct {
		Findings []struct {
			RuleID   string `json:"rule_id"`
			Message  string
			Location struct {
				File string
				Line int
			}
			Related []struct {
				File    string
				Line    int
				Message string
			}
			Object     struct{ Target string }
			InputError bool `json:"input_error"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var sawReplicas, sawRequired bool
	for _, f := range rep.Findings {
		switch {
		case f.RuleID == "check/E10001" && f.Object.Target == "basic":
			sawReplicas = true
			if f.Location.File != "basic/values.yaml" || f.Location.Line != 1 {
				t.Errorf("E10001 at %s:%d, want basic/values.yaml:1", f.Location.File, f.Location.Line)
			}
			if len(f.Related) == 0 || f.Related[0].File != "basic/templates/deployment.yaml" || f.Related[0].Line != 8 {
				t.Errorf("E10001 related %+v, want basic/templates/deployment.yaml:8", f.Related)
			}
		case f.RuleID == "render/helm-template":
			sawRequired = true
			if f.Location.File != "requiredchart/templates/cm.yaml" || f.Location.Line != 6 || f.InputError {
				t.Errorf("required: %+v", f)
			}
		}
	}
	if !sawReplicas || !sawRequired {
		t.Errorf("findings lack E10001 on basic (%v) or the required value (%v):\n%s", sawReplicas, sawRequired, out)
	}
}
