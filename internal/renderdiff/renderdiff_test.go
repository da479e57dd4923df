package renderdiff

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// target parses YAML documents into a plain render target.
func target(t *testing.T, name, yaml string) *render.Target {
	t.Helper()
	docs, problems := manifest.Parse(name+"/all.yaml", []byte(yaml), manifest.Limits{})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	tg := &render.Target{Name: name, Kind: render.KindPlain}
	for _, d := range docs {
		objs, _ := d.Objects(name)
		tg.Objects = append(tg.Objects, objs...)
	}
	return tg
}

const baseWeb = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  template:
    spec:
      containers:
        - name: web
          image: registry.example.com/web:1.0
          env: [{name: MODE, value: prod}]
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: shop}
stringData:
  password: hunter2
  user: admin
---
apiVersion: v1
kind: ConfigMap
metadata: {name: gone, namespace: shop}
data: {a: "1"}
`

const headWeb = `apiVersion: apps/v1
kind: Deployment
metadata: {namespace: shop, name: web}
spec:
  template:
    spec:
      containers:
        - image: registry.example.com/web:1.1
          name: web
          env: [{name: MODE, value: prod}]
  replicas: 3
---
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: shop}
stringData:
  password: correct-horse-battery-staple
  user: admin
  token: s3cr3t-token
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {ports: [{port: 80}]}
`

func TestPatchChangeShowsExactlyTheChangedFields(t *testing.T) {
	base := []*render.Target{
		target(t, "apps/web", baseWeb),
		target(t, "apps/same", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {k: v}\n"),
		target(t, "apps/old", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"),
	}
	head := []*render.Target{
		target(t, "apps/web", headWeb),
		// Same content, other key order and style: no difference.
		target(t, "apps/same", "kind: ConfigMap\napiVersion: v1\ndata:\n  k: \"v\"\nmetadata:\n  name: c\n"),
		target(t, "apps/new", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"),
	}
	got := Compute(base, head)
	if len(got) != 3 {
		t.Fatalf("%d targets: %+v", len(got), got)
	}
	if got[0].Name != "apps/new" || got[0].Status != TargetAdded || got[0].Added != 1 {
		t.Errorf("new target: %+v", got[0])
	}
	if got[1].Name != "apps/old" || got[1].Status != TargetRemoved || got[1].Removed != 1 {
		t.Errorf("old target: %+v", got[1])
	}
	web := got[2]
	if web.Name != "apps/web" || web.Status != TargetChanged || web.Changed != 2 || web.Added != 1 || web.Removed != 1 {
		t.Errorf("web: %+v", web)
	}
	want := `--- base/ConfigMap/shop/gone
+++ /dev/null
@@ -1,7 +0,0 @@
-apiVersion: v1
-data:
-  a: "1"
-kind: ConfigMap
-metadata:
-  name: gone
-  namespace: shop
--- base/Deployment.apps/shop/web
+++ head/Deployment.apps/shop/web
@@ -4,12 +4,12 @@
   name: web
   namespace: shop
 spec:
-  replicas: 2
+  replicas: 3
   template:
     spec:
       containers:
         - env:
             - name: MODE
               value: prod
-          image: registry.example.com/web:1.0
+          image: registry.example.com/web:1.1
           name: web
--- base/Secret/shop/creds
+++ head/Secret/shop/creds
@@ -4,5 +4,6 @@
   name: creds
   namespace: shop
 stringData:
-  password: <redacted>
+  password: <redacted> (changed)
+  token: <redacted>
   user: <redacted>
--- /dev/null
+++ head/Service/shop/web
@@ -0,0 +1,8 @@
+apiVersion: v1
+kind: Service
+metadata:
+  name: web
+  namespace: shop
+spec:
+  ports:
+    - port: 80
`
	if web.Diff != want {
		t.Errorf("diff:\n%s\nwant:\n%s", web.Diff, want)
	}
	if web.LinesAdded != 12 || web.LinesRemoved != 10 {
		t.Errorf("lines +%d -%d", web.LinesAdded, web.LinesRemoved)
	}
	for _, secret := range []string{"hunter2", "correct-horse", "s3cr3t", "admin"} {
		if strings.Contains(web.Diff, secret) {
			t.Errorf("the diff leaks %q", secret)
		}
	}
}

// A Secret written by `kubectl get -o yaml` carries the last-applied
// annotation: the whole Secret as JSON, values included. It is masked like
// the values, and says when it changed; the object itself is not touched.
func TestLastAppliedAnnotationOfASecretIsMasked(t *testing.T) {
	secret := func(value, extra string) string {
		return "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  namespace: shop\n  annotations:\n" + extra +
			"    kubectl.kubernetes.io/last-applied-configuration: |\n      {\"kind\":\"Secret\",\"stringData\":{\"pw\":\"" + value + "\"}}\n" +
			"stringData:\n  pw: " + value + "\n"
	}
	base := []*render.Target{target(t, "apps/db", secret("SECRET-ONE", ""))}
	head := []*render.Target{target(t, "apps/db", secret("SECRET-TWO", "    team: db\n"))}
	got := Compute(base, head)
	if len(got) != 1 {
		t.Fatalf("targets %+v", got)
	}
	d := got[0].Diff
	for _, leak := range []string{"SECRET-ONE", "SECRET-TWO"} {
		if strings.Contains(d, leak) {
			t.Errorf("the diff leaks %q:\n%s", leak, d)
		}
	}
	for _, want := range []string{
		"-    kubectl.kubernetes.io/last-applied-configuration: <redacted>\n+    kubectl.kubernetes.io/last-applied-configuration: <redacted> (changed)\n",
		"+    team: db\n",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	if v, _ := head[0].Objects[0].Get(manifest.Path{manifest.Key("metadata"), manifest.Key("annotations"), manifest.Key(manifest.LastApplied)}); !strings.Contains(v.(string), "SECRET-TWO") {
		t.Error("masking changed the rendered object")
	}
	// A ConfigMap's annotation is not a secret when the ConfigMap holds
	// none.
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: '{\"v\": \"%s\"}'\n"
	got = Compute([]*render.Target{target(t, "apps/c", fmt.Sprintf(cm, "one"))}, []*render.Target{target(t, "apps/c", fmt.Sprintf(cm, "two"))})
	if len(got) != 1 || !strings.Contains(got[0].Diff, `two`) {
		t.Errorf("ConfigMap annotation: %+v", got)
	}
}

// Credentials outside Secrets: a ConfigMap key named password and an
// environment variable named DB_PASSWORD are masked on both sides and say
// when they changed; a value that becomes a credential at the head (the
// variable renamed) is not shown at the base either.
func TestCredentialValuesOutsideSecretsAreMasked(t *testing.T) {
	objects := func(pw, envName, env string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  password: " + pw + "\n  mode: fast\n---\n" +
			"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      containers:\n" +
			"        - name: app\n          env:\n            - name: " + envName + "\n              value: " + env + "\n" +
			"            - name: LOG_LEVEL\n              value: info\n"
	}
	got := Compute([]*render.Target{target(t, "apps", objects("CM-ONE", "DB_PW_OLD", "ENV-ONE"))},
		[]*render.Target{target(t, "apps", objects("CM-TWO", "DB_PASSWORD", "ENV-ONE"))})
	if len(got) != 1 {
		t.Fatalf("targets %+v", got)
	}
	d := got[0].Diff
	for _, leak := range []string{"CM-ONE", "CM-TWO", "ENV-ONE"} {
		if strings.Contains(d, leak) {
			t.Errorf("the diff leaks %q:\n%s", leak, d)
		}
	}
	for _, want := range []string{
		"-  password: <redacted>\n+  password: <redacted> (changed)\n",
		"-            - name: DB_PW_OLD\n+            - name: DB_PASSWORD\n",
		"               value: <redacted>\n",
		"               value: info\n",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
}

func TestAPIVersionChangeIsOneChangedLine(t *testing.T) {
	base := []*render.Target{target(t, "a", "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\n")}
	head := []*render.Target{target(t, "a", "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\n")}
	got := Compute(base, head)
	if len(got) != 1 || got[0].Changed != 1 || got[0].LinesAdded != 1 || got[0].LinesRemoved != 1 {
		t.Errorf("%+v", got)
	}
}

func TestMarkdownFitsTheBudget(t *testing.T) {
	var targets []Target
	for i := 0; i < 40; i++ {
		n := 5
		if i%10 == 0 {
			n = 3000 // a few huge diffs
		}
		var d strings.Builder
		d.WriteString("--- base/ConfigMap/c\n+++ head/ConfigMap/c\n@@ -1 +1 @@\n")
		for j := 0; j < n; j++ {
			fmt.Fprintf(&d, "+  key%d: value with ``` backticks %d\n", j, j)
		}
		targets = append(targets, Target{Name: fmt.Sprintf("overlays/c%02d", i), Status: TargetChanged, Changed: 1, LinesAdded: n, Diff: d.String()})
	}
	s := &Section{Targets: targets}
	md := Markdown(s, 60000)
	if len(md) > 60000 {
		t.Fatalf("%d bytes over the budget", len(md))
	}
	if n := strings.Count(md, "<details>"); n != 40 {
		t.Errorf("%d targets shown, want all 40", n)
	}
	if !strings.Contains(md, "<code>overlays/c01</code> — 1 object changed (+5 −0)") || !strings.Contains(md, "+  key4: value with ``` backticks 4\n") {
		t.Errorf("small diffs are not whole:\n%s", md[:2000])
	}
	if n := strings.Count(md, "more lines: the full diff is in the JSON report"); n != 4 {
		t.Errorf("%d cut diffs, want the 4 huge ones", n)
	}
	if !strings.Contains(md, "````diff\n") {
		t.Error("the fence is not longer than the backticks in the content")
	}
	// A budget too small for every target counts the rest.
	small := Markdown(s, 3000)
	if len(small) > 3000 || !strings.Contains(small, "more targets with changes") {
		t.Errorf("small budget (%d bytes):\n%s", len(small), small)
	}
	if Markdown(&Section{}, 1000) != "" || Markdown(nil, 1000) != "" {
		t.Error("no changes must render nothing")
	}
}

func TestSectionRoundTripAndMerge(t *testing.T) {
	a := Section{BaseRef: "main", BaseCommit: "abc", Targets: []Target{{Name: "b", Diff: "x"}, {Name: "d", Diff: "y"}}}
	b := Section{BaseRef: "main", BaseCommit: "abc", Targets: []Target{{Name: "a", Diff: "z"}, {Name: "c", Diff: "w"}}}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	merged, err := Section{}.MergeShards([]json.RawMessage{ja, jb})
	if err != nil {
		t.Fatal(err)
	}
	m := merged.(*Section)
	var names []string
	for _, tg := range m.Targets {
		names = append(names, tg.Name)
	}
	if strings.Join(names, ",") != "a,b,c,d" || m.BaseCommit != "abc" {
		t.Errorf("merged %+v", m)
	}
	if _, err := (Section{}).MergeShards([]json.RawMessage{ja, ja}); err == nil {
		t.Error("a target in two shards merged")
	}
	other, _ := json.Marshal(Section{BaseCommit: "def"})
	if _, err := (Section{}).MergeShards([]json.RawMessage{ja, other}); err == nil {
		t.Error("different base commits merged")
	}
	if s, err := FromSection(json.RawMessage(ja)); err != nil || s.Targets[0].Name != "b" {
		t.Errorf("FromSection raw: %v %v", s, err)
	}
	if s, err := FromSection(&a); err != nil || s != &a {
		t.Errorf("FromSection typed: %v", err)
	}
}
