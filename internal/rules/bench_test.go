package rules

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/plumb-ci/plumb/internal/bench"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/reference"
)

// benchRules are 50 rules of the kinds sites write: classification by kind
// and labels, loops over containers, numeric comparisons, enrichment, a few
// changes to objects, and findings on some objects.
func benchRules() string {
	var b strings.Builder
	kinds := []string{"Deployment", "Service", "ConfigMap", "StatefulSet", "Ingress"}
	for i := 0; i < 50; i++ {
		phase := []string{"preprocess", "main"}[i%2]
		if i%10 == 9 {
			phase = "early"
		}
		fmt.Fprintf(&b, "- uuid: bench-%02d\n  phase: %s\n  priority: %d\n", i, phase, i*37%1000)
		switch {
		case phase == "early":
			fmt.Fprintf(&b, `  conditions:
    - {op: matches, args: {value: "{inventory[source][file]}", regex: "apps/app-%d.*"}}
  actions:
    - {op: set-plugin-data, args: {path: early%d, value: "{inventory[source][kind]}"}}
`, i, i)
		case i%5 == 0:
			fmt.Fprintf(&b, `  conditions:
    - {op: eq, args: {values: ["{node.kind}", Deployment]}}
    - op: matches
      args: {value: "{item[image]}", regex: "registry.example.com/.*:v[0-9]+"}
      loop: "{node.spec.template.spec.containers}"
      multiple: all
  actions:
    - {op: add-trait, args: {name: pinned-%d}}
`, i)
		case i%5 == 1:
			fmt.Fprintf(&b, `  conditions:
    - {op: one-of, args: {value: "{node.kind}", values: [Deployment, StatefulSet]}}
    - {op: "!is-empty", args: {value: "{node.spec.replicas}"}}
    - {op: lt, args: {values: ["{node.spec.replicas}", %d]}}
  actions:
    - {op: log, args: {msg: "{node.metadata.name} runs {node.spec.replicas} replicas", level: warning, path: spec.replicas}}
`, i%4+1)
		case i%5 == 2:
			fmt.Fprintf(&b, `  conditions:
    - {op: eq, args: {values: ["{node.kind}", %s]}}
    - {op: is-empty, args: {value: "{node.metadata.labels[team]}"}}
  actions:
    - {op: set-plugin-data, args: {path: owner.team%d, value: "{node.metadata.namespace}"}}
`, kinds[i%len(kinds)], i)
		case i%5 == 3:
			fmt.Fprintf(&b, `  conditions:
    - {op: contains, args: {value: "{node.metadata.name}", regex: "-%d$"}}
  actions:
    - {op: set-attribute, args: {path: /metadata/labels/bench%d, value: "yes"}}
`, i%10, i)
		default:
			fmt.Fprintf(&b, `  conditions:
    - {op: eq, args: {values: ["{node.metadata.labels[app]}", "app-%d"]}}
    - {op: "!eq", args: {values: ["{plugin_data[environment]}", dev]}}
  actions:
    - {op: extend-plugin-data, args: {path: matched, value: bench-%d, unique: true}}
`, i, i)
		}
	}
	return b.String()
}

// benchTargets builds 10,000 objects in 100 render targets.
func benchTargets(b testing.TB) []*render.Target {
	var targets []*render.Target
	for t := 0; t < 100; t++ {
		var src strings.Builder
		for i := 0; i < 25; i++ {
			fmt.Fprintf(&src, `---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-%d
  namespace: ns-%d
  labels: {app: app-%d, tier: web}
spec:
  replicas: %d
  template:
    spec:
      containers:
        - {name: web, image: "registry.example.com/web:v%d"}
        - {name: proxy, image: "envoy:1.%d"}
---
apiVersion: v1
kind: Service
metadata: {name: web-%d, namespace: ns-%d, labels: {app: app-%d}}
spec: {type: ClusterIP, ports: [{port: 80}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg-%d, namespace: ns-%d}
data: {mode: fast, level: "3"}
---
apiVersion: v1
kind: Secret
metadata: {name: creds-%d, namespace: ns-%d}
stringData: {password: p-%d-%d}
`, i, t, i%50, i%5, i, i, i, t, i%50, i, t, i, t, t, i)
		}
		name := fmt.Sprintf("apps/app-%d/overlays/prod", t)
		docs, probs := manifest.Parse(name+"/all.yaml", []byte(src.String()), manifest.Limits{})
		if len(probs) > 0 {
			b.Fatal(probs)
		}
		tg := &render.Target{Name: name, Kind: render.KindPlain}
		for _, d := range docs {
			objs, _ := d.Objects(name)
			tg.Objects = append(tg.Objects, objs...)
		}
		targets = append(targets, tg)
	}
	return targets
}

// BenchmarkRules runs 50 user rules (plus the built-in ones) over 10,000
// objects through all three phases. Target: under 1 s on 2 cores.
func BenchmarkRules(b *testing.B) {
	srcs, _ := BuiltInSources(reference.Rules)
	srcs = append(srcs, Source{Name: "bench.yaml", Data: []byte(benchRules())})
	set := Load(srcs, manifest.Limits{})
	if set.Errors() > 0 {
		b.Fatal(set.Problems)
	}
	base := benchTargets(b)
	objects := 0
	for _, t := range base {
		objects += len(t.Objects)
	}
	engine := NewEngine(set, Options{})
	b.ReportAllocs()
	b.ResetTimer()
	var findings int
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		targets := make([]*render.Target, len(base))
		var docs []*manifest.Document
		for k, t := range base {
			c := *t
			c.Objects = append([]*manifest.Object(nil), t.Objects...)
			targets[k] = &c
			docs = append(docs, docsOf(&c)...)
		}
		b.StartTimer()
		start := bench.CPUTime()
		run := engine.NewRun()
		run.Early(docs)
		run.Preprocess(targets)
		run.Main(targets, nil)
		findings = len(run.Findings())
		_ = run.Section()
		cpu += bench.CPUTime() - start
	}
	b.StopTimer()
	// CPU seconds per operation (both cores added up): unlike ns/op it
	// does not grow when other processes compete for the cores.
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(objects)*float64(b.N)/b.Elapsed().Seconds(), "objects/s")
	b.ReportMetric(float64(len(set.Rules)), "rules")
	b.ReportMetric(float64(findings), "findings")
	b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "procs")
}
