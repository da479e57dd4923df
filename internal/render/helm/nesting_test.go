package helm

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// nestChart is a chart of one template, cm.yaml, and _helpers.tpl.
func nestChart(cm, helpers, values string) fstest.MapFS {
	return fstest.MapFS{
		"c/Chart.yaml":             {Data: []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n")},
		"c/values.yaml":            {Data: []byte(values)},
		"c/templates/_helpers.tpl": {Data: []byte(helpers)},
		"c/templates/cm.yaml":      {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: " + cm + "\n")},
	}
}

// cycleHelpers defines h0 … h(n-1), each calling the next (call is
// include or template), the last h0.
func cycleHelpers(n int, call string) string {
	var h strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&h, "{{- define \"h%d\" -}}{{ %s \"h%d\" . }}{{- end -}}\n", i, call, (i+1)%n)
	}
	return h.String()
}

func renderNest(t testing.TB, fsys fstest.MapFS) (Output, time.Duration) {
	t.Helper()
	limits := manifest.Limits{MaxTargetTime: 20 * time.Second}
	ch, err := LoadChart(fsys, "c", limits)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out := NewRenderer(fsys, limits).Render(ch, Request{Target: "c", KubeVersion: "v1.37.0"})
	return out, time.Since(start)
}

// Templates that call each other without end stop at once, with one
// short message at the call that closes the cycle, which it names:
// include at Helm's own limit, {{template}} at text/template's, and what
// Helm leaves to the goroutine's stack (a fatal crash) at plumb's.
func TestNestingStops(t *testing.T) {
	cases := []struct {
		name        string
		cm, helpers string
		values      string
		at, message string
	}{
		{"an include of itself", `{{ include "h0" . | quote }}`, cycleHelpers(1, "include"), "",
			"c/templates/_helpers.tpl:1:22",
			`template failed: include "h0" is nested in itself more than 1000 times, Helm's limit: the template calls itself without end (h0 -> h0); make the recursion stop`},
		{"ten helpers including each other", `{{ include "h0" . | quote }}`, cycleHelpers(10, "include"), "",
			"c/templates/_helpers.tpl:10:22",
			`template failed: include "h0" is nested in itself more than 1000 times, Helm's limit: the templates call each other in a cycle without end (h0 -> h1 -> h2 -> h3 -> h4 -> … 1 more … -> h6 -> h7 -> h8 -> h9 -> h0); make the recursion stop`},
		{"sixty helpers including each other", `{{ include "h0" . | quote }}`, cycleHelpers(60, "include"), "",
			"c/templates/_helpers.tpl:",
			`template failed: include "h`},
		{"ten helpers calling each other with template", `"{{ template "h0" . }}"`, cycleHelpers(10, "template"), "",
			"c/templates/_helpers.tpl:",
			`template failed: template "h`},
		{"tpl of itself", `{{ tpl .Values.x . }}`, "", "x: '{{ tpl .Values.x . }}'\n",
			"c/templates/cm.yaml:6:8",
			`template failed: tpl is called inside 100 tpl calls, plumb's limit (each copies the chart's templates): the template calls itself without end (tpl -> tpl); make the recursion stop`},
		{"tpl through an include", `{{ include "t" . }}`, `{{- define "t" -}}{{ tpl "{{ include \"t\" . }}" . }}{{- end -}}`, "",
			"c/templates/_helpers.tpl:1:21",
			`template failed: tpl is called inside 100 tpl calls, plumb's limit (each copies the chart's templates): the templates call each other in a cycle without end (tpl -> t -> tpl); make the recursion stop`},
		{"template chains inside an include cycle", `{{ include "i" . }}`,
			`{{- define "i" -}}{{ template "t0" . }}{{- end -}}` + "\n" +
				`{{- define "t0" -}}{{ template "t1" . }}{{- end -}}` + "\n" +
				`{{- define "t1" -}}{{ include "i" . }}{{- end -}}` + "\n", "",
			"c/templates/_helpers.tpl:3:22",
			`template failed: include "i" is nested in itself more than 1000 times, Helm's limit: the templates call each other in a cycle without end (i -> t0 -> t1 -> i)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, took := renderNest(t, nestChart(c.cm, c.helpers, c.values))
			if len(out.Problems) != 1 {
				t.Fatalf("problems %v, want one", out.Problems)
			}
			p := out.Problems[0]
			if at := manifest.FormatLocation(p.Location); !strings.HasPrefix(at, c.at) || !strings.HasPrefix(p.Message, c.message) || p.Rule != RuleTemplate {
				t.Errorf("%s: %s [%s]\nwant %s: %s", at, p.Message, p.Rule, c.at, c.message)
			}
			if len(p.Message) > 400 {
				t.Errorf("the message is %d bytes: %.400s", len(p.Message), p.Message)
			}
			if took > 5*time.Second {
				t.Errorf("the render took %v", took)
			}
		})
	}
}

// A cycle longer than nineteen helpers stops at plumb's limit of include
// and tpl calls, before Helm's; a chain of {{template}} at text/template's.
func TestNestingLimits(t *testing.T) {
	out, _ := renderNest(t, nestChart(`{{ include "h0" . | quote }}`, cycleHelpers(60, "include"), ""))
	want := `template failed: include "h20": 20000 include and tpl calls are running at once, plumb's limit: the templates call each other in a cycle without end (h20 -> h21 -> h22 -> h23 -> h24 -> … 51 more … -> h16 -> h17 -> h18 -> h19 -> h20); make the recursion stop`
	if len(out.Problems) != 1 || out.Problems[0].Message != want {
		t.Errorf("problems %v, want %q", out.Problems, want)
	}
	out, _ = renderNest(t, nestChart(`"{{ template "h0" . }}"`, cycleHelpers(10, "template"), ""))
	if len(out.Problems) != 1 || !strings.Contains(out.Problems[0].Message, "is nested 100000 templates deep, the limit (text/template's for {{template}}, counted across include and tpl): the templates call each other in a cycle without end (") {
		t.Errorf("problems %v", out.Problems)
	}
}

// Recursion that ends renders as Helm renders it, up to Helm's limit: a
// helper may be running 1001 times at once (the 1002nd include fails).
func TestNestingWithinHelmsLimit(t *testing.T) {
	helpers := `{{- define "r" -}}{{ if gt (int .) 0 }}{{ include "r" (sub (int .) 1) }}{{ else }}done{{ end }}{{- end -}}`
	for _, depth := range []int{1000, 1001} {
		cm := fmt.Sprintf(`{{ include "r" %d }}`, depth)
		fsys := nestChart(cm, helpers, "")
		out, _ := renderNest(t, fsys)
		_, helmErr := helmRender(t, fsys)
		ok := len(out.Problems) == 0 && len(out.Objects) == 1
		if ok != (helmErr == nil) {
			t.Errorf("depth %d: plumb problems %v; helm: %v", depth, out.Problems, helmErr)
		}
		if depth == 1001 && (len(out.Problems) != 1 || !strings.Contains(out.Problems[0].Message, `include "r" is nested in itself more than 1000 times, Helm's limit: the template calls itself without end (r -> r)`)) {
			t.Errorf("depth %d: problems %v", depth, out.Problems)
		}
	}
}

// helmRender renders the chart c of fsys with Helm's own engine.
func helmRender(t testing.TB, fsys fstest.MapFS) (map[string]string, error) {
	var files []*archive.BufferedFile
	for name, f := range fsys {
		files = append(files, &archive.BufferedFile{Name: strings.TrimPrefix(name, "c/"), Data: f.Data})
	}
	ch, err := loader.LoadFiles(files)
	if err != nil {
		t.Fatal(err)
	}
	caps := common.DefaultCapabilities.Copy()
	opts := common.ReleaseOptions{Name: "release-name", Namespace: "default", Revision: 1, IsInstall: true}
	vals, err := util.ToRenderValuesWithSchemaValidation(ch, map[string]any{}, opts, caps, false)
	if err != nil {
		t.Fatal(err)
	}
	return new(engine.Engine).RenderWithContext(context.Background(), ch, vals)
}

// Loops in templates that tpl's text defines are held to the time budget
// like the chart's own.
func TestTplDefinesAreBounded(t *testing.T) {
	fsys := nestChart(`{{ tpl "{{ define \"x\" }}{{ range until 1000000 }}{{ range until 1000000 }}{{ end }}{{ end }}{{ end }}{{ template \"x\" }}" . }}`, "", "")
	limits := manifest.Limits{MaxTargetTime: time.Second}
	ch, err := LoadChart(fsys, "c", limits)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out := NewRenderer(fsys, limits).Render(ch, Request{Target: "c", KubeVersion: "v1.37.0"})
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the render took %v", took)
	}
	if len(out.Problems) != 1 || !strings.Contains(out.Problems[0].Message, "the chart did not render within 1s") ||
		manifest.FormatLocation(out.Problems[0].Location) != "c/templates/cm.yaml:6:8" {
		t.Errorf("problems %v", out.Problems)
	}
}
