package renderdiff

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/workflowcmd"
)

// tricky are strings that a careless YAML printer gets wrong.
var tricky = []string{
	"", " ", "x", " x", "x ", "yes", "No", "ON", "off", "y", "N", "true", "False", "null", "Null", "~",
	"1", "1.0", "-1", "+1", ".5", "1e3", "1E-3", "0x1F", "0o17", "0b101", "1_000", "017", "12:30", "1:20:30",
	"2001-12-14", "2001-12-14t21:59:43.10-05:00", ".inf", "-.Inf", ".NaN", "+.inf",
	"128Mi", "100m", "1.2.3", "v1.2.3", "1.2.3-rc1", "0.0.0.0", "10.0.0.1:8080",
	"a: b", "a:b", "a #b", "a#b", "#x", "x:", "-", "- x", "-x", "--flag=1", "---", "...", "?x", "? x",
	":x", ",x", "[x]", "{x}", "*x", "&x", "!x", "|x", ">x", "'q'", "\"q\"", "%x", "@x", "`x",
	"<<", "=", "ünïcödé", "emoji 🎉", "tab\there", "cr\rhere", "nul\x00here", "bell\a", "\ufeffbom",
	"foo\nbar", "foo\n", "foo\n\n", "foo\n\n\n", "\nfoo", " lead\nx", "x\n  indented\n", "x\n \ny", "x\n\ny",
	"trailing space \nx", "# not a comment\n- not a list\nkey: value\n", "a\tb\nc", "C:\\path\\x",
	"https://example.com/a?b=c#d", "registry.example.com/app@sha256:abc", "$(VAR)", "${VAR}", "{{ .x }}",
}

// normaliseDecoded makes yaml.v3's decoded tree comparable with ours: ints
// become int64.
func normaliseDecoded(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = normaliseDecoded(x)
		}
	case []any:
		for i, x := range t {
			t[i] = normaliseDecoded(x)
		}
	case int:
		return int64(t)
	}
	return v
}

func roundTrip(t *testing.T, tree map[string]any) {
	t.Helper()
	var b strings.Builder
	writeYAML(&b, tree)
	var back map[string]any
	if err := yaml.Unmarshal([]byte(b.String()), &back); err != nil {
		t.Fatalf("the output is not YAML: %v\n%s", err, b.String())
	}
	if got := normaliseDecoded(back); !reflect.DeepEqual(got, any(tree)) {
		t.Fatalf("read back differently:\n%s\ngot  %#v\nwant %#v", b.String(), got, tree)
	}
}

func TestWriteYAMLReadsBackTheSameStrings(t *testing.T) {
	for _, s := range tricky {
		roundTrip(t, map[string]any{"v": s, s + "k": "key", "l": []any{s, map[string]any{"n": s}}})
	}
}

func TestWriteYAMLScalarsAndNesting(t *testing.T) {
	tree := map[string]any{
		"int": int64(-42), "float": 1.5, "whole float": float64(3), "big": 1e21, "inf": math.Inf(1),
		"bool": true, "null": nil, "empty map": map[string]any{}, "empty list": []any{},
		"nested": []any{[]any{"a", []any{"b"}}, map[string]any{"x": []any{map[string]any{"y": "z"}}}, []any{}, map[string]any{}},
	}
	roundTrip(t, tree)
	var b strings.Builder
	writeYAML(&b, map[string]any{"spec": map[string]any{"ports": []any{map[string]any{"port": int64(80), "name": "http"}}, "replicas": int64(2)}})
	want := "spec:\n  ports:\n    - name: http\n      port: 80\n  replicas: 2\n"
	if b.String() != want {
		t.Errorf("layout:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	writeYAML(&b, map[string]any{"data": map[string]any{"config.yaml": "server:\n  port: 8080\n"}})
	if want := "data:\n  config.yaml: |\n    server:\n      port: 8080\n"; b.String() != want {
		t.Errorf("literal block:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteYAMLRandomTrees(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var gen func(depth int) any
	gen = func(depth int) any {
		switch n := r.IntN(10); {
		case depth < 4 && n < 3:
			m := map[string]any{}
			for range r.IntN(4) {
				m[tricky[r.IntN(len(tricky))]] = gen(depth + 1)
			}
			return m
		case depth < 4 && n < 5:
			var l []any
			for range r.IntN(4) {
				l = append(l, gen(depth+1))
			}
			if l == nil {
				l = []any{}
			}
			return l
		case n < 8:
			return tricky[r.IntN(len(tricky))]
		case n < 9:
			return int64(r.IntN(2000) - 1000)
		default:
			return r.IntN(2) == 0
		}
	}
	for range 500 {
		roundTrip(t, map[string]any{"root": gen(0), "other": gen(1)})
	}
}

// A multi-line string whose lines would run as workflow commands in an
// Actions log is double-quoted instead of a literal block.
func TestWriteYAMLNoWorkflowCommandLines(t *testing.T) {
	tree := map[string]any{"script": "echo hi\n  ::error::pwned\n##[group]x\n", "plain": "a\nb\n"}
	roundTrip(t, tree)
	var b strings.Builder
	writeYAML(&b, tree)
	if workflowcmd.HasCommandLine(b.String()) {
		t.Errorf("a line would run as a command:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "plain: |") {
		t.Errorf("a harmless multi-line string lost its literal block:\n%s", b.String())
	}
}
