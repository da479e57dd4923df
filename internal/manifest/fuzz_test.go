package manifest

import (
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the YAML loader. It must never panic,
// every problem must name a line inside the input, and every document must
// locate its own fields.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		deployment,
		"a: &a [x]\nb: *a\nc: {<<: *a}\n",
		"---\n---\n...\n",
		"{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [{}, 3]}",
		"a: b: c\n",
		"key: |\n  text\n---\nx: [1, 2\n",
		"\xef\xbb\xbfa: 1\n",
		"a:\n\t- x\n",
		"caf\xe9: 1\n",
		strings.Repeat("[", 50),
		"!!binary x: y\n? [a]\n: b\n",
		"<<: [*x]\n",
		// Issue 18: aliases inside themselves (what crashed kustomize),
		// numbers JSON cannot hold.
		"data: &A\n  b: *A\n",
		"spec: &A\n  a: 1\n  c:\n    <<: *A\n",
		"replicas: .nan\nlabels: {tier: .inf, low: -.Inf, big: 1e999}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, problems := Parse("f.yaml", data, Limits{MaxFileBytes: 1 << 20, MaxDepth: 100, MaxAliasNodes: 10_000})
		lines := CountLines(data)
		for _, p := range problems {
			if p.Location.File != "f.yaml" || p.Location.Line < 1 || p.Location.Line > lines || p.Message == "" {
				t.Fatalf("problem with a bad location or no message: %+v (input has %d lines)", p, lines)
			}
		}
		for _, d := range docs {
			objs, _ := d.Objects("t")
			for _, o := range objs {
				if loc, _ := o.Locate(MustParsePath("metadata.name")); loc.Line < 1 || loc.Line > lines {
					t.Fatalf("object located at line %d of %d", loc.Line, lines)
				}
			}
		}
	})
}

// FuzzPath checks that every path that parses prints back to a string that
// parses to the same path.
func FuzzPath(f *testing.F) {
	for _, seed := range []string{"a.b[0].c", `a["b.c"]`, "a['x']", ".a", "[0]", `x["\u00e9\n"]`, "a[", "a..b"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			return
		}
		again, err := ParsePath(p.String())
		if err != nil {
			t.Fatalf("ParsePath(%q) printed as %q, which does not parse: %v", s, p.String(), err)
		}
		if !again.Equal(p) {
			t.Fatalf("round trip changed %q: %#v vs %#v", s, p, again)
		}
	})
}
