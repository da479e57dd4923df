package manifest

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

const deployment = `# a comment line
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app.kubernetes.io/name: web
spec:
  replicas: 3
  template:
    spec:
      containers:
        - name: web
          image: "nginx:1.27"
        - name: sidecar
          image: envoy
          args: [--a, --b]
---
apiVersion: v1
kind: Service
metadata:
  name: web
`

func parseOne(t *testing.T, src string) ([]*Document, []Problem) {
	t.Helper()
	return Parse("dir/file.yaml", []byte(src), DefaultLimits)
}

func TestPositionsOfKeysValuesAndItems(t *testing.T) {
	docs, problems := parseOne(t, deployment)
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	if len(docs) != 2 {
		t.Fatalf("got %d documents, want 2", len(docs))
	}
	cases := []struct {
		doc   int
		path  string
		want  Location
		exact bool
	}{
		// A mapping entry spans from its key to the end of a scalar value.
		{0, "apiVersion", Location{"dir/file.yaml", 2, 1, 2, 20}, true},
		{0, "metadata.name", Location{"dir/file.yaml", 5, 3, 5, 12}, true},
		{0, `metadata.labels["app.kubernetes.io/name"]`, Location{"dir/file.yaml", 7, 5, 7, 32}, true},
		{0, "spec.replicas", Location{"dir/file.yaml", 9, 3, 9, 14}, true},
		// A block value spans only its key.
		{0, "spec.template", Location{"dir/file.yaml", 10, 3, 10, 11}, true},
		// Sequence items start at the item.
		{0, "spec.template.spec.containers[1]", Location{"dir/file.yaml", 15, 11, 15, 11}, true},
		// Quoted scalars include their quotes.
		{0, "spec.template.spec.containers[0].image", Location{"dir/file.yaml", 14, 11, 14, 30}, true},
		{0, "spec.template.spec.containers[1].args[1]", Location{"dir/file.yaml", 17, 23, 17, 26}, true},
		// Absent fields resolve to the nearest present ancestor.
		{0, "spec.template.spec.containers[1].resources.limits", Location{"dir/file.yaml", 15, 11, 15, 11}, false},
		{0, "spec.template.spec.containers[5]", Location{"dir/file.yaml", 12, 7, 12, 17}, false},
		{0, "status", Location{"dir/file.yaml", 2, 1, 2, 1}, false},
		// The second document's lines count from the file start.
		{1, "metadata.name", Location{"dir/file.yaml", 22, 3, 22, 12}, true},
		{1, "", Location{"dir/file.yaml", 19, 1, 19, 1}, true},
	}
	for _, c := range cases {
		got, exact := docs[c.doc].Locate(MustParsePath(c.path))
		if got != c.want || exact != c.exact {
			t.Errorf("doc %d Locate(%s) = %+v exact=%v, want %+v exact=%v", c.doc, c.path, got, exact, c.want, c.exact)
		}
	}
}

func TestScalarTyping(t *testing.T) {
	docs, _ := parseOne(t, `a: 3
b: 3.5
c: "3"
d: yes
e: true
f: null
g: 0x1F
h: 1_000
i: 2024-01-02
j: ~
k: 1e3
l: 99999999999999999999
m: !!str 12
n: .inf
`)
	m := docs[0].Value.(map[string]any)
	want := map[string]any{
		"a": int64(3), "b": 3.5, "c": "3", "d": "yes", "e": true, "f": nil, "g": int64(31),
		"h": int64(1000), "i": "2024-01-02", "j": nil, "k": 1000.0, "l": 1e20, "m": "12",
	}
	for k, w := range want {
		if got := m[k]; got != w {
			t.Errorf("%s = %#v (%T), want %#v (%T)", k, got, got, w, w)
		}
	}
	if f, ok := m["n"].(float64); !ok || f < 1e308 {
		t.Errorf("n = %#v, want +Inf", m["n"])
	}
}

func TestMergeKeysAndAliases(t *testing.T) {
	docs, problems := parseOne(t, `defaults: &d
  cpu: 100m
  memory: 64Mi
a:
  <<: *d
  memory: 128Mi
b: *d
`)
	if len(problems) != 0 {
		t.Fatalf("problems: %v", problems)
	}
	m := docs[0].Value.(map[string]any)
	a := m["a"].(map[string]any)
	if a["cpu"] != "100m" || a["memory"] != "128Mi" {
		t.Errorf("merge: a = %v", a)
	}
	if b := m["b"].(map[string]any); b["memory"] != "64Mi" {
		t.Errorf("alias: b = %v", b)
	}
	// Locate follows merge keys to the anchor's node.
	if loc, exact := docs[0].Locate(MustParsePath("a.cpu")); !exact || loc.Line != 2 {
		t.Errorf("Locate(a.cpu) = %+v exact=%v, want line 2", loc, exact)
	}
}

func TestEmptyDocumentsAreIgnored(t *testing.T) {
	docs, problems := parseOne(t, "---\n# only a comment\n---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n---\n")
	if len(problems) != 0 || len(docs) != 1 {
		t.Fatalf("docs=%d problems=%v", len(docs), problems)
	}
	if loc := docs[0].Start(); loc.Line != 5 {
		t.Errorf("document start line = %d, want 5", loc.Line)
	}
}

func TestSyntaxErrorKeepsOtherDocuments(t *testing.T) {
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n   bad: indent\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
	docs, problems := parseOne(t, src)
	if len(docs) != 2 {
		t.Fatalf("got %d documents, want the 2 valid ones", len(docs))
	}
	if len(problems) != 1 {
		t.Fatalf("problems = %v, want one", problems)
	}
	p := problems[0]
	if p.Rule != RuleYAMLSyntax || !p.Input || p.Location.Line != 9 || p.Location.Column != 4 {
		t.Errorf("problem = %+v, want a yaml-syntax input error at line 9 col 4", p)
	}
	if !strings.Contains(p.Message, "YAML syntax error: mapping values are not allowed") {
		t.Errorf("message = %q", p.Message)
	}
}

func TestDuplicateKeys(t *testing.T) {
	docs, problems := parseOne(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\ndata:\n  k: 1\n")
	if len(docs) != 1 {
		t.Fatalf("the document should still load")
	}
	if len(problems) != 1 {
		t.Fatalf("problems = %v", problems)
	}
	p := problems[0]
	want := Location{File: "dir/file.yaml", Line: 5, Column: 3}
	if p.Rule != RuleDuplicateKey || !p.Input || p.Location != want || p.Related[0].Line != 4 {
		t.Errorf("problem = %+v", p)
	}
	if p.Message != `duplicate key "name" (first defined at line 4): keep one of them; kubectl rejects this, and many tools silently keep only the last value` {
		t.Errorf("message = %q", p.Message)
	}
	// The last value wins, as in kubectl's decoder before it rejects.
	if name := docs[0].Value.(map[string]any)["metadata"].(map[string]any)["name"]; name != "b" {
		t.Errorf("name = %v", name)
	}
}

func TestDuplicateKeysInsideAliasesAreReportedOnce(t *testing.T) {
	_, problems := parseOne(t, "a: &x\n  k: 1\n  k: 2\nb: *x\nc: *x\n")
	if len(problems) != 1 || problems[0].Location.Line != 3 {
		t.Errorf("problems = %v, want one at line 3", problems)
	}
}

func TestBillionLaughsFailsFast(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [", i, i)
		for j := 0; j < 10; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "*a%d", i-1)
		}
		b.WriteString("]\n")
	}
	start := time.Now()
	docs, problems := parseOne(t, b.String())
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("took %v", elapsed) // bounded, not a timing benchmark
	}
	if len(docs) != 0 || len(problems) != 1 {
		t.Fatalf("docs=%d problems=%v", len(docs), problems)
	}
	p := problems[0]
	if p.Rule != RuleAliasLimit || !p.Input || !strings.Contains(p.Message, "billion laughs") {
		t.Errorf("problem = %+v", p)
	}
	// Reported at the alias whose expansion went over the limit, not
	// inside the anchored content on line 1: lines 2-4 expand to 12,330
	// nodes, each *a3 to 11,111, so a4's eighth reference (column 45)
	// passes 100,000.
	if p.Location.Line != 5 || p.Location.Column != 45 {
		t.Errorf("problem at %s, want line 5 column 45", FormatLocation(p.Location))
	}
}

func TestDepthLimit(t *testing.T) {
	src := strings.Repeat("[", 600) + strings.Repeat("]", 600)
	_, problems := parseOne(t, src)
	if len(problems) != 1 || problems[0].Rule != RuleTooDeep || !strings.Contains(problems[0].Message, "deeper than 500") {
		t.Fatalf("problems = %v", problems)
	}
	// yaml.v3's own limit (10,000) is reported as a syntax error, never a crash.
	_, problems = parseOne(t, strings.Repeat("[", 10001))
	if len(problems) != 1 || problems[0].Rule != RuleYAMLSyntax || !strings.Contains(problems[0].Message, "exceeded max depth") {
		t.Fatalf("problems = %v", problems)
	}
}

func TestInvalidUTF8(t *testing.T) {
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: caf\xe9\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n"
	docs, problems := parseOne(t, src)
	if len(docs) != 1 {
		t.Errorf("the valid document should still load, got %d", len(docs))
	}
	if len(problems) != 1 {
		t.Fatalf("problems = %v", problems)
	}
	p := problems[0]
	if p.Rule != RuleInvalidUTF8 || p.Location.Line != 4 || p.Location.Column != 12 || !strings.Contains(p.Message, "0xe9") {
		t.Errorf("problem = %+v", p)
	}
}

func TestOversizedContent(t *testing.T) {
	_, problems := Parse("big.yaml", make([]byte, 2048), Limits{MaxFileBytes: 1024})
	if len(problems) != 1 || problems[0].Rule != RuleTooLarge || problems[0].Message != "file is 2048 bytes, over the 1024-byte limit (raise it with --max-file-size)" {
		t.Fatalf("problems = %v", problems)
	}
}

func TestJSONDocuments(t *testing.T) {
	docs, problems := Parse("x.json", []byte("{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"ConfigMap\",\n  \"metadata\": {\"name\": \"x\"},\n  \"data\": {\"n\": 5}\n}\n"), DefaultLimits)
	if len(problems) != 0 || len(docs) != 1 {
		t.Fatalf("docs=%d problems=%v", len(docs), problems)
	}
	if loc, _ := docs[0].Locate(MustParsePath("metadata.name")); loc.Line != 4 || loc.Column != 16 {
		t.Errorf("Locate(metadata.name) = %+v", loc)
	}
	if n := docs[0].Value.(map[string]any)["data"].(map[string]any)["n"]; n != int64(5) {
		t.Errorf("n = %#v", n)
	}
}

func TestByteOrderMarkIsIgnored(t *testing.T) {
	docs, problems := parseOne(t, "\xef\xbb\xbfapiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
	if len(problems) != 0 || len(docs) != 1 {
		t.Fatalf("docs=%d problems=%v", len(docs), problems)
	}
}

func TestSyntaxErrorLines(t *testing.T) {
	for src, want := range map[string]int{
		"x: 1\nlabels: {a: b\n":             2,
		"x: 1\ny: 2\nlabels: {a: b\nz: 3\n": 3,
		"x: 1\nb: [a, b\nc: d\n":            2,
		"x: 1\n- a\n":                       2,
		"x: 1\ny:\n  a: 1\n   b: 2\n":       4,
		"x: 1\ny:\n\t- a\n":                 3,
		"x: 1\n  y: 2\n":                    2,
		"a: b: c\n":                         1,
		// yaml.v3 names the line where the broken construct started; the
		// line reported is the one that breaks it.
		"a:\n  b: 1\n  c: x\n\td: 2\n":                 4, // a tab in the indentation
		"a:\n  - 1\n  b: 2\n":                          3, // a key among list items
		"a: 1\nb: *nope\n":                             2, // an alias without anchor
		"a:\n  - 1\n  - \"x\n  y\"\n  b: 2\n":          5, // a cut inside the quoted string fails otherwise
		"a: 1\nb: \"x\nc: 2\n":                         2, // an unterminated string: where it opens
		"apiVersion: v1\nkind: ConfigMap\n\tdata: 1\n": 3,
	} {
		_, problems := parseOne(t, src)
		if len(problems) != 1 || problems[0].Location.Line != want {
			t.Errorf("%q: problems %v, want one at line %d", src, problems, want)
		}
	}
}

func TestSyntaxErrorColumns(t *testing.T) {
	for src, want := range map[string]Location{
		"a:\n  b: 1\n  c: x\n  \td: 2\n": {File: "dir/file.yaml", Line: 4, Column: 3}, // the tab
		"a: 1\nb: [x, *nope]\n":          {File: "dir/file.yaml", Line: 2, Column: 8}, // the alias
		"a:\n  - 1\n  b: 2\n":            {File: "dir/file.yaml", Line: 3, Column: 3}, // the key
	} {
		_, problems := parseOne(t, src)
		if len(problems) != 1 || problems[0].Location != want {
			t.Errorf("%q: problems %v, want one at %s", src, problems, FormatLocation(want))
		}
	}
}

func TestSyntaxErrorInALaterDocument(t *testing.T) {
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  labels:\n    - x\n    y: z\n"
	docs, problems := parseOne(t, src)
	if len(docs) != 1 || len(problems) != 1 {
		t.Fatalf("docs=%d problems=%v", len(docs), problems)
	}
	if got := FormatLocation(problems[0].Location); got != "dir/file.yaml:11:5" {
		t.Errorf("problem at %s, want dir/file.yaml:11:5: %v", got, problems[0])
	}
}

// TestDuplicateKeyFingerprintsDiffer: the same key duplicated in two
// mappings of one document gives two problems that tell themselves apart
// (their fingerprints must differ, or code scanning merges them).
func TestDuplicateKeyFingerprintsDiffer(t *testing.T) {
	_, problems := parseOne(t, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\nspec:\n  containers:\n    - name: x\n      name: y\n")
	if len(problems) != 2 || problems[0].Location.Line != 5 || problems[1].Location.Line != 9 {
		t.Fatalf("problems = %v", problems)
	}
	if problems[0].Key == problems[1].Key {
		t.Errorf("both duplicates have the key %q", problems[0].Key)
	}
}

// A {{ }} placeholder of a template reads as a mapping used as a key: JSON
// keys are strings, and kubectl refuses the document ("invalid map key").
// It is reported once at the key and is no object; the other documents of
// the file are kept.
func TestMappingKeyIsNoObject(t *testing.T) {
	src := "apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: etcd\nspec:\n  replicas: {{replicas}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n"
	docs, problems := Parse("t.yaml", []byte(src), DefaultLimits)
	if len(problems) != 1 || problems[0].Rule != RuleYAMLSyntax || problems[0].Location.Line != 6 || problems[0].Location.Column != 14 ||
		!strings.Contains(problems[0].Message, "a key here is a mapping, not a string (a {{ }} placeholder of a template reads as one)") {
		t.Fatalf("problems = %+v", problems)
	}
	if len(docs) != 1 || docs[0].Value.(map[string]any)["kind"] != "ConfigMap" {
		t.Errorf("documents = %d", len(docs))
	}
}
