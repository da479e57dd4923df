package compare

import (
	"context"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// fuzzTemplates are the files a fuzzed metadata.yaml can name.
var fuzzTemplates = map[string]string{
	"cm.yaml":         cmTemplate,
	"svc.yaml":        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {{ template \"name\" . }}\n  namespace: {{ .metadata.namespace | default \"ns\" }}\nspec:\n  ports:\n  {{- range .spec.ports }}\n  - port: {{ .port }}\n  {{- end }}\n",
	"sub/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: ns\nspec:\n  replicas: {{ .spec.replicas | default 1 }}\n",
	"bad.yaml":        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .metadata.name \n",
	"nokind.yaml":     "apiVersion: v1\nmetadata:\n  name: x\n",
	"f.tmpl":          "{{ define \"name\" }}{{ .metadata.name | default \"svc\" }}{{ end }}\n",
}

// fuzzInputs are compared with every reference that loads.
const fuzzInputs = `apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: ns}
data: {key: other}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: ns}
spec: {ports: [{port: 80}, {port: 443}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ns}
spec: {replicas: 3}
`

// checkProblems fails when a problem names a file that is not the
// reference's (display "ref"), or a line past the end of that file.
func checkProblems(t *testing.T, ps Problems, files map[string]string) {
	t.Helper()
	for _, p := range ps {
		if p.Message == "" {
			t.Fatalf("a problem without a message: %+v", p)
		}
		rel, ok := strings.CutPrefix(p.Location.File, "ref/")
		if p.Location.File != "ref" && (!ok || !fs.ValidPath(rel)) {
			t.Fatalf("problem outside the reference directory: %v", p)
		}
		if data, known := files[rel]; known && p.Location.Line > manifest.CountLines([]byte(strings.TrimLeft(data, "\n"))) {
			t.Fatalf("problem past the end of %s: %v", rel, p)
		}
	}
}

// FuzzLoadMetadata feeds arbitrary metadata.yaml texts, v1 and v2, to the
// reference loader with a fixed set of templates. The properties: every
// problem names a file of the reference and a line inside it; loading
// twice gives the same problems and hash; a reference that loads has every
// template inside the reference directory, listed once, and compares
// inputs without failing.
func FuzzLoadMetadata(f *testing.F) {
	for _, seed := range []string{
		"apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: cm.yaml\n          - path: svc.yaml\ntemplateFunctionFiles: [f.tmpl]\n",
		"parts:\n  - name: p\n    components:\n      - name: c\n        type: Required\n        requiredTemplates:\n          - path: cm.yaml\n            config:\n              ignore-unspecified-fields: true\n        optionalTemplates:\n          - path: sub/deploy.yaml\n",
		"apiVersion: v2\nparts:\n  - name: p\n    description: d\n    components:\n      - name: c\n        oneOf:\n          - path: sub/deploy.yaml\n            config:\n              perField:\n                - pathToKey: spec.replicas\n                  inlineDiffFunc: regex\n",
		"apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        anyOf:\n          - path: cm.yaml\n            config:\n              fieldsToOmitRefs: [a]\nfieldsToOmit:\n  defaultOmitRef: a\n  items:\n    a:\n      - pathToKey: metadata.labels\n        isPrefix: true\n      - pathToKey: data.\"key\"\n",
		"apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: ../../etc/passwd\n          - path: /etc/passwd\n          - path: cm.yaml\n          - path: cm.yaml\n",
		"apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: bad.yaml\n          - path: nokind.yaml\n          - path: missing.yaml\n",
		"apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf: [{path: cm.yaml}]\n        oneOf: [{path: svc.yaml}]\n",
		"apiVersion: v2\ntemplateFunctionFiles: [missing.tmpl, bad.yaml]\nparts: []\n",
		"apiVersion: V1\nparts: &p []\nx: *p\n",
		"apiVersion: v3\n", "[]", "", "---\n---\n", "parts: {a: 1}\n", "apiVersion: [v2]\n",
		"a: &a [*a]\n",
		"parts:\n  - &c {name: c, type: Required, requiredTemplates: [{path: cm.yaml}]}\n  - *c\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, metadata string) {
		files := map[string]string{"metadata.yaml": metadata}
		for k, v := range fuzzTemplates {
			files[k] = v
		}
		ref, ps := Load(refFS(files), "metadata.yaml", "ref")
		checkProblems(t, ps, files)
		again, ps2 := Load(refFS(files), "metadata.yaml", "ref")
		if ps.Error() != ps2.Error() || (ref == nil) != (again == nil) || ref != nil && ref.Hash != again.Hash {
			t.Fatalf("loaded twice:\n%v\n---\n%v", ps, ps2)
		}
		if ref == nil {
			return
		}
		seen := map[string]bool{}
		for _, tm := range ref.Templates {
			if clean := path.Clean(filepath.ToSlash(tm.Path)); !fs.ValidPath(clean) || clean == "." || !strings.HasPrefix(tm.File, "ref/") {
				t.Fatalf("template %q (file %s) is outside the reference", tm.Path, tm.File)
			}
			if seen[tm.Path] {
				t.Fatalf("template %s listed twice in a reference that loaded", tm.Path)
			}
			seen[tm.Path] = true
		}
		res := compareInputs(t, ref, fuzzInputs, Options{Workers: 1})
		checkProblems(t, res.Errors, files)
	})
}

// FuzzTemplateText feeds arbitrary template texts to the loader (as the
// one template of a reference) and compares inputs with those that load.
// The properties: nothing panics; every problem names the template's file
// (or the metadata) and a line inside it; and no execution runs past its
// deadline by more than a margin.
func FuzzTemplateText(f *testing.F) {
	for _, seed := range []string{
		cmTemplate,
		fuzzTemplates["svc.yaml"],
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .metadata.name }}\n  namespace: ns\ndata:\n{{ toYaml .data | indent 2 }}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ns\n{{ if .data }}{{ doNotMatch \"no\" }}{{ end }}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: ns\ndata:\n  n: {{ len (lookupCRs \"v1\" \"Service\" \"*\" \"*\") }}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n{{ if .data }}{{ range 1000000000 }}{{ end }}{{ end }}\n",
		"{{ define \"a\" }}{{ template \"a\" . }}{{ end }}{{ template \"a\" . }}",
		"{{ env \"HOME\" }}", "{{ expandenv \"$HOME\" }}", "{{ readFile \"/etc/passwd\" }}",
		"{{ repeat 100000000 \"x\" }}", "{{ until 10000000 }}", "{{ seq 1 100000000 }}",
		// Issue 18: templates that print an input's secrets, or fail with
		// one.
		"apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  labels:\n    leak: '{{ .stringData.token }}'\n",
		"{{ fail (printf \"cannot use %v\" .data) }}",
		"kind: {{ .kind }}\n{{ $x := \"ab\" }}{{ range until 40 }}{{ $x = printf \"%s%s\" $x $x }}{{ end }}",
		"kind: x\n{{ $d := dict }}{{ $_ := set $d \"self\" $d }}{{ $d }}",
		"kind: x\n{{ $d := dict }}{{ $_ := merge $d (dict \"a\" (list $d)) }}{{ toToml $d }}",
		"kind: x\n{{ $l := list 1 }}{{ range until 30 }}{{ $l = concat $l $l }}{{ end }}{{ len $l }}",
		"kind: x\n{{ fromYaml \"a: &a [x, x]\\nb: &b [*a, *a]\\nc: &c [*b, *b]\\nd: [*c, *c]\" | toJson }}",
		"a: 1\n---\nb: 2\n", "- a\n- b\n", "{{", "{{ end }}", "kind: x\nvalue: {{ .no.such.field }}\n",
		"kind: ConfigMap\napiVersion: v1\nmetadata: {name: settings, namespace: ns}\ndata: {{ fromYaml \"{a: [\" | toJson }}\n",
	} {
		f.Add(seed)
	}
	defer func(saved time.Duration) { maxTemplateTime = saved }(maxTemplateTime)
	maxTemplateTime = 50 * time.Millisecond
	f.Fuzz(func(t *testing.T, text string) {
		files := map[string]string{
			"metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        anyOf:\n          - path: t.yaml\n",
			"t.yaml":        text,
		}
		start := time.Now()
		ref, ps := Load(refFS(files), "metadata.yaml", "ref")
		checkProblems(t, ps, files)
		if ref != nil {
			res := ref.Compare(context.Background(), objects(t, fuzzInputs), Options{Workers: 1})
			checkProblems(t, res.Errors, files)
		}
		// Four executions at most (the empty-data one and one per input),
		// each stopped at its deadline.
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("loading and comparing took %v", d)
		}
	})
}
