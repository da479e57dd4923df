package compare

import (
	"context"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// slowYAML is the yaml.v3 path the fast parser must agree with.
func slowYAML(text string) (any, bool) {
	docs, problems := manifest.Parse("t.yaml", []byte(text), manifest.Limits{})
	for _, p := range problems {
		if p.Rule != manifest.RuleDuplicateKey {
			return nil, false
		}
	}
	if len(docs) != 1 {
		return nil, false
	}
	return docs[0].Value, true
}

// sameValue is reflect.DeepEqual with NaN equal to NaN.
func sameValue(a, b any) bool {
	if fa, ok := a.(float64); ok {
		if fb, ok := b.(float64); ok && math.IsNaN(fa) && math.IsNaN(fb) {
			return true
		}
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k := range x {
			if _, ok := y[k]; !ok || !sameValue(x[k], y[k]) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// checkFast asserts that whenever the fast parser accepts a text, it
// produces exactly what yaml.v3 produces (types included), and that it
// never accepts what yaml.v3 rejects.
func checkFast(t *testing.T, name, text string) (accepted bool) {
	t.Helper()
	fast, ok := parseFastYAML(text)
	if !ok {
		return false
	}
	slow, slowOK := slowYAML(text)
	if !slowOK {
		t.Errorf("%s: the fast parser accepted what yaml.v3 rejects:\n%s", name, text)
		return true
	}
	if !sameValue(fast, slow) {
		t.Errorf("%s: fast %#v\n yaml.v3 %#v\ntext:\n%s", name, fast, slow, text)
	}
	return true
}

func TestFastYAMLAgreesWithYAMLv3(t *testing.T) {
	cases := []string{
		"a: 1\nb: two\nc: 1.5\nd: true\ne: null\nf: ~\ng:\nh: ''\ni: \"\"\n",
		"n: 012\nx: 0x1F\no: 0o17\nbin: 0b101\nneg: -3\nplus: +4\nund: 1_000\nbig: 9223372036854775808\nexp: 1e3\ninf: .inf\nninf: -.Inf\nnan: .nan\n",
		"yes: yes\nno: no\non: on\nY: y\nTrue: True\nFALSE: FALSE\nNull: Null\n",
		"date: 2024-01-01\nts: 2001-12-14t21:59:43.10-05:00\nver: 4.22\nver3: 4.22.1\nip: 10.0.0.1\n",
		"list:\n- a\n- 1\n-\n- - nested\n",
		"list:\n  - a\n  - b: 1\n    c: 2\n  - name: x\n    sub:\n    - y\nafter: z\n",
		"m:\n  k: v # comment\n  # full comment\n  q: 'it''s'\n  d: \"tab\\tnew\\nline \\u00e9 \\\" \\\\\"\n",
		"lit: |\n  line one\n    indented\n\n  after blank\nnext: x\n",
		"strip: |-\n  a\n  b\n\n\nkeep: |+\n  a\n\n\nclip: |\n  a\n\n\nend: 1\n",
		"empty: |\nafter: 1\n",
		"lit: |  # comment\n  # not a comment\n  text\n",
		"flow: {a: 1, b: [x, 'y', \"z\"], c: {}}\nempty: []\nnested: [[1, 2], {k: v}]\n",
		"---\n# doc comment\napiVersion: v1\nkind: ConfigMap\n",
		"'quoted key': 1\n\"dq key\": 2\nkey with spaces: 3\nurl: http://example.com:8080/x\ncolon:in:key: v\n",
		"a: b: c\n", "a:\n  - x\n - y\n", "a: [1, 2\n", "a: 'unclosed\n", "key: &anchor v\nother: *anchor\n",
		"a: !!str 1\n", "a: >\n  folded\n", "a: multi\n  line plain\n", "- top\n- level\n", "a: 1\n---\nb: 2\n",
		"<<: {a: 1}\n", "a:\tb\n", "a: |\n\t tab\n", "? complex\n: v\n", "a: 1\na: 2\n", "a: -\n", "a: - x\n",
		"a: [a: 1]\n", "a: {b}\n", "a: [1,]\n", "x: \"\\q\"\n", "weird: @x\n", "k: v\n  extra: 1\n",
		"a: |\n   three\n  two\n", "a: |\n  \n  x\n", "a: |2\n  x\n", "s: 'a # not comment'\nt: a#b\nu: a #c\n",
		"x: 1\n...\n", "%YAML 1.2\n---\na: 1\n", "a: \"multi\n  line\"\n", "emoji: \"\\U0001F600\"\nraw: ü\n",
		"neg: -foo\ndash: -\n", "x: [-1, -a, - b]\n", "m: {\"a b\": 1, 'c': [x]}\n", "x: {a: 1,b: 2}\n",
	}
	for i, c := range cases {
		checkFast(t, "case "+string(rune('A'+i%26)), c)
	}
}

func TestFastYAMLOnRealData(t *testing.T) {
	// Every YAML file of the repository's fixtures and testdata, and every
	// rendered RAN template output, must parse identically (or fall back).
	root := repoRoot(t)
	var texts []string
	for _, dir := range []string{"fixtures", "internal"} {
		_ = filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				if data, err := os.ReadFile(p); err == nil {
					texts = append(texts, string(data))
				}
			}
			return nil
		})
	}
	accepted := 0
	for i, text := range texts {
		if checkFast(t, "file "+string(rune('0'+i%10)), text) {
			accepted++
		}
	}
	t.Logf("fixtures: %d of %d texts parsed by the fast path", accepted, len(texts))

	if _, err := os.Stat(filepath.Join(root, "..", "shared", "corpus", "telco-ran-reference", "metadata.yaml")); err != nil {
		return
	}
	ref := loadRAN(t)
	inputs := ranInputs(t, ref)
	r := newRun(ref, inputs, Options{})
	rendered, fastOK := 0, 0
	for _, in := range inputs {
		for _, i := range ref.index.candidates(identityOf(in.Content)) {
			tmpl := r.tmpls[i]
			var out cappedBuffer
			out.limit = maxRenderBytes
			live := copyMap(in.Content)
			omitFields(live, ref.Templates[i].omit)
			if err := tmpl.Execute(&out, live); err != nil {
				continue
			}
			text := strings.ReplaceAll(out.String(), "<no value>", "")
			rendered++
			if checkFast(t, ref.Templates[i].Path, text) {
				fastOK++
			}
		}
		if checkFast(t, "input", yamlText(in.Content)) {
			fastOK++
		}
		rendered++
	}
	t.Logf("RAN: %d of %d rendered texts parsed by the fast path", fastOK, rendered)
	if fastOK < rendered*9/10 {
		t.Errorf("the fast path handles only %d of %d RAN outputs", fastOK, rendered)
	}
	_ = context.Background
}

// TestYAMLTextRoundTrips prints generated value trees and reads them back
// with both parsers: the text must always mean the same value.
func TestYAMLTextRoundTrips(t *testing.T) {
	words := []string{"", "a", "yes", "No", "on", "null", "~", "true", "1", "012", "0x1F", "1e3", ".5", "-1", "+1", "1_000",
		"2024-01-01", "<<", "a: b", "a #b", "#x", "- x", "-x", "x:", ":x", "key: value", "'q'", "\"dq\"", "tab\there", "back\\slash",
		"multi\nline", "multi\nline\n", "trailing\n\n\n", "\nleading", "  spaced", "spaced  ", "line \nwith space", "\n", "\n\n",
		"ünïcödé", "emoji 😀", "ctrl\x01char", "bell\a", "[x]", "{x}", "*alias", "&anchor", "!tag", "%pct", "@at", "`tick", "|pipe", ">gt",
		"a,b", "?q", "x\n  indented\nback", "\tstarts with tab\nx", "#comment\nline", "---", "...", "a\r\nb", "\ufeffbom"}
	var gen func(depth, seed int) any
	gen = func(depth, seed int) any {
		switch {
		case depth > 3 || seed%7 == 0:
			switch seed % 5 {
			case 0:
				return int64(seed*7919) - 50000
			case 1:
				return float64(seed) / 8
			case 2:
				return seed%2 == 0
			case 3:
				return nil
			}
			return words[seed%len(words)]
		case seed%3 == 0:
			l := []any{}
			for i := 0; i < seed%4; i++ {
				l = append(l, gen(depth+1, seed*31+i*17+1))
			}
			return l
		}
		m := map[string]any{}
		for i := 0; i < seed%5; i++ {
			m[words[(seed+i*13)%len(words)]] = gen(depth+1, seed*37+i*11+2)
		}
		return m
	}
	for seed := 1; seed < 400; seed++ {
		v := map[string]any{"root": gen(0, seed), words[seed%len(words)]: gen(1, seed+1)}
		text := yamlText(v)
		slow, ok := slowYAML(text)
		if !ok || !deepEqual(slow, v) { // whole floats read back as integers, as in kube-compare
			t.Fatalf("seed %d: yaml.v3 reads back %#v\nwant %#v\ntext:\n%s", seed, slow, v, text)
		}
		if fast, ok := parseFastYAML(text); ok && !sameValue(fast, slow) {
			t.Fatalf("seed %d: the fast parser reads back %#v\ntext:\n%s", seed, fast, text)
		}
	}
}
