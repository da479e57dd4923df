package compare

import (
	"context"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/value"
)

func v2Ref(group string, templates map[string]string, order ...string) map[string]string {
	var b strings.Builder
	b.WriteString("apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        " + group + ":\n")
	for _, name := range order {
		b.WriteString("          - path: " + name + "\n")
	}
	files := map[string]string{"metadata.yaml": b.String()}
	for k, v := range templates {
		files[k] = v
	}
	return files
}

func TestDiffDirectionAndFormat(t *testing.T) {
	ref := mustLoad(t, v2Ref("allOf", map[string]string{"cm.yaml": `
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ns
data:
  level: info
  mode: fast
`}, "cm.yaml"))
	res := compareInputs(t, ref, `
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: ns
  resourceVersion: "42"
  uid: 1234
  creationTimestamp: "2024-01-01T00:00:00Z"
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: "{}"
data:
  level: debug
  mode: fast
status:
  ignored: true
`, Options{})
	c := compared(t, res, "v1_ConfigMap_ns_settings")
	want := `diff -u -N MERGED/v1_configmap_ns_settings LIVE/v1_configmap_ns_settings
--- MERGED/v1_configmap_ns_settings
+++ LIVE/v1_configmap_ns_settings
@@ -1,6 +1,6 @@
 apiVersion: v1
 data:
-  level: info
+  level: debug
   mode: fast
 kind: ConfigMap
 metadata:
`
	if got := c.DiffOutput(); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}
	if res.NumDiffCRs != 1 || res.TotalCRs != 1 || res.NumMissing != 0 {
		t.Errorf("counts: diffs %d total %d missing %d", res.NumDiffCRs, res.TotalCRs, res.NumMissing)
	}
	// The built-in omission removed server fields, the last-applied
	// annotation (and the emptied annotations) and status on both sides.
	if strings.Contains(c.LiveText, "resourceVersion") || strings.Contains(c.LiveText, "annotations") || strings.Contains(c.LiveText, "status") {
		t.Errorf("omitted fields left in:\n%s", c.LiveText)
	}
}

func TestTemplatesSeeInputAfterOmission(t *testing.T) {
	ref := mustLoad(t, v2Ref("allOf", map[string]string{"cm.yaml": `
apiVersion: v1
kind: ConfigMap
metadata:
  name: x
data:
  phase: "{{ .status.phase }}"
  uid: "{{ .metadata.uid }}"
`}, "cm.yaml"))
	res := compareInputs(t, ref, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  uid: u1\ndata:\n  phase: \"\"\n  uid: \"\"\nstatus:\n  phase: Ready\n", Options{})
	if c := compared(t, res, "v1_ConfigMap_x"); c.HasDiff {
		t.Errorf("templates must not see omitted fields:\n%s", c.DiffOutput())
	}
}

func TestCorrelationMostSpecificGroupWins(t *testing.T) {
	ref := mustLoad(t, v2Ref("anyOf", map[string]string{
		"specific.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: special\n  namespace: ns\ndata:\n  from: specific\n",
		"catchall.yaml":  "apiVersion: '{{ .apiVersion }}'\nkind: ConfigMap\nmetadata:\n  name: '{{ .metadata.name }}'\n  namespace: '{{ .metadata.namespace }}'\ndata:\n  from: catchall\n",
		"byname.yaml":    "apiVersion: '{{ .apiVersion }}'\nkind: ConfigMap\nmetadata:\n  name: named\n  namespace: '{{ .metadata.namespace }}'\ndata:\n  from: byname\n",
		"namespace.yaml": "apiVersion: '{{ .apiVersion }}'\nkind: ConfigMap\nmetadata:\n  name: '{{ .metadata.name }}'\n  namespace: other\ndata:\n  from: namespace\n",
	}, "catchall.yaml", "specific.yaml", "byname.yaml", "namespace.yaml"))
	res := compareInputs(t, ref, `
apiVersion: v1
kind: ConfigMap
metadata: {name: special, namespace: ns}
data: {from: specific}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: anything, namespace: ns}
data: {from: catchall}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: named, namespace: elsewhere}
data: {from: byname}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: named, namespace: other}
data: {from: namespace}
`, Options{})
	for id, want := range map[string]string{
		"v1_ConfigMap_ns_special":      "specific.yaml",  // all four fields
		"v1_ConfigMap_ns_anything":     "catchall.yaml",  // only kind
		"v1_ConfigMap_elsewhere_named": "byname.yaml",    // {name,kind}
		"v1_ConfigMap_other_named":     "namespace.yaml", // {namespace,kind} is tried before {name,kind}
	} {
		c := compared(t, res, id)
		if c.Template.Path != want {
			t.Errorf("%s correlated with %s, want %s", id, c.Template.Path, want)
		}
		if c.HasDiff {
			t.Errorf("%s: unexpected diff\n%s", id, c.DiffOutput())
		}
	}
}

func TestCorrelationSameSizeGroupOrder(t *testing.T) {
	// An object matching both a {apiVersion,kind} and a {namespace,kind}
	// template goes to the first: the order kube-compare was observed to use.
	ref := mustLoad(t, v2Ref("anyOf", map[string]string{
		"ns.yaml": "apiVersion: '{{ .apiVersion }}'\nkind: ConfigMap\nmetadata:\n  name: '{{ .metadata.name }}'\n  namespace: ns\n",
		"av.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '{{ .metadata.name }}'\n  namespace: '{{ .metadata.namespace }}'\n",
	}, "ns.yaml", "av.yaml"))
	res := compareInputs(t, ref, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: ns}\n", Options{})
	if got := compared(t, res, "v1_ConfigMap_ns_a").Template.Path; got != "av.yaml" {
		t.Errorf("correlated with %s, want av.yaml ({apiVersion,kind} before {namespace,kind})", got)
	}
}

func TestTieBreakBySmallestDiff(t *testing.T) {
	tpl := func(v string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '{{ .metadata.name }}'\ndata:\n  value: " + v + "\n"
	}
	ref := mustLoad(t, v2Ref("anyOf", map[string]string{
		"far.yaml": tpl("completely-different"), "near.yaml": tpl("close-valuX"), "near2.yaml": tpl("close-valuY"),
	}, "far.yaml", "near.yaml", "near2.yaml"))
	res := compareInputs(t, ref, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {value: close-value}\n", Options{})
	c := compared(t, res, "v1_ConfigMap_a")
	if c.Template.Path != "near.yaml" {
		t.Errorf("best candidate %s, want near.yaml (smallest diff; ties to the earliest)", c.Template.Path)
	}
	if res.Counts[ref.Template("near2.yaml")] != 0 || res.TotalCRs != 1 {
		t.Error("only the winner is counted")
	}
}

func TestManualCorrelation(t *testing.T) {
	files := v2Ref("anyOf", map[string]string{
		"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  from: a\n",
		"b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '{{ .metadata.name }}'\ndata:\n  from: b\n",
	}, "a.yaml", "b.yaml")
	ref := mustLoad(t, files)
	cfg, ps := ParseUserConfig("diff.yaml", []byte(`
correlationSettings:
  manualCorrelation:
    correlationPairs:
      v1_ConfigMap_a: b.yaml
`), ref)
	if ps != nil {
		t.Fatal(ps)
	}
	res := compareInputs(t, ref, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {from: b}\n", Options{UserConfig: cfg})
	if c := compared(t, res, "v1_ConfigMap_a"); c.Template.Path != "b.yaml" || c.HasDiff {
		t.Errorf("manual pair ignored: %s %v", c.Template.Path, c.HasDiff)
	}

	_, ps = ParseUserConfig("diff.yaml", []byte("correlationSettings:\n  manualCorrelation:\n    correlationPairs:\n      v1_ConfigMap_a: nope.yaml\n"), ref)
	mustContain(t, ps.Error(), "diff.yaml:4:7: error in template manual matching for resource: v1_ConfigMap_a no template in the name of nope.yaml")
	_, ps = ParseUserConfig("diff.yaml", []byte("correlationSettings:\n  manualCorrelations: {}\n"), ref)
	mustContain(t, ps.Error(), `diff.yaml:2:3: correlationSettings: unknown key "manualCorrelations"`)
	_, ps = ParseUserConfig("diff.yaml", []byte("correlationSettings: [\n"), ref)
	mustContain(t, ps.Error(), "diff.yaml:1: not valid YAML")
}

func TestDoNotMatchAndUnmatched(t *testing.T) {
	ref := mustLoad(t, v2Ref("anyOf", map[string]string{
		"cm.yaml": `
{{- if eq .metadata.name "skip-me" }}{{ doNotMatch "not ours" }}{{ end -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: '{{ .metadata.name }}'
`,
	}, "cm.yaml"))
	res := compareInputs(t, ref, `
apiVersion: v1
kind: ConfigMap
metadata: {name: skip-me}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: keep}
---
apiVersion: v1
kind: Secret
metadata: {name: other}
`, Options{})
	if len(res.Compared) != 1 || res.Compared[0].Identity() != "v1_ConfigMap_keep" {
		t.Errorf("compared %d inputs", len(res.Compared))
	}
	if len(res.Unmatched) != 1 || res.Unmatched[0].ID.String() != "v1_Secret_other" {
		t.Errorf("unmatched: %+v (doNotMatch inputs are skipped, not unmatched)", res.Unmatched)
	}
	if res.TotalCRs != 1 {
		t.Errorf("TotalCRs %d", res.TotalCRs)
	}
	// Without -A unmatched inputs are not listed; with it they are.
	if got := res.Report(ReportOptions{}).Summary.UnmatchedCRS; len(got) != 0 {
		t.Errorf("unmatched listed without -A: %v", got)
	}
	if got := res.Report(ReportOptions{AllResources: true}).Summary.UnmatchedCRS; len(got) != 1 || got[0] != "v1_Secret_other" {
		t.Errorf("unmatched with -A: %v", got)
	}
}

func TestDuplicateInputsFirstWins(t *testing.T) {
	ref := mustLoad(t, v2Ref("allOf", map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  v: one\n"}, "cm.yaml"))
	res := compareInputs(t, ref, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {v: one}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {v: two}\n", Options{})
	if len(res.Compared) != 1 || res.Compared[0].HasDiff {
		t.Errorf("the first of two identical identities must win: %d compared", len(res.Compared))
	}
}

func TestOneTemplateManyInputs(t *testing.T) {
	ref := mustLoad(t, v2Ref("allOf", map[string]string{"ds.yaml": "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: '{{ .metadata.name }}'\n  namespace: kube-system\n"}, "ds.yaml"))
	res := compareInputs(t, ref, `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: a, namespace: kube-system}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: b, namespace: kube-system}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: c, namespace: kube-system}
`, Options{})
	if res.Counts[ref.Template("ds.yaml")] != 3 || res.TotalCRs != 3 || res.NumDiffCRs != 0 {
		t.Errorf("count %d total %d diffs %d", res.Counts[ref.Template("ds.yaml")], res.TotalCRs, res.NumDiffCRs)
	}
}

func TestIgnoreUnspecifiedFieldsIsAJSONMergePatch(t *testing.T) {
	ref := mustLoad(t, map[string]string{
		"metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: d.yaml\n            config:\n              ignore-unspecified-fields: true\n",
		"d.yaml":        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n      - name: app\n",
	})
	res := compareInputs(t, ref, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, labels: {extra: yes}}
spec:
  replicas: 3
  paused: false
  template:
    spec:
      containers:
      - name: app
        image: x
`, Options{})
	c := compared(t, res, "apps/v1_Deployment_d")
	out := c.DiffOutput()
	// Unspecified fields (labels, paused) are accepted; replicas is
	// enforced; the containers list is replaced whole, so the image the
	// template does not list shows as a difference.
	mustContain(t, out, "-  replicas: 2\n+  replicas: 3\n", "-      - name: app\n+      - image: x\n+        name: app\n")
	for _, l := range strings.Split(out, "\n") {
		if (strings.HasPrefix(l, "+ ") || strings.HasPrefix(l, "- ")) && (strings.Contains(l, "paused") || strings.Contains(l, "extra")) {
			t.Errorf("unspecified field reported: %s", l)
		}
	}
}

func TestFieldsToOmitRefsReplaceTheDefault(t *testing.T) {
	ref := mustLoad(t, map[string]string{
		"metadata.yaml": `
apiVersion: v2
parts:
  - name: p
    components:
      - name: c
        anyOf:
          - path: a.yaml
            config:
              fieldsToOmitRefs: [labels]
          - path: b.yaml
fieldsToOmit:
  defaultOmitRef: all
  items:
    all:
      - include: cluster-compare-built-in
      - pathToKey: metadata.labels."team.example.com/"
        isPrefix: true
    labels:
      - pathToKey: metadata.labels
      - pathToKey: spec.list.0.x
`,
		"a.yaml": "apiVersion: v1\nkind: A\nmetadata:\n  name: a\nspec:\n  list:\n  - x: 1\n",
		"b.yaml": "apiVersion: v1\nkind: B\nmetadata:\n  name: b\n",
	})
	res := compareInputs(t, ref, `
apiVersion: v1
kind: A
metadata: {name: a, labels: {any: thing}, uid: keep-me}
spec:
  list:
  - x: 2
---
apiVersion: v1
kind: B
metadata:
  name: b
  uid: dropped
  labels:
    team.example.com/owner: me
    team.example.com/cost: "1"
`, Options{})
	a := compared(t, res, "v1_A_a")
	// "labels" replaces the default: uid (built-in) stays and shows; the
	// list index in spec.list.0.x does nothing.
	mustContain(t, a.DiffOutput(), "+  uid: keep-me", "-  - x: 1\n+  - x: 2")
	if strings.Contains(a.DiffOutput(), "any: thing") {
		t.Error("metadata.labels should be omitted")
	}
	if b := compared(t, res, "v1_B_b"); b.HasDiff {
		t.Errorf("prefix omission and the included built-ins should leave no diff:\n%s", b.DiffOutput())
	}
}

func TestLookupFunctions(t *testing.T) {
	ref := mustLoad(t, v2Ref("anyOf", map[string]string{
		"pod.yaml": `
{{- $nodes := lookupCRs "v1" "Node" "" "*" }}
{{- $one := lookupCR "v1" "ConfigMap" "ns" "settings" }}
apiVersion: v1
kind: Pod
metadata:
  name: p
data:
  nodes: "{{ len $nodes }}"
  level: "{{ if $one }}{{ $one.data.level }}{{ else }}none{{ end }}"
`,
		"node.yaml": "apiVersion: v1\nkind: Node\nmetadata:\n  name: '{{ .metadata.name }}'\n",
	}, "pod.yaml", "node.yaml"))
	res := compareInputs(t, ref, `
apiVersion: v1
kind: Pod
metadata: {name: p}
data: {nodes: "2", level: warn}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
---
apiVersion: v1
kind: Node
metadata: {name: n2}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: ns}
data: {level: warn}
`, Options{})
	if c := compared(t, res, "v1_Pod_p"); c.HasDiff {
		t.Errorf("lookupCRs/lookupCR see the whole input set:\n%s", c.DiffOutput())
	}
}

func TestTemplateErrorsAtCompareTime(t *testing.T) {
	ref := mustLoad(t, v2Ref("allOf", map[string]string{
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '{{ .metadata.name }}'\nspec:\n  count: {{ .spec.count | int }}\n  nested:\n    value: {{ .spec.nested.value }}\n",
	}, "cm.yaml"))
	res := compareInputs(t, ref, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\nspec: {nested: null}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: good}\nspec: {count: 1, nested: {value: v}}\n", Options{})
	if len(res.Errors) != 1 {
		t.Fatalf("errors: %v", res.Errors)
	}
	mustContain(t, res.Errors[0].Error(), "ref/cm.yaml:8: template injection failed: cm.yaml on v1_ConfigMap_bad (in.yaml:1:1)", "nil pointer evaluating interface {}.value")
	if len(res.Unmatched) != 1 || res.Unmatched[0].Err == nil {
		t.Error("the failing input must be listed as unmatched")
	}
	if c := compared(t, res, "v1_ConfigMap_good"); c.HasDiff {
		t.Errorf("other inputs are still compared:\n%s", c.DiffOutput())
	}
	if got := res.Report(ReportOptions{}).Summary.UnmatchedCRS; len(got) != 1 {
		t.Errorf("an input whose template failed is always listed: %v", got)
	}
}

func TestTemplateOutputTyping(t *testing.T) {
	// Template output is typed like plumb's inputs (YAML 1.2): "yes" stays
	// a string and large integers keep their precision, so neither makes
	// a spurious difference.
	ref := mustLoad(t, v2Ref("allOf", map[string]string{
		"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\nspec:\n  flag: {{ .spec.flag }}\n  big: {{ .spec.big }}\n  f: {{ .spec.f }}\n",
	}, "cm.yaml"))
	res := compareInputs(t, ref, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\nspec: {flag: yes, big: 9007199254740993, f: 1.5}\n", Options{})
	if c := compared(t, res, "v1_ConfigMap_a"); c.HasDiff {
		t.Errorf("spurious difference:\n%s", c.DiffOutput())
	}
}

func TestOwnerAndSubjectReferencesSatisfyTemplates(t *testing.T) {
	ref := mustLoad(t, map[string]string{
		"metadata.yaml": `
apiVersion: v2
parts:
  - name: p
    components:
      - name: c
        allOf:
          - path: sa.yaml
          - path: binding.yaml
          - path: owner.yaml
          - path: missing.yaml
`,
		"sa.yaml":      "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: collector\n  namespace: logging\n",
		"binding.yaml": "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: collect\nsubjects:\n- kind: ServiceAccount\n  name: collector\n  namespace: logging\n",
		"owner.yaml":   "apiVersion: example.com/v1\nkind: Owner\nmetadata:\n  name: boss\n  namespace: ns\n",
		"missing.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gone\n",
	})
	res := compareInputs(t, ref, `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: collect}
subjects:
- kind: ServiceAccount
  name: collector
  namespace: logging
---
apiVersion: v1
kind: Pod
metadata:
  name: worker
  namespace: ns
  ownerReferences:
  - apiVersion: example.com/v1
    kind: Owner
    name: boss
`, Options{})
	var inferred []string
	for _, t := range res.Inferred {
		inferred = append(inferred, t.Path)
	}
	if strings.Join(inferred, ",") != "sa.yaml,owner.yaml" {
		t.Errorf("inferred %v", inferred)
	}
	if res.TotalCRs != 3 || res.NumMissing != 1 {
		t.Errorf("TotalCRs %d (1 compared + 2 inferred), NumMissing %d", res.TotalCRs, res.NumMissing)
	}
	out := res.Report(ReportOptions{})
	if len(out.Warnings) != 1 || out.Warnings[0].Type != WarningInferred || len(out.Summary.MatchedByReferenceOnly) != 2 {
		t.Errorf("warnings %+v", out.Warnings)
	}
}

func TestManagedFieldsAlwaysDropped(t *testing.T) {
	ref := mustLoad(t, map[string]string{
		"metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf: [{path: a.yaml}]\nfieldsToOmit:\n  defaultOmitRef: none\n  items:\n    none: []\n",
		"a.yaml":        "apiVersion: v1\nkind: A\nmetadata:\n  name: a\n",
	})
	in := "apiVersion: v1\nkind: A\nmetadata:\n  name: a\n  managedFields: [{manager: kubectl}]\n"
	if c := compared(t, compareInputs(t, ref, in, Options{}), "v1_A_a"); c.HasDiff {
		t.Errorf("managedFields compared:\n%s", c.DiffOutput())
	}
	if c := compared(t, compareInputs(t, ref, in, Options{ShowManagedFields: true}), "v1_A_a"); !c.HasDiff {
		t.Error("--show-managed-fields keeps them")
	}
}

func TestInputsAreNeverModified(t *testing.T) {
	ref := mustLoad(t, v2Ref("anyOf", map[string]string{
		"cm.yaml": `
{{- if .metadata }}{{ $_ := set .metadata "name" "changed-by-template" }}{{ $_ := unset .data "drop" }}{{ end }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  keep: "1"
`,
		"secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  k: {{ .data.k }}\n",
	}, "cm.yaml", "secret.yaml"))
	if !ref.Template("cm.yaml").mutatesData || ref.Template("secret.yaml").mutatesData {
		t.Error("templates calling set/unset must be detected, others not")
	}
	inputs := objects(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  uid: x\n  managedFields: [{m: 1}]\ndata:\n  keep: \"1\"\n  drop: \"2\"\nstatus: {a: 1}\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  k: djE=\n  other: djI=\n")
	before := make([]map[string]any, len(inputs))
	for i, o := range inputs {
		before[i] = copyMap(o.Content)
	}
	ov, ps := ParseOverrides("ov.yaml", []byte("- kind: ConfigMap\n  type: mergepatch\n  patch: '{\"data\":{\"x\":\"y\"}}'\n  reason: r\n"))
	if ov == nil {
		t.Fatal(ps)
	}
	res := ref.Compare(context.Background(), inputs, Options{Overrides: ov})
	_ = res.Report(ReportOptions{})
	var sink strings.Builder
	_ = res.GeneratePatches(&sink, []string{"cm.yaml", "secret.yaml"}, "r")
	for i, o := range inputs {
		if !value.Equal(o.Content, before[i]) {
			t.Errorf("input %d was modified:\n%v\nwas\n%v", i, o.Content, before[i])
		}
	}
}

// kube-compare pkg/compare/compare.go (owner/subject pass, PR #258): a
// template an input refers to is counted and listed as "found via
// ownerReferences or RBAC subjects" even when an input was also compared
// with it; its count then adds to the compared input's in TotalCRs.
func TestReferencedTemplateCountsOnTopOfItsMatch(t *testing.T) {
	ref := mustLoad(t, map[string]string{
		"metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: sa.yaml\n            description: the collector's account\n",
		"sa.yaml":       "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: collector\n  namespace: logging\n",
	})
	res := compareInputs(t, ref, `
apiVersion: v1
kind: ServiceAccount
metadata: {name: collector, namespace: logging}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: collect, namespace: logging}
subjects:
- kind: ServiceAccount
  name: collector
  namespace: logging
`, Options{})
	if len(res.Compared) != 1 || res.TotalCRs != 2 || len(res.Inferred) != 1 || res.Inferred[0].Path != "sa.yaml" {
		t.Fatalf("compared %d, TotalCRs %d (want 1 compared + 1 inferred), inferred %v", len(res.Compared), res.TotalCRs, res.Inferred)
	}
	var text strings.Builder
	out := res.Report(ReportOptions{})
	if err := out.Text(&text); err != nil {
		t.Fatal(err)
	}
	mustContain(t, text.String(), "CRs with diffs: 0/2\n",
		"Warning: 1 resource(s) found via ownerReferences or RBAC subjects but contents not validated:\n  - sa.yaml\n")
	if got := out.Summary.MatchedByReferenceOnly; len(got) != 1 || got[0] != "sa.yaml" {
		t.Errorf("matchedByReferenceOnly %v", got)
	}
	// The identical CR carries its template's description too.
	if d := out.Diffs[0]; d.DiffOutput != "" || d.Description != "the collector's account" {
		t.Errorf("diff %+v", d)
	}
}
