package render

import (
	"reflect"
	"strings"
	"testing"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// viaJSON is krusty's route from a node to plumb's values: RNode's
// MarshalJSON (print as YAML, decode, encode as JSON), then decodeJSON.
func viaJSON(rn *kyaml.RNode) (map[string]any, error) {
	j, err := rn.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return decodeJSON(j)
}

// contentDocs are objects whose values test every branch of contentOf:
// each must give what krusty's JSON route gives, or fall back to it.
var contentDocs = map[string]struct {
	doc    string
	direct bool // contentOf handles it without the fallback
}{
	"plain":      {"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: b, c: \"123\", d: 'true'}\n", true},
	"ints":       {"a: 1\nb: -7\nc: 0x1F\nd: 0o17\ne: 9223372036854775807\nf: +3\n", true},
	"big ints":   {"a: 9223372036854775808\nb: 18446744073709551615\nc: -9223372036854775808\n", true},
	"floats":     {"a: 1.0\nb: 1.5\nc: 1e3\nd: -0.0\ne: 1e21\nf: 2.5e-8\ng: 123456789012345678901234.0\nh: 9.2233720368547758e18\n", true},
	"bools":      {"a: true\nb: false\nc: True\nd: FALSE\ne: yes\nf: on\n", true},
	"nulls":      {"a: null\nb: ~\nc:\nd: Null\n", true},
	"lists":      {"a: [1, two, 3.5, null, [x], {k: v}]\nb: []\nc: {}\n", true},
	"strings":    {"a: \"multi\\nline\"\nb: |\n  block\n  text\nc: '0123'\nd: \"<&>\"\ne: \"\\u2028\"\nf: 2001-12-14\n", true},
	"tagged str": {"a: !!str 123\nb: !!int \"5\"\nc: !!float 3\n", true},
	"timestamps": {"a: !!timestamp 2001-12-14t21:59:43.10-05:00\nb: 2001-12-14 21:59:43.10 -5\nc: 2002-12-14\nd: '2002-12-14'\n", true},
	"binary":     {"a: !!binary aGVsbG8=\n", false},
	"merge key":  {"base: &b {x: 1}\nobj:\n  <<: *b\n  y: 2\n", false},
	"alias":      {"a: &x [1, 2]\nb: *x\n", false},
	"int key":    {"a: {1: one}\n", false},
	"escapes":    {"a: \"\\xff\\x00\\t\"\n", true},
	"infinity":   {"a: .inf\nb: -.Inf\nc: 1e999\n", true},
	"nan":        {"a: .nan\n", true},
	"custom tag": {"a: !thing x\n", false},
}

func TestContentOfMatchesKrustysJSON(t *testing.T) {
	for name, c := range contentDocs {
		t.Run(name, func(t *testing.T) {
			rn, err := kyaml.Parse(c.doc)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := contentOf(rn.YNode(), nil)
			if ok != c.direct {
				t.Fatalf("contentOf handled it: %v, want %v", ok, c.direct)
			}
			want, err := viaJSON(rn)
			if !ok {
				return // the JSON route decides, errors included
			}
			if nonFiniteError(err) {
				// JSON cannot hold NaN or infinities: plumb carries them
				// as the text they were written as (a deliberate
				// divergence; the loader reports them at their line).
				want, err = nonFiniteAsText(t, c.doc), nil
			}
			if err != nil {
				t.Fatalf("contentOf accepted what krusty's route rejects (%v): %#v", err, got)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("contentOf:\n %#v\nkrusty's JSON route:\n %#v", got, want)
			}
		})
	}
}

// FuzzContentOf checks that the direct conversion never disagrees with
// krusty's JSON route on what it accepts.
func FuzzContentOf(f *testing.F) {
	for _, c := range contentDocs {
		f.Add(c.doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		if len(doc) > 4096 {
			return
		}
		rn, err := kyaml.Parse(doc)
		if err != nil || rn.YNode() == nil {
			return
		}
		got, ok := contentOf(rn.YNode(), nil)
		if !ok {
			return
		}
		want, err := viaJSON(rn)
		if nonFiniteError(err) {
			return // carried as text on purpose
		}
		if err != nil {
			t.Fatalf("contentOf accepted %q, which krusty's route rejects: %v", doc, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\ncontentOf:\n %#v\nkrusty's JSON route:\n %#v", doc, got, want)
		}
	})
}

// nonFiniteError reports krusty's route failing on a NaN or an infinity.
func nonFiniteError(err error) bool {
	return err != nil && strings.Contains(err.Error(), "unsupported value")
}

// nonFiniteAsText is what contentOf gives a test document of non-finite
// numbers: each value as written.
func nonFiniteAsText(t *testing.T, doc string) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(doc), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		out[k] = v
	}
	return out
}
