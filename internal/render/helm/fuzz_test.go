package helm

import (
	"fmt"
	"testing"
	"testing/fstest"
	"time"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// fuzzLimits are small limits, so that a fuzzed chart reaches them fast.
var fuzzLimits = manifest.Limits{MaxFileBytes: 1 << 20, MaxDepth: 100, MaxAliasNodes: 10_000,
	MaxTargetBytes: 8 << 20, MaxTargetTime: time.Second}

// FuzzChartInputs renders a chart whose values.yaml, a values file given
// to the render and one template are fuzzed. Whatever they hold, the load
// and the render finish within the target's budget (no panic, no hang,
// no value doubled until the process dies), and every problem names a file
// of the repository with a line inside it. Seeds are the charts that hung
// or exhausted memory before charts had the loader's limits and a budget.
func FuzzChartInputs(f *testing.F) {
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: x\ndata:\n  a: {{ .Values.a | quote }}\n"
	for _, s := range [][3]string{
		{"a: 1\n", "a: 2\n", cm},
		// Aliases inside themselves, a billion laughs.
		{"a: &A {b: *A}\n", "", cm},
		{"x: &x [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\ny: &y [*x, *x, *x, *x, *x, *x, *x, *x, *x, *x]\nz: &z [*y, *y, *y, *y, *y, *y, *y, *y, *y, *y]\n" +
			"w: [*z, *z, *z, *z, *z, *z, *z, *z, *z, *z]\n", "", cm},
		{"a: 1\n", "b: &B\n  c: 1\n  d:\n    <<: *B\n", cm},
		// Templates that loop, write or build without bound.
		{"a: 1\n", "", "{{ range until 100000000 }}{{ end }}"},
		{"a: 1\n", "", "{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}"},
		{"a: 1\n", "", "{{ $a := repeat 100000 \"x\" }}{{ range until 1000 }}{{ $a }}{{ end }}"},
		{"a: 1\n", "", "{{ $a := \"x\" }}{{ range until 40 }}{{ $a = printf \"%s%s\" $a $a }}{{ end }}"},
		{"a: 1\n", "", "{{ $d := dict }}{{ range until 40 }}{{ $d = dict \"a\" $d \"b\" $d }}{{ end }}{{ $d }}"},
		{"a: 1\n", "", "{{ $d := dict }}{{ $_ := set $d \"self\" $d }}{{ toYaml $d }}"},
		{"a: 1\n", "", "{{ tpl \"{{ range until 1000000 }}{{ range until 1000000 }}{{ end }}{{ end }}\" . }}"},
		{"a: 1\n", "", "{{- define \"r\" }}{{ include \"r\" . }}{{ include \"r\" . }}{{ end }}{{ include \"r\" . }}"},
		{"a: 1\n", "", "{{ nindent 2000000000 \"x\" }}{{ randAlphaNum 2000000000 }}"},
		// Templates that call each other without end.
		{"a: 1\n", "", "{{- define \"a\" }}{{ include \"b\" . }}{{ end }}{{- define \"b\" }}{{ include \"a\" . }}{{ end }}{{ include \"a\" . }}"},
		{"a: 1\n", "", "{{- define \"a\" }}{{ template \"b\" . }}{{ end }}{{- define \"b\" }}{{ template \"a\" . }}{{ end }}{{ template \"a\" . }}"},
		{"x: '{{ tpl .Values.x . }}'\n", "", "{{ tpl .Values.x . }}"},
		{"a: .nan\n", "a: .inf\n", cm},
		{"", "", ""},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, values, prod, tmpl string) {
		files := map[string]string{
			"c/Chart.yaml":        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
			"c/values.yaml":       values,
			"c/templates/t.yaml":  tmpl,
			"c/templates/cm.yaml": cm,
			"prod.yaml":           prod,
		}
		fsys := fstest.MapFS{}
		for name, content := range files {
			fsys[name] = &fstest.MapFile{Data: []byte(content), Mode: 0o644}
		}
		// A hang becomes a crash with the input, which the fuzzer keeps.
		watchdog := time.AfterFunc(10*fuzzLimits.MaxTargetTime, func() {
			panic(fmt.Sprintf("still rendering after %v: values %q, prod %q, template %q", 10*fuzzLimits.MaxTargetTime, values, prod, tmpl))
		})
		defer watchdog.Stop()
		start := time.Now()
		var problems []manifest.Problem
		ch, err := LoadChart(fsys, "c", fuzzLimits)
		if err != nil {
			if fe, ok := err.(*FileError); ok {
				problems = append(problems, manifest.Problem{Location: fe.At, Message: fe.Err})
			}
		} else {
			out := NewRenderer(fsys, fuzzLimits).Render(ch, Request{Target: "c", KubeVersion: "v1.37.0", Sources: []Source{{File: "prod.yaml"}}})
			problems = append(problems, out.Problems...)
		}
		if elapsed := time.Since(start); elapsed > 3*fuzzLimits.MaxTargetTime {
			t.Fatalf("loading and rendering took %v, past three times the render's time budget", elapsed)
		}
		for _, p := range problems {
			content, known := files[p.Location.File]
			if !known {
				if p.Location.File != "" {
					t.Fatalf("a problem in %q, which is not a file of the repository: %s", p.Location.File, p.Message)
				}
				continue
			}
			if p.Message == "" {
				t.Fatalf("a problem without a message at %s", manifest.FormatLocation(p.Location))
			}
			if lines := manifest.CountLines([]byte(content)); p.Location.Line > lines {
				t.Fatalf("problem at line %d of %s, which has %d lines: %s", p.Location.Line, p.Location.File, lines, p.Message)
			}
		}
	})
}

// FuzzSubchartArchive loads a chart whose subchart archive is fuzzed:
// whatever it holds, the load finishes, within the chart's size budget,
// without a panic. Seeds are an archive, an archive inside one, and one
// that decompresses past the budget.
func FuzzSubchartArchive(f *testing.F) {
	f.Add(tgz(f, "s", map[string]any{"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: s\n"}))
	f.Add(tgz(f, "o", map[string]any{"charts/i-0.1.0.tgz": tgz(f, "i", map[string]any{"values.yaml": "a: &A {b: *A}\n"})}))
	f.Add(tgz(f, "big", map[string]any{"files/a": 900 << 10, "files/b": 900 << 10}))
	f.Add([]byte("\x1f\x8b\x08"))
	f.Fuzz(func(t *testing.T, archive []byte) {
		fsys := archiveChart(map[string][]byte{"charts/s-0.1.0.tgz": archive})
		limits := manifest.Limits{MaxTargetBytes: 1 << 20, MaxFileBytes: 1 << 20, MaxTargetTime: time.Second}
		if c, err := LoadChart(fsys, "c", limits); err == nil {
			NewRenderer(fsys, limits).Render(c, Request{Target: "c", KubeVersion: "v1.37.0"})
		}
	})
}
