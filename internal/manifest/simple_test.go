package manifest

import (
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/testcorpus"
)

// sameAsParse checks DecodeSimple against Parse on text: when DecodeSimple
// takes the text, Parse must read the same value with no problem but
// duplicate keys. It returns whether DecodeSimple took it.
func sameAsParse(t *testing.T, name, text string) bool {
	t.Helper()
	v, ok := DecodeSimple(text)
	if !ok {
		return false
	}
	docs, problems := Parse(name, []byte(text), Limits{MaxFileBytes: 8 << 20})
	for _, p := range problems {
		if p.Rule != RuleDuplicateKey {
			t.Errorf("%s: DecodeSimple took a text Parse reports (%s: %s):\n%s", name, p.Rule, p.Message, text)
			return true
		}
	}
	var want any
	switch len(docs) {
	case 0:
	case 1:
		want = docs[0].Value
	default:
		t.Errorf("%s: DecodeSimple took a text of %d documents:\n%s", name, len(docs), text)
		return true
	}
	if !reflect.DeepEqual(v, want) {
		t.Errorf("%s: DecodeSimple read\n%#v\nParse read\n%#v\nfrom:\n%s", name, v, want, text)
	}
	return true
}

func TestDecodeSimpleTakes(t *testing.T) {
	for name, tc := range map[string]struct {
		text string
		want any
	}{
		"deployment": {strings.Split(deployment, "---")[0], nil},
		"typed scalars": {"a: 1\nb: 1.5\nc: true\nd: null\ne: ~\nf: \"1\"\ng: '2'\nh: 0x1F\ni: 2001-12-14\nj: 1_000\nk: -3\nl: +4\nm: .5\nn: yes\no: False\n", map[string]any{
			"a": int64(1), "b": 1.5, "c": true, "d": nil, "e": nil, "f": "1", "g": "2", "h": int64(31), "i": "2001-12-14",
			"j": int64(1000), "k": int64(-3), "l": int64(4), "m": 0.5, "n": "yes", "o": false}},
		"comments": {"# head\na: b # tail\nc: 'x' # q\nd: e#f\n  # indented comment\ng:\n  # inside\n  h: i\n", map[string]any{
			"a": "b", "c": "x", "d": "e#f", "g": map[string]any{"h": "i"}}},
		"quotes": {"a: 'it''s'\nb: ''\nc: \"\"\nd: \"a: b # c\"\ne: 'x''''y'\nf: 'registry\\.example\\.com'\n", map[string]any{
			"a": "it's", "b": "", "c": "", "d": "a: b # c", "e": "x''y", "f": "registry\\.example\\.com"}},
		"plain with colons and brackets": {"a: http://x:80/y\nb: a,b[0]{c}\nc: a :b\nd: -x\ne: ?y\nf: 'a' \n", map[string]any{
			"a": "http://x:80/y", "b": "a,b[0]{c}", "c": "a :b", "d": "-x", "e": "?y", "f": "a"}},
		"flow": {"a: [ALL]\nb: {path: /healthz, port: http}\nc: []\nd: {}\ne: [1, 'x, y', \"z\", a b]\nf: {cpu: 100m,memory: 128Mi} # c\n", map[string]any{
			"a": []any{"ALL"}, "b": map[string]any{"path": "/healthz", "port": "http"}, "c": []any{}, "d": map[string]any{},
			"e": []any{int64(1), "x, y", "z", "a b"}, "f": map[string]any{"cpu": "100m", "memory": "128Mi"}}},
		"sequences": {"a:\n- x\n- y: 1\n  z: 2\n-\n  w: 3\n- # c\n-\nb:\n  - - \n", nil},
		"lists level with keys": {"a:\n- 1\nb:\n  c:\n  - 2\n  d: 3\n", map[string]any{
			"a": []any{int64(1)}, "b": map[string]any{"c": []any{int64(2)}, "d": int64(3)}}},
		"mapping on the dash line": {"items:\n  -   name: a\n      value: b\n  - name: c\n", map[string]any{
			"items": []any{map[string]any{"name": "a", "value": "b"}, map[string]any{"name": "c"}}}},
		"empty values":  {"a:\nb: \nc:\n# x\nd: 1\n", map[string]any{"a": nil, "b": nil, "c": nil, "d": int64(1)}},
		"duplicate key": {"a: 1\na: 2\n", map[string]any{"a": int64(2)}},
		"literal block scalars": {"a: |\n  x: 1 # not a comment\n\n  # nor this\n    deeper  \n\n\nb: |-\n  y\n  z\nc:\n- |\n  w\n- |-\n   v\nd: 1\n", map[string]any{
			"a": "x: 1 # not a comment\n\n# nor this\n  deeper  \n", "b": "y\nz", "c": []any{"w\n", "v"}, "d": int64(1)}},
		"nested flow": {"a: {command: [/bin/sh, -c, 'x']}\nb: [[1, 2], {c: {}}, []]\n", map[string]any{
			"a": map[string]any{"command": []any{"/bin/sh", "-c", "x"}},
			"b": []any{[]any{int64(1), int64(2)}, map[string]any{"c": map[string]any{}}, []any{}}}},
		"indented root": {"  a: 1\n  b: 2\n", map[string]any{"a": int64(1), "b": int64(2)}},
		"empty":         {"", nil},
		"only comments": {"# a\n\n   # b\n", nil},
	} {
		t.Run(name, func(t *testing.T) {
			if name == "sequences" {
				// "- - " is a list in a list: not taken.
				if _, ok := DecodeSimple(tc.text); ok {
					t.Fatalf("took %q", tc.text)
				}
				tc.text = strings.TrimSuffix(tc.text, "b:\n  - - \n")
			}
			if !sameAsParse(t, name, tc.text) {
				t.Fatalf("not taken:\n%s", tc.text)
			}
			if tc.want != nil {
				if v, _ := DecodeSimple(tc.text); !reflect.DeepEqual(v, tc.want) {
					t.Errorf("read %#v, want %#v", v, tc.want)
				}
			}
		})
	}
}

func TestDecodeSimpleLeavesToParse(t *testing.T) {
	for _, text := range []string{
		"- a\n- b\n",                       // a list at the root
		"a\n",                              // a scalar at the root
		"a: 1\n---\nb: 2\n",                // two documents
		"---\na: 1\n",                      // a document marker
		"%YAML 1.2\n---\na: 1\n",           // a directive
		"a: &x 1\nb: *x\n",                 // anchor, alias
		"<<: {a: 1}\n",                     // merge key
		"a: !!str 1\n",                     // tag
		"a: >-\n  x\n",                     // folded, keep and indented block scalars
		"a: |+\n  x\n",                     //
		"a: |2\n  x\n",                     //
		"a: | # c\n  x\n",                  //
		"a: |\n  x",                        // a block scalar ending the text without a line break
		"a: |\nb: 1\n",                     // an empty block scalar
		"a: |\n\n  x\n",                    // a blank line before the first
		"a: |\n  x\n     \n",               // a blank line with more spaces than the indentation
		"a: |\n    x\n  y\n",               // a line between the levels after it
		"a: b\n  c\n",                      // a multi-line plain scalar
		"a:\n  b\n",                        // a scalar on the line below its key
		"- a\n  b\n",                       //
		"a: 'b\n  c'\n",                    // a multi-line quoted scalar
		"a: \"b\\n\"\n",                    // an escape
		"\"a\": 1\n",                       // a quoted key
		"a b: 1\n",                         // a key with a space
		"a:b\n",                            // no space after the colon
		"a: b: c\n",                        // a mapping where a value is
		"a: b:\n",                          //
		"a: [x,]\n",                        // an empty flow item
		"a: {b}\n",                         // a flow key without a value
		"a: [x #y]\n",                      //
		"a: [x: y]\n",                      //
		"a: [x]y\n",                        // text after a flow collection
		"a: 'x'y\n",                        // text after a quoted scalar
		"a:\t1\n",                          // a tab
		"a: 1\r\nb: 2\r\n",                 // CRLF
		"\xef\xbb\xbfa: 1\n",               // a byte-order mark
		"a: caf\xc3\xa9\n",                 // UTF-8
		"a: .nan\n",                        // numbers JSON cannot hold
		"a: [-.Inf]\n",                     //
		"a:\n    b: 1\n  c: 2\n",           // an indentation between levels
		"a:\n  - x\n   - y\n",              //
		"- a: 1\n   b: 2\n",                //
		"a: - x\n",                         // a dash where a value is
		"a: -\n",                           //
		"a: @x\n",                          // reserved indicators
		"a: `x`\n",                         //
		"a:\n- - x\n",                      // a list in a list on one line
		"? a\n: b\n",                       // complex key
		"a: 1\n  b: 2\n",                   // a mapping below a scalar
		"...\n",                            // document end
		strings.Repeat("a:\n  ", 70) + "b", // deeper than simpleMaxDepth
	} {
		if v, ok := DecodeSimple(text); ok {
			t.Errorf("took %q as %#v", text, v)
		}
	}
}

// TestDecodeSimpleFiles compares DecodeSimple with Parse on every document
// of every YAML file of the repository's test data and of the shared
// corpus, and checks that it takes most of the real-world documents.
func TestDecodeSimpleFiles(t *testing.T) {
	dirs := []string{"..", filepath.Join("..", "..", "fixtures"), filepath.Join("..", "..", "reference")}
	var corpus string
	if testing.Short() {
		t.Log("-short: the shared corpus is left out")
	} else {
		corpus = testcorpus.Dir(t)
		dirs = append(dirs, corpus)
	}
	var docs, taken, corpusDocs, corpusTaken int
	testcorpus.WalkYAML(t, dirs, func(path string, data []byte) {
		sameAsParse(t, path, string(data))
		for i, c := range splitDocuments(data) {
			text := string(c.data)
			if i > 0 {
				text = text[strings.IndexByte(text+"\n", '\n'):] // the "---" line
			}
			took := sameAsParse(t, path, text)
			docs++
			if corpus != "" && strings.HasPrefix(path, corpus) && strings.Contains(text, "apiVersion:") {
				corpusDocs++
				if took {
					corpusTaken++
				}
			}
			if took {
				taken++
			}
		}
	})
	t.Logf("DecodeSimple took %d of %d documents; %d of %d manifests of the shared corpus", taken, docs, corpusTaken, corpusDocs)
	if corpusDocs > 0 && corpusTaken*2 < corpusDocs {
		t.Errorf("DecodeSimple took only %d of the shared corpus's %d manifests", corpusTaken, corpusDocs)
	}
}

// FuzzDecodeSimple checks that whatever DecodeSimple takes, Parse reads
// the same way.
func FuzzDecodeSimple(f *testing.F) {
	for _, seed := range []string{
		strings.Split(deployment, "---")[0],
		"a: 'it''s'\nb: [x, 'y', \"z\"]\nc: {d: 1}\n",
		"a:\n- x\n- y: 1\n  z: 2\n",
		"a: b # c\nd: e#f\n",
		"items:\n  -   name: a\n      value: b\n",
		"a: 0x1F\nb: 1e3\nc: .5\nd: 2001-12-14\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		sameAsParse(t, "f.yaml", text)
	})
}

// TestDecodeSimpleRandom compares DecodeSimple with Parse on texts put
// together from the pieces that decide between them (indentation, dashes,
// quotes, flow brackets, comments, scalars of every type), where random
// bytes would rarely make YAML.
func TestDecodeSimpleRandom(t *testing.T) {
	pieces := []string{
		"a", "b", "key", "a.b/c", "-", "- ", ": ", ":", " ", "  ", "\n", "\n  ", "\n    ", "\n- ", "\n  - ", "#", " #", "'", "''", "\"",
		"[", "]", "{", "}", ",", ", ", "1", "-1", "0x1F", "1.5", ".inf", "true", "null", "~", "yes", "2001-12-14", "1e999", "?", "|", ">",
		"&", "*", "!", "%", "@", "\\", "http://x", "a b", "---", "...",
	}
	// pick takes one of good, or one of bad one time in ten.
	rng := rand.New(rand.NewPCG(24, 3))
	pick := func(good, bad []string) string {
		if rng.IntN(10) == 0 {
			return bad[rng.IntN(len(bad))]
		}
		return good[rng.IntN(len(good))]
	}
	values := []string{
		"", "x", "1", "-1", "0x1F", "1.5", "true", "null", "~", "yes", "2001-12-14", "1e999", "a b", "http://x:1",
		"'q'", "'it''s'", "''", "\"d\"", "[a, 1]", "[]", "{a: 1, b: x}", "{}", "a#c", "'a' #c", "[a] #c", "-x",
		"|", "|-", "[a, [b, {c: d}]]", "{a: {b: [c]}}",
	}
	badValues := []string{
		".inf", "-.Inf", "\"a\\n\"", "{a}", "[a,]", "|+", ">-", "| #c", "&x 1", "*x", "!!str 1", "a: b", "a:", "- x", "-", "?", "@x",
		"'a'b", "\"a\" x", "'a", "[a",
	}
	var took int
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		if i%2 == 0 { // line by line: indentation, a dash, a key, a value, a comment
			levels, opened := []int{0}, false
			for n := 1 + rng.IntN(10); n > 0; n-- {
				if opened && rng.IntN(10) < 7 {
					levels = append(levels, levels[len(levels)-1]+2)
				} else {
					levels = levels[:1+rng.IntN(len(levels))]
				}
				b.WriteString(strings.Repeat(" ", levels[len(levels)-1]))
				b.WriteString(pick([]string{""}, []string{" ", "\t", "   "}))
				dash := rng.IntN(4) == 0
				if dash {
					b.WriteString(pick([]string{"- ", "-   "}, []string{"-", "- - "}))
				}
				value := pick(values, badValues)
				if !dash || rng.IntN(2) == 0 {
					b.WriteString(pick([]string{"a", "b", "c", "a.b/c", "k-1", "k_2"}, []string{"'k'", "k k", "<<", "-k", "? k"}))
					if value == "" {
						b.WriteString(pick([]string{":"}, []string{" :", ":x"}))
					} else {
						b.WriteString(pick([]string{": ", ":  "}, []string{" : ", ":"}))
					}
				}
				b.WriteString(value)
				opened = value == "" || strings.HasPrefix(value, "|")
				if rng.IntN(6) == 0 {
					b.WriteString(pick([]string{" # c", "   "}, []string{"#c", "\r"}))
				}
				b.WriteString("\n")
			}
		} else if i%4 == 1 { // a block scalar, its lines, what follows it
			b.WriteString(pick([]string{"a:", "a:\n- ", "a:\n  - b: 1\n    c:"}, []string{"a: - "}))
			b.WriteString(pick([]string{" |", " |-", " |\n", " |-\n"}, []string{" |+", " >", " |1", " | #c"}))
			for n := rng.IntN(6); n > 0; n-- {
				b.WriteString(strings.Repeat(" ", rng.IntN(7)))
				b.WriteString(pick([]string{"x", "# c", "a: b", "- x", "'q", "", "y  "}, []string{"\t", "\r"}))
				b.WriteString("\n")
			}
			b.WriteString(pick([]string{"", "d: 1\n", "  e: 2\n", "# c\n"}, []string{"d: 1", "x"}))
		} else {
			for n := 1 + rng.IntN(30); n > 0; n-- {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
		}
		if sameAsParse(t, "r.yaml", b.String()) {
			took++
		}
	}
	t.Logf("DecodeSimple took %d of 20000 texts", took)
	if took < 1000 {
		t.Errorf("DecodeSimple took only %d of 20000 texts: the comparison tests too little", took)
	}
}
