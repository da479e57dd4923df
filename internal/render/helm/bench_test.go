package helm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/engine"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// benchChart writes a chart of 50 components (Deployment, Service,
// ConfigMap and PodDisruptionBudget each: 200 objects), the helpers they
// include, and 20 environment values files.
func benchChart(b *testing.B) string {
	dir := b.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("Chart.yaml", "apiVersion: v2\nname: bench\nversion: 1.0.0\nappVersion: \"1.0\"\n")
	write("templates/_helpers.tpl", `{{- define "bench.labels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
helm.sh/chart: {{ .root.Chart.Name }}-{{ .root.Chart.Version }}
{{- end }}
{{- define "bench.fullname" -}}
{{- printf "%s-%s" .root.Release.Name .name | trunc 63 | trimSuffix "-" }}
{{- end }}
`)
	var values strings.Builder
	values.WriteString("global:\n  registry: registry.example.com\ncomponents:\n")
	for i := range 50 {
		name := fmt.Sprintf("svc%02d", i)
		fmt.Fprintf(&values, "  %s:\n    replicas: %d\n    image: app%02d\n    tag: \"1.%d\"\n    port: %d\n    env:\n      LOG_LEVEL: info\n      FEATURE_%d: \"on\"\n    resources:\n      limits:\n        memory: 256Mi\n      requests:\n        cpu: 100m\n        memory: 128Mi\n    config:\n      app.properties: |\n        name=%s\n        threads=4\n",
			name, 1+i%3, i, i, 8000+i, i, name)
		write("templates/"+name+".yaml", fmt.Sprintf(`{{- $c := index .Values.components %q }}
{{- $ctx := dict "root" . "name" %q }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "bench.fullname" $ctx }}
  labels:
    {{- include "bench.labels" $ctx | nindent 4 }}
spec:
  replicas: {{ $c.replicas }}
  selector:
    matchLabels:
      app.kubernetes.io/name: %s
  template:
    metadata:
      labels:
        {{- include "bench.labels" $ctx | nindent 8 }}
    spec:
      containers:
        - name: app
          image: "{{ .Values.global.registry }}/{{ $c.image }}:{{ $c.tag | default .Chart.AppVersion }}"
          ports:
            - containerPort: {{ $c.port }}
          env:
            {{- range $k, $v := $c.env }}
            - name: {{ $k }}
              value: {{ $v | quote }}
            {{- end }}
          resources:
            {{- toYaml $c.resources | nindent 12 }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ include "bench.fullname" $ctx }}
  labels:
    {{- include "bench.labels" $ctx | nindent 4 }}
spec:
  ports:
    - port: {{ $c.port }}
      targetPort: {{ $c.port }}
  selector:
    app.kubernetes.io/name: %s
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "bench.fullname" $ctx }}-config
data:
  {{- toYaml $c.config | nindent 2 }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "bench.fullname" $ctx }}
spec:
  minAvailable: 1
  selector:
    matchLabels:
      app.kubernetes.io/name: %s
`, name, name, name, name, name))
	}
	write("values.yaml", values.String())
	for e := range 20 {
		var v strings.Builder
		fmt.Fprintf(&v, "global:\n  registry: registry-%d.example.com\ncomponents:\n", e)
		for i := 0; i < 50; i += 1 + e%3 {
			fmt.Fprintf(&v, "  svc%02d:\n    replicas: %d\n    tag: \"2.%d\"\n    resources:\n      limits:\n        memory: %dMi\n", i, 2+e%4, e, 256+64*(e%5))
		}
		write(fmt.Sprintf("values-env%02d.yaml", e), v.String())
	}
	return dir
}

// helmTemplate is `helm template DIR -f FILE --include-crds` through
// Helm's own library, the steps action.Install takes in client-only mode
// (the chart loaded from disk, dependencies processed, values coalesced and
// validated, the engine's render, manifests sorted into install order and
// printed), less its release bookkeeping. (Importing pkg/action itself
// would compile Kubernetes' client machinery into the test.)
func helmTemplate(b *testing.B, dir, valuesFile string) int {
	ch, err := loader.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	vals := map[string]any{}
	if valuesFile != "" {
		data, err := os.ReadFile(filepath.Join(dir, valuesFile))
		if err != nil {
			b.Fatal(err)
		}
		if vals, err = loader.LoadValues(strings.NewReader(string(data))); err != nil {
			b.Fatal(err)
		}
	}
	if err := chartutil.ProcessDependencies(ch, vals); err != nil {
		b.Fatal(err)
	}
	caps := common.DefaultCapabilities.Copy()
	kv, _ := common.ParseKubeVersion("v1.37.0")
	caps.KubeVersion = *kv
	opts := common.ReleaseOptions{Name: "release-name", Namespace: "default", Revision: 1, IsInstall: true}
	toRender, err := util.ToRenderValuesWithSchemaValidation(ch, vals, opts, caps, false)
	if err != nil {
		b.Fatal(err)
	}
	files, err := new(engine.Engine).RenderWithContext(context.Background(), ch, toRender)
	if err != nil {
		b.Fatal(err)
	}
	for k := range files {
		if strings.HasSuffix(k, "NOTES.txt") {
			delete(files, k)
		}
	}
	_, manifests, err := releaseutil.SortManifests(files, nil, releaseutil.InstallOrder)
	if err != nil {
		b.Fatal(err)
	}
	var out strings.Builder
	for _, m := range manifests {
		fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", m.Name, m.Content)
	}
	return strings.Count(out.String(), "\nkind: ")
}

// BenchmarkChartRender renders the 200-object chart with its defaults and
// each of its 20 values files, with Helm's library (helm template) and with
// plumb's renderer (provenance recorded), in the same iterations, and
// reports plumb's wall and CPU time as multiples of Helm's (the target is
// at most 1.5). The "-origins" metrics also resolve the provenance of
// every field of every object (what --show-origin does).
func BenchmarkChartRender(b *testing.B) {
	dir := benchChart(b)
	files := []string{""}
	for e := range 20 {
		files = append(files, fmt.Sprintf("values-env%02d.yaml", e))
	}
	var helmWall, helmCPU, plumbWall, plumbCPU, originWall, originCPU time.Duration
	objects := 0
	for b.Loop() {
		w, c := time.Now(), cpuTime()
		for _, f := range files {
			if n := helmTemplate(b, dir, f); n != 200 {
				b.Fatalf("helm rendered %d objects", n)
			}
		}
		helmWall += time.Since(w)
		helmCPU += cpuTime() - c

		w, c = time.Now(), cpuTime()
		fsys := os.DirFS(dir)
		ch, err := LoadChart(fsys, ".", manifest.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		r := NewRenderer(fsys, manifest.Limits{})
		var outs []Output
		for _, f := range files {
			req := Request{Target: f, KubeVersion: "v1.37.0", IncludeCRDs: true}
			if f != "" {
				req.Sources = []Source{{File: f}}
			}
			out := r.Render(ch, req)
			if len(out.Objects) != 200 || len(out.Problems) > 0 {
				b.Fatalf("%d objects, %v", len(out.Objects), out.Problems)
			}
			outs = append(outs, out)
		}
		plumbWall += time.Since(w)
		plumbCPU += cpuTime() - c

		w, c = time.Now(), cpuTime()
		for _, out := range outs {
			for _, o := range out.Objects {
				objects++
				locateAll(o, o.Content, nil)
			}
		}
		originWall += time.Since(w)
		originCPU += cpuTime() - c
	}
	b.ReportMetric(float64(plumbWall)/float64(helmWall), "x-helm-wall")
	b.ReportMetric(float64(plumbCPU)/float64(helmCPU), "x-helm-cpu")
	b.ReportMetric(float64(plumbWall+originWall)/float64(helmWall), "x-helm-wall-origins")
	b.ReportMetric(float64(plumbCPU+originCPU)/float64(helmCPU), "x-helm-cpu-origins")
	b.ReportMetric(helmWall.Seconds()/float64(b.N), "helm-s/op")
	b.ReportMetric(plumbWall.Seconds()/float64(b.N), "plumb-s/op")
	b.ReportMetric(float64(objects)/(plumbWall+originWall).Seconds(), "objects/s")
}

// locateAll resolves every field of an object.
func locateAll(o *manifest.Object, v any, p manifest.Path) {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			locateAll(o, c, p.Child(manifest.Key(k)))
		}
	case []any:
		for i, c := range t {
			locateAll(o, c, p.Child(manifest.Index(i)))
		}
	default:
		o.Locate(p)
	}
}
