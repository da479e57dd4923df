package compare

import (
	"math"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/value"
)

// yamlWords are strings that stress YAML printing: words other types claim,
// indicators, quotes, blank and control characters, line breaks, long text.
var yamlWords = []string{"", "a", "yes", "No", "on", "off", "y", "null", "~", "true", "1", "012", "0x1F", "0o17", "1e3", ".5", "-1",
	"+1", "1_000", "1:20", "2024-01-01", "2001-12-14t21:59:43.10-05:00", "<<", "=", "a: b", "a #b", "#x", "- x", "-x", "x:", ":x",
	"'q'", "\"dq\"", "tab\there", "back\\slash", "multi\nline", "multi\nline\n", "trailing\n\n\n", "\nleading", "  spaced",
	"spaced  ", "line \nwith space", "\n", "ünïcödé", "emoji 😀", "ctrl\x01char", "[x]", "{x}", "*alias", "&anchor", "!tag",
	"%pct", "@at", "`tick", "|pipe", ">gt", "a,b", "?q", "x\n  indented\nback", "\tstarts with tab\nx", "---", "...", "a\r\nb",
	"\u2028sep", "a10", "a9", "A_", "_a", "Z", "key.with/dots",
	strings.Repeat("word ", 30), "--option=" + strings.Repeat("x", 100), "lead " + strings.Repeat("long-token-", 12) + " tail",
	`{"effect": "PreferredDuringScheduling", "other": "` + strings.Repeat("x", 60) + `"}`}

// yamlNumbers are numbers whose printing depends on the JSON step.
var yamlNumbers = []any{int64(0), int64(-7), int64(math.MaxInt64), int64(math.MinInt64), float64(0), math.Copysign(0, -1),
	1.0, 1.5, -2.25, 1e6, 1e15, 1e20, 1e21, 1.5e300, 1e-7, 0.000001, 123456789.5, 9007199254740993.0,
	float64(1<<63 - 1024), float64(1 << 63), float64(1<<64 - 2048), -float64(1 << 63), 5e-324}

// genTree builds a deterministic value tree from a seed.
func genTree(depth, seed int) any {
	switch {
	case depth > 3 || seed%7 == 0:
		switch seed % 6 {
		case 0, 1:
			return yamlNumbers[seed%len(yamlNumbers)]
		case 2:
			return seed%2 == 0
		case 3:
			return nil
		}
		return yamlWords[seed%len(yamlWords)]
	case seed%3 == 0:
		l := []any{}
		for i := 0; i < seed%4; i++ {
			l = append(l, genTree(depth+1, seed*31+i*17+1))
		}
		return l
	}
	m := map[string]any{}
	for i := 0; i < seed%6; i++ {
		m[yamlWords[(seed+i*13)%len(yamlWords)]] = genTree(depth+1, seed*37+i*11+2)
	}
	return m
}

// TestYAMLTextIsWhatKubectlPrints checks byte for byte that yamlText prints
// what sigs.k8s.io/yaml (kubectl's differ, hence kube-compare) prints.
func TestYAMLTextIsWhatKubectlPrints(t *testing.T) {
	check := func(name string, v any) {
		t.Helper()
		want, err := sigsyaml.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := yamlText(v); got != string(want) {
			t.Fatalf("%s: yamlText printed\n%s\nsigs.k8s.io/yaml prints\n%s", name, got, want)
		}
	}
	for i, w := range yamlWords {
		check("word "+w, map[string]any{w: w, "list": []any{w}, "k": map[string]any{"n": yamlNumbers[i%len(yamlNumbers)]}})
	}
	for _, n := range yamlNumbers {
		check("number", map[string]any{"n": n, "l": []any{n}})
	}
	for seed := 1; seed < 500; seed++ {
		check("generated tree", map[string]any{"root": genTree(0, seed), yamlWords[seed%len(yamlWords)]: genTree(1, seed+1)})
	}
	// Text that is not UTF-8 (trees never hold it: every source is UTF-8).
	check("invalid UTF-8", map[string]any{"bad \xff key": "bad \xfe value", "l": []any{"\xc3"}})
	// Values that are not trees (what a template function may build).
	check("struct", struct {
		B []string `json:"b"`
		A int      `json:"a"`
	}{[]string{"x"}, 1})
}

func TestYAMLTextNormalisation(t *testing.T) {
	v := map[string]any{
		"spec": map[string]any{
			"args":     []any{"-P", "29.25", map[string]any{"name": "x", "env": []any{}}},
			"replicas": 3.0,
			"ratio":    0.5,
			"flag":     "yes",
			"big":      1e6,
			"script":   "#!/bin/sh\necho hi\n",
			"note":     strings.Repeat("lorem ipsum ", 10),
		},
		"a10": int64(1), "a9": int64(2), "apiVersion": "v1", "empty": map[string]any{}, "none": nil,
	}
	want := `a9: 2
a10: 1
apiVersion: v1
empty: {}
none: null
spec:
  args:
  - -P
  - "29.25"
  - env: []
    name: x
  big: 1000000
  flag: "yes"
  note: 'lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem ipsum lorem
    ipsum lorem ipsum lorem ipsum lorem ipsum '
  ratio: 0.5
  replicas: 3
  script: |
    #!/bin/sh
    echo hi
`
	if got := yamlText(v); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestYAMLTextNonFiniteNumbers(t *testing.T) {
	// JSON cannot hold them (kubectl would fail); plumb prints YAML's names.
	got := yamlText(map[string]any{"a": math.NaN(), "b": math.Inf(1), "c": math.Inf(-1)})
	if want := "a: .nan\nb: .inf\nc: -.inf\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestMapLinesOnPrintedYAML: every line of a printed tree, folded and
// block strings included, is attributed to a field the tree has.
func TestMapLinesOnPrintedYAML(t *testing.T) {
	for seed := 1; seed < 500; seed++ {
		v := map[string]any{"root": genTree(0, seed), "z": map[string]any{"long": strings.Repeat("folded words ", 12)}}
		text := yamlText(v)
		lp := mapLines(text)
		if len(lp.spans) == 0 {
			t.Fatalf("seed %d: no field found in\n%s", seed, text)
		}
		for _, s := range lp.spans {
			if _, ok := manifest.Lookup(v, s.path); !ok {
				t.Fatalf("seed %d: line %d attributed to %s, which the tree lacks:\n%s", seed, s.start, s.path, text)
			}
		}
		for l := 1; l <= strings.Count(text, "\n"); l++ {
			if _, ok := manifest.Lookup(v, lp.line[l]); !ok {
				t.Fatalf("seed %d: line %d attributed to %s, which the tree lacks:\n%s", seed, l, lp.line[l], text)
			}
		}
		last := lp.spans[len(lp.spans)-1]
		if last.path.String() != "z.long" || last.end != strings.Count(text, "\n") || last.end != last.start+1 {
			t.Fatalf("seed %d: the folded string spans %+v:\n%s", seed, last, text)
		}
	}
}

func TestParseYAMLObject(t *testing.T) {
	got, err := parseYAMLObject("t.yaml", "---\nkind: A\nn: 1\nbig: 9007199254740993\nf: 1.5\nyes: yes\noct: 012\nts: 2024-01-01\nx: 1\nx: 2\n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"kind": "A", "n": int64(1), "big": int64(9007199254740993), "f": 1.5, "yes": "yes",
		"oct": int64(10), "ts": "2024-01-01", "x": int64(2)}
	if !value.Equal(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
	for _, typ := range []any{got["n"], got["big"], got["oct"]} {
		if _, ok := typ.(int64); !ok {
			t.Errorf("%v is %T, want int64", typ, typ)
		}
	}
	if m, err := parseYAMLObject("t.yaml", "# only a comment\n"); err != nil || len(m) != 0 {
		t.Errorf("empty text: %v %v", m, err)
	}
	for text, msg := range map[string]string{
		"- a\n- b\n":             "the YAML is a list, not a mapping",
		"plain\n":                "the YAML is a string, not a mapping",
		"a: 1\n---\nb: 2\n":      "2 YAML documents where one object was expected (the second starts at line 3)",
		"a: 1\nb: [1, 2\nc: 3\n": "line 2: YAML syntax error",
		"a:\n  b: 1\n c: 2\n":    "line 3: YAML syntax error",
		"a: &x [*x]\n":           "",
	} {
		_, err := parseYAMLObject("t.yaml", text)
		if msg == "" {
			continue
		}
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q: got %v, want %q", text, err, msg)
		}
	}
}
