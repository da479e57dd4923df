package checks

import (
	"context"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// renderFiles loads files (path → YAML) as plumb check does: one render
// target per directory.
func renderFiles(t testing.TB, files map[string]string) []*render.Target {
	t.Helper()
	fs := fstest.MapFS{}
	for name, data := range files {
		fs[name] = &fstest.MapFile{Data: []byte(data)}
	}
	set := manifest.Load(fs, []string{"."}, manifest.LoadOptions{})
	for _, p := range set.Problems {
		t.Fatalf("fixture does not load: %v", p)
	}
	return render.Render(context.Background(), fs, set, render.Options{}).Targets
}

// gatherOn prepares a gatherer and runs it on the object named name (or on
// the first target when name is "").
func gatherOn(t *testing.T, targets []*render.Target, gatherer, arg string, tt TargetType, name string) gathered {
	t.Helper()
	f := &Fact{Name: "f", Gatherer: gatherer, Argument: arg}
	if err := prepareFact(f, tt); err != nil {
		t.Fatalf("prepare %s %q: %v", gatherer, arg, err)
	}
	for _, rt := range targets {
		idx := newTargetIndex(rt)
		if name == "" {
			return f.gather(&subject{target: idx})
		}
		for _, o := range rt.Objects {
			if o.ID.Name == name {
				return f.gather(&subject{obj: o, target: idx})
			}
		}
	}
	t.Fatalf("no object %s", name)
	return gathered{}
}

func TestParseQuantity(t *testing.T) {
	for in, want := range map[string]string{
		"500m": "1/2", "1": "1", "1.5": "3/2", "100Mi": "104857600", "1Gi": "1073741824", "2G": "2000000000",
		"1k": "1000", "2e3": "2000", "1E-3": "1/1000", "-1": "-1", "+2Ki": "2048", "250u": "1/4000", "3n": "3/1000000000", ".5": "1/2",
	} {
		r, err := parseQuantity(in)
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if w, _ := new(big.Rat).SetString(want); r.Cmp(w) != 0 {
			t.Errorf("%q = %s, want %s", in, r.RatString(), want)
		}
	}
	for _, in := range []string{"", "abc", "1Qi", "1..2", ".", "1e999", "Mi"} {
		if _, err := parseQuantity(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
	for in, want := range map[any]any{"1Gi": int64(1 << 30), "250m": 0.25, int64(3): int64(3), 2.0: int64(2)} {
		if got, err := quantityValue(in); err != nil || got != want {
			t.Errorf("quantityValue(%v) = %v (%T), %v; want %v", in, got, got, err, want)
		}
	}
}

func TestParseImage(t *testing.T) {
	for in, want := range map[string]ImageRef{
		"nginx":                               {"docker.io", "library/nginx", "", ""},
		"nginx:1.27":                          {"docker.io", "library/nginx", "1.27", ""},
		"bitnami/redis:7":                     {"docker.io", "bitnami/redis", "7", ""},
		"registry.example.com/shop/web:1.4.2": {"registry.example.com", "shop/web", "1.4.2", ""},
		"localhost:5000/app@sha256:abc":       {"localhost:5000", "app", "", "sha256:abc"},
		"localhost/app":                       {"localhost", "app", "", ""},
		"ghcr.io/o/r:v1@sha256:def":           {"ghcr.io", "o/r", "v1", "sha256:def"},
		"quay.io:443/ns/img":                  {"quay.io:443", "ns/img", "", ""},
		"":                                    {},
	} {
		if got := ParseImage(in); got != want {
			t.Errorf("%q = %+v, want %+v", in, got, want)
		}
	}
}

const workloads = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      hostNetwork: true
      initContainers:
        - name: init
          image: busybox
      containers:
        - name: web
          image: nginx:1.27
          resources: {limits: {memory: 1Gi}}
          ports: [{containerPort: 80, hostPort: 8080}, {containerPort: 81}]
        - name: side
          image: ghcr.io/o/side@sha256:abc
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: shop}
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers: [{name: job, image: job:1}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: shop}
spec: {selector: {app: web}}
`

func TestManifestGatherer(t *testing.T) {
	targets := renderFiles(t, map[string]string{"app/w.yaml": workloads})
	for _, c := range []struct {
		arg, obj  string
		value     any
		path      string
		items     []string
		errPrefix string
	}{
		{arg: "metadata.name", obj: "web", value: "web", path: "metadata.name"},
		{arg: "$pod.hostNetwork", obj: "web", value: true, path: "spec.template.spec.hostNetwork"},
		{arg: "$pod.hostPID?", obj: "web", value: nil, path: "spec.template.spec.hostPID"},
		{arg: "$pod.hostPID", obj: "web", errPrefix: "manifest-value-not-found: Deployment has no field spec.template.spec.hostPID"},
		{arg: "$pod.containers[*].name", obj: "nightly", value: []any{"job"}, path: "spec.jobTemplate.spec.template.spec.containers", items: []string{"spec.jobTemplate.spec.template.spec.containers[0].name"}},
		{arg: "$pod.containers", obj: "svc", errPrefix: "manifest-not-a-workload: Service has no pod template"},
		{arg: "$pod.containers[*].ports[*].hostPort?", obj: "web", value: []any{int64(8080), nil}, items: []string{
			"spec.template.spec.containers[0].ports[0].hostPort", "spec.template.spec.containers[0].ports[1].hostPort"}},
		{arg: "$pod.containers[*].resources.limits.memory", obj: "web", errPrefix: "manifest-value-not-found: Deployment has no field spec.template.spec.containers[1].resources"},
		{arg: "$pod.volumes[*].hostPath?", obj: "web", value: []any{}},
		{arg: "spec.selector[*]", obj: "svc", errPrefix: "manifest-not-a-list"},
		{arg: `metadata["name"]`, obj: "svc", value: "svc"},
	} {
		g := gatherOn(t, targets, "manifest@v1", c.arg, TargetObject, c.obj)
		if c.errPrefix != "" {
			if g.err == nil || !strings.HasPrefix(g.err.Error(), c.errPrefix) {
				t.Errorf("%s on %s: err %v, want %q", c.arg, c.obj, g.err, c.errPrefix)
			}
			continue
		}
		if g.err != nil {
			t.Errorf("%s on %s: %v", c.arg, c.obj, g.err)
			continue
		}
		if !reflect.DeepEqual(g.value, c.value) {
			t.Errorf("%s on %s = %#v, want %#v", c.arg, c.obj, g.value, c.value)
		}
		if c.path != "" && g.at.path.String() != c.path {
			t.Errorf("%s on %s: path %s, want %s", c.arg, c.obj, g.at.path, c.path)
		}
		var items []string
		for _, it := range g.items {
			items = append(items, it.at.path.String())
		}
		if c.items != nil && !reflect.DeepEqual(items, c.items) {
			t.Errorf("%s on %s: items %v, want %v", c.arg, c.obj, items, c.items)
		}
	}
	for _, bad := range []string{"$other.x", "$podx", "spec..x", "a[x]"} {
		if err := prepareFact(&Fact{Gatherer: "manifest@v1", Argument: bad}, TargetObject); err == nil {
			t.Errorf("argument %q accepted", bad)
		}
	}
}

func TestWorkloadGatherers(t *testing.T) {
	targets := renderFiles(t, map[string]string{"app/w.yaml": workloads})
	g := gatherOn(t, targets, "containers@v1", "all", TargetObject, "web")
	names := []any{}
	for _, c := range g.value.([]any) {
		m := c.(map[string]any)
		names = append(names, m["name"], m["init"])
	}
	if !reflect.DeepEqual(names, []any{"init", true, "web", false, "side", false}) {
		t.Errorf("containers = %v", names)
	}
	if g.items[1].at.path.String() != "spec.template.spec.containers[0]" {
		t.Errorf("item path %s", g.items[1].at.path)
	}
	if g := gatherOn(t, targets, "containers@v1", "regular", TargetObject, "nightly"); len(g.value.([]any)) != 1 {
		t.Errorf("cronjob containers = %v", g.value)
	}
	if g := gatherOn(t, targets, "containers@v1", "", TargetObject, "svc"); g.err == nil || g.err.Type != "containers-not-a-workload" {
		t.Errorf("service containers: %v", g.err)
	}
	img := gatherOn(t, targets, "image@v1", "side", TargetObject, "web")
	if m := img.value.(map[string]any); m["registry"] != "ghcr.io" || m["digest"] != "sha256:abc" || img.at.path.String() != "spec.template.spec.containers[1].image" {
		t.Errorf("image side = %v at %s", img.value, img.at.path)
	}
	if g := gatherOn(t, targets, "image@v1", "nope", TargetObject, "web"); g.err == nil || g.err.Type != "image-container-not-found" {
		t.Errorf("missing container: %v", g.err)
	}
	if g := gatherOn(t, targets, "image@v1", "*", TargetObject, "web"); len(g.items) != 3 || g.items[0].at.path.String() != "spec.template.spec.initContainers[0].image" {
		t.Errorf("images = %v", g.items)
	}
	q := gatherOn(t, targets, "quantity@v1", "$pod.containers[*].resources.limits.memory?", TargetObject, "web")
	if !reflect.DeepEqual(q.value, []any{int64(1 << 30), nil}) {
		t.Errorf("quantities = %v", q.value)
	}
	for _, bad := range []string{"containers@v1 both", "references@v1 volumes"} {
		g, a, _ := strings.Cut(bad, " ")
		if err := prepareFact(&Fact{Gatherer: g, Argument: a}, TargetObject); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

func TestReferencesGatherer(t *testing.T) {
	targets := renderFiles(t, map[string]string{"app/p.yaml": `apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  imagePullSecrets: [{name: pull}]
  volumes:
    - {name: a, configMap: {name: cm-vol}}
    - {name: b, secret: {secretName: sec-vol, optional: true}}
    - name: c
      projected:
        sources:
          - configMap: {name: cm-proj}
          - secret: {name: sec-proj}
  containers:
    - name: x
      env:
        - {name: A, valueFrom: {configMapKeyRef: {name: cm-env, key: a}}}
        - {name: B, valueFrom: {secretKeyRef: {name: sec-env, key: b}}}
        - {name: C, value: plain}
      envFrom:
        - configMapRef: {name: cm-from}
        - secretRef: {name: sec-from, optional: true}
`})
	g := gatherOn(t, targets, "references@v1", "", TargetObject, "p")
	var got []string
	for i, r := range g.value.([]any) {
		m := r.(map[string]any)
		got = append(got, m["kind"].(string)+"/"+m["name"].(string)+"/"+map[bool]string{true: "opt", false: "req"}[m["optional"].(bool)]+"@"+g.items[i].at.path.String())
	}
	want := []string{
		"ConfigMap/cm-vol/req@spec.volumes[0].configMap.name",
		"Secret/sec-vol/opt@spec.volumes[1].secret.secretName",
		"ConfigMap/cm-proj/req@spec.volumes[2].projected.sources[0].configMap.name",
		"Secret/sec-proj/req@spec.volumes[2].projected.sources[1].secret.name",
		"ConfigMap/cm-env/req@spec.containers[0].env[0].valueFrom.configMapKeyRef.name",
		"Secret/sec-env/req@spec.containers[0].env[1].valueFrom.secretKeyRef.name",
		"ConfigMap/cm-from/req@spec.containers[0].envFrom[0].configMapRef.name",
		"Secret/sec-from/opt@spec.containers[0].envFrom[1].secretRef.name",
		"Secret/pull/req@spec.imagePullSecrets[0].name",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("references:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if g := gatherOn(t, targets, "references@v1", "secret", TargetObject, "p"); len(g.value.([]any)) != 5 {
		t.Errorf("secret references = %v", g.value)
	}
}

const objectsFixture = `apiVersion: v1
kind: ConfigMap
metadata: {name: b, namespace: one, labels: {app: web, tier: front}}
data:
  app.properties: |
    # comment
    db.password = hunter2
    url: http://x\
      /y
  settings.json: '{"replicas": 3, "ratio": 0.5, "name": "x"}'
  broken.json: '{"a": '
  config.ini: |
    top = 1
    [server]
    port = 8080 ; not a comment in ini values here
  env.env: |
    export A=1
    B="two words"
  data.yaml: |
    a: [1, 2]
  text.txt: plain
  number: 3
---
apiVersion: v1
kind: ConfigMap
metadata: {name: a, namespace: two, annotations: {team: x}}
data: {k: v}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: b, namespace: two}
data: {k: v}
---
apiVersion: v1
kind: Secret
metadata: {name: s, namespace: one}
stringData: {password: hunter2}
`

func TestObjectsAndCountGatherers(t *testing.T) {
	targets := renderFiles(t, map[string]string{"app/o.yaml": objectsFixture})
	names := func(g gathered) []string {
		var out []string
		for _, o := range g.objects {
			out = append(out, o.ID.Namespace+"/"+o.ID.Name)
		}
		return out
	}
	for _, c := range []struct {
		arg  string
		want []string
	}{
		{"kind=ConfigMap", []string{"one/b", "two/a", "two/b"}},
		{"kind=ConfigMap,namespace=two", []string{"two/a", "two/b"}},
		{"kind=ConfigMap|Secret,name=b", []string{"one/b", "two/b"}},
		{"label:app=web", []string{"one/b"}},
		{"label:tier", []string{"one/b"}},
		{"label:app=api", nil},
		{"annotation:team", []string{"two/a"}},
		{"apiVersion=v1,kind=Secret", []string{"one/s"}},
		{"", []string{"one/b", "two/a", "two/b", "one/s"}},
	} {
		if got := names(gatherOn(t, targets, "objects@v1", c.arg, TargetGroup, "")); !reflect.DeepEqual(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
			if c.arg != "" || len(got) != 4 {
				t.Errorf("objects %q = %v, want %v", c.arg, got, c.want)
			}
		}
	}
	// $namespace and $name resolve against the target object.
	if got := names(gatherOn(t, targets, "objects@v1", "kind=ConfigMap,namespace=$namespace", TargetObject, "a")); !reflect.DeepEqual(got, []string{"two/a", "two/b"}) {
		t.Errorf("$namespace = %v", got)
	}
	g := gatherOn(t, targets, "objects@v1", "kind=ConfigMap,namespace=two,field=metadata.name", TargetGroup, "")
	if !reflect.DeepEqual(g.value, []any{"a", "b"}) {
		t.Errorf("field= projection = %v", g.value)
	}
	if c := gatherOn(t, targets, "count@v1", "kind=ConfigMap", TargetGroup, ""); c.value != int64(3) {
		t.Errorf("count = %v", c.value)
	}
	// Secrets are seen with their values redacted.
	s := gatherOn(t, targets, "objects@v1", "kind=Secret", TargetGroup, "")
	if sd := s.value.([]any)[0].(map[string]any)["stringData"].(map[string]any); sd["password"] != manifest.Redacted {
		t.Errorf("secret value leaked into a fact: %v", sd)
	}
	for _, bad := range []struct {
		arg string
		tt  TargetType
	}{
		{"kind", TargetObject}, {"colour=red", TargetObject}, {"namespace=$namespace", TargetGroup},
		{"name=$other", TargetObject}, {"field=$pod.x", TargetObject},
	} {
		if err := prepareFact(&Fact{Gatherer: "objects@v1", Argument: bad.arg}, bad.tt); err == nil {
			t.Errorf("selector %q accepted for %s", bad.arg, bad.tt)
		}
	}
	if err := prepareFact(&Fact{Gatherer: "count@v1", Argument: "field=metadata.name"}, TargetGroup); err == nil {
		t.Error("count@v1 accepted field=")
	}
}

// names=source: objects@v1 returns each object with the name written in its
// manifest (kustomize's namePrefix, nameSuffix and generator hash undone),
// while the selector's name= still matches the rendered name and the
// objects themselves, shared with every other check, keep theirs.
func TestObjectsGathererSourceNames(t *testing.T) {
	targets := renderFiles(t, map[string]string{
		"base/kustomization.yaml": "resources: [web.yaml]\nconfigMapGenerator:\n  - name: settings\n    literals: [a=1]\n",
		"base/web.yaml":           "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n",
		"dev/kustomization.yaml":  "namePrefix: dev-\nnameSuffix: -x\nresources: [../base]\n",
	})
	metaNames := func(g gathered) []string {
		var out []string
		for _, v := range g.value.([]any) {
			out = append(out, v.(map[string]any)["metadata"].(map[string]any)["name"].(string))
		}
		return out
	}
	rendered := metaNames(gatherOn(t, targets, "objects@v1", "kind=Deployment|ConfigMap", TargetGroup, ""))
	if len(rendered) != 2 || !strings.HasPrefix(rendered[0], "dev-settings-x-") || rendered[1] != "dev-web-x" {
		t.Fatalf("rendered names = %v", rendered)
	}
	if got := metaNames(gatherOn(t, targets, "objects@v1", "kind=Deployment|ConfigMap,names=source", TargetGroup, "")); !reflect.DeepEqual(got, []string{"settings", "web"}) {
		t.Errorf("names=source = %v, want [settings web]", got)
	}
	g := gatherOn(t, targets, "objects@v1", "kind=Deployment,name=dev-web-x,names=source,field=metadata.name", TargetGroup, "")
	if !reflect.DeepEqual(g.value, []any{"web"}) {
		t.Errorf("name= with names=source and field= = %v, want [web]", g.value)
	}
	if got := metaNames(gatherOn(t, targets, "objects@v1", "kind=Deployment,names=rendered", TargetGroup, "")); !reflect.DeepEqual(got, []string{"dev-web-x"}) {
		t.Errorf("names=rendered = %v", got)
	}
	for _, o := range targets[0].Objects {
		if name := o.Content["metadata"].(map[string]any)["name"]; name != o.ID.Name {
			t.Errorf("names=source changed the object itself: %v, id %s", name, o.ID.Name)
		}
	}
	for _, bad := range []string{"names=written", "names="} {
		err := prepareFact(&Fact{Gatherer: "objects@v1", Argument: bad}, TargetGroup)
		if err == nil || !strings.Contains(err.Error(), "want names=source") {
			t.Errorf("objects@v1 %q: %v", bad, err)
		}
	}
	if err := prepareFact(&Fact{Gatherer: "count@v1", Argument: "names=source"}, TargetGroup); err == nil || !strings.Contains(err.Error(), "only objects@v1") {
		t.Errorf("count@v1 names=source: %v", err)
	}
}

func TestConfigMapFileGatherer(t *testing.T) {
	targets := renderFiles(t, map[string]string{"app/o.yaml": objectsFixture})
	for _, c := range []struct {
		arg, obj string
		tt       TargetType
		want     any
		errType  string
	}{
		// A file's credential keys are secrets: checks see that they are set.
		{arg: "one/b/app.properties", want: map[string]any{"db.password": manifest.Redacted, "url": "http://x/y"}},
		{arg: "one/b/settings.json", want: map[string]any{"replicas": int64(3), "ratio": 0.5, "name": "x"}},
		{arg: "one/b/config.ini", want: map[string]any{"top": "1", "server": map[string]any{"port": "8080 ; not a comment in ini values here"}}},
		{arg: "one/b/env.env", want: map[string]any{"A": "1", "B": "two words"}},
		{arg: "one/b/data.yaml", want: map[string]any{"a": []any{int64(1), int64(2)}}},
		{arg: "one/b/text.txt", want: "plain"},
		{arg: "one/b/settings.json:text", want: `{"replicas": 3, "ratio": 0.5, "name": "x"}`},
		{arg: "one/b/broken.json", errType: "configmap-file-parse-error"},
		{arg: "one/b/number", errType: "configmap-file-parse-error"},
		{arg: "one/b/missing", errType: "configmap-file-not-found"},
		{arg: "b/k", errType: "configmap-file-ambiguous"},
		{arg: "a/k", want: "v"},
		{arg: "b/k", obj: "a", tt: TargetObject, want: "v"},
		{arg: "$self/k", obj: "a", tt: TargetObject, want: "v"},
		{arg: "$self/*.env", obj: "b", tt: TargetObject, want: map[string]any{"env.env": map[string]any{"A": "1", "B": "two words"}}},
		{arg: "$self/k", obj: "s", tt: TargetObject, errType: "configmap-file-not-a-configmap"},
	} {
		tt := c.tt
		if tt == "" {
			tt = TargetGroup
		}
		g := gatherOn(t, targets, "configmap_file@v1", c.arg, tt, c.obj)
		if c.errType != "" {
			if g.err == nil || g.err.Type != c.errType {
				t.Errorf("%s: err %v, want %s", c.arg, g.err, c.errType)
			}
			continue
		}
		if g.err != nil {
			t.Errorf("%s: %v", c.arg, g.err)
			continue
		}
		if !reflect.DeepEqual(g.value, c.want) {
			t.Errorf("%s = %#v, want %#v", c.arg, g.value, c.want)
		}
	}
	g := gatherOn(t, targets, "configmap_file@v1", "one/b/settings.json", TargetGroup, "")
	if loc, _ := g.at.obj.Locate(g.at.path); loc.Line != 10 {
		t.Errorf("file fact located at %+v, want line 10", loc)
	}
	for _, bad := range []string{"nokey", "a/b/c/d", "a/k:xml", "a/[x"} {
		if err := prepareFact(&Fact{Gatherer: "configmap_file@v1", Argument: bad}, TargetObject); err == nil {
			t.Errorf("argument %q accepted", bad)
		}
	}
	if err := prepareFact(&Fact{Gatherer: "configmap_file@v1", Argument: "$self/k"}, TargetGroup); err == nil {
		t.Error("$self accepted on a group check")
	}
}

func TestFileFormatErrors(t *testing.T) {
	for _, c := range []struct{ format, raw, want string }{
		{"ini", "[open\n", "invalid ini at line 1: section header"},
		{"ini", "just words\n", "invalid ini at line 1"},
		{"env", "NOEQUALS\n", "invalid env file at line 1"},
		{"json", "{} {}", "more than one value"},
		{"yaml", "a: [\n", "invalid YAML at line"},
		{"properties", `k = \u12`, "truncated \\u escape"},
	} {
		if _, err := parseFile(c.format, c.raw); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: %v, want %q", c.format, c.raw, err, c.want)
		}
	}
}

func TestGathererRegistry(t *testing.T) {
	want := []string{"autoscaler@v1", "configmap_file@v1", "containers@v1", "count@v1", "image@v1", "manifest@v1", "objects@v1", "quantity@v1", "references@v1"}
	if got := GathererNames(); !reflect.DeepEqual(got, want) {
		t.Errorf("gatherers = %v", got)
	}
	for _, spec := range []string{"manifest", "manifest@v1"} {
		if d, err := resolveGatherer(spec); err != nil || d.name != "manifest" {
			t.Errorf("%s: %v", spec, err)
		}
	}
	for _, spec := range []string{"manifest@1", "manifest@vx", "nope"} {
		if _, err := resolveGatherer(spec); err == nil {
			t.Errorf("%s resolved", spec)
		}
	}
}

func TestOptionalPodPathsOnAWorkloadWithoutPodSpec(t *testing.T) {
	targets := renderFiles(t, map[string]string{"app/d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: bare}\n"})
	if g := gatherOn(t, targets, "manifest@v1", "$pod.hostNetwork?", TargetObject, "bare"); g.err != nil || g.value != nil {
		t.Errorf("optional scalar: %v %v", g.value, g.err)
	}
	if g := gatherOn(t, targets, "quantity@v1", "$pod.containers[*].resources.limits.cpu?", TargetObject, "bare"); g.err != nil || len(g.value.([]any)) != 0 {
		t.Errorf("optional wildcard: %v %v", g.value, g.err)
	}
	if g := gatherOn(t, targets, "manifest@v1", "$pod.hostNetwork", TargetObject, "bare"); g.err == nil {
		t.Error("required path on a workload without pod spec")
	}
}
