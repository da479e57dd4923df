package render

import (
	"math"
	"reflect"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/plumb-ci/plumb/internal/cache"
)

func internedContent(t *testing.T, in *interner, doc string) map[string]any {
	t.Helper()
	rn, err := yaml.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := contentOf(rn.YNode(), in)
	if !ok {
		t.Fatalf("contentOf(%q) failed", doc)
	}
	return m
}

// TestInternerSharesEqualParts: two objects read by one interner share
// their equal mappings and lists (whatever the key order), and nothing
// that differs is shared.
func TestInternerSharesEqualParts(t *testing.T) {
	in := newInterner()
	a := internedContent(t, in, `{kind: Deployment, metadata: {name: a}, spec: {probe: {path: /healthz, port: 80}, ports: [80, 443], other: {x: 1}}}`)
	b := internedContent(t, in, `{kind: Deployment, metadata: {name: b}, spec: {probe: {port: 80, path: /healthz}, ports: [80, 443], other: {x: 2}}}`)
	as, bs := a["spec"].(map[string]any), b["spec"].(map[string]any)
	if !same(as["probe"], bs["probe"]) {
		t.Error("equal mappings in another key order are not shared")
	}
	if !same(as["ports"], bs["ports"]) {
		t.Error("equal lists are not shared")
	}
	if same(as["other"], bs["other"]) || same(a["metadata"], b["metadata"]) || same(a["spec"], b["spec"]) {
		t.Error("different mappings are shared")
	}
	if !reflect.DeepEqual(a, internedContent(t, newInterner(), `{kind: Deployment, metadata: {name: a}, spec: {probe: {path: /healthz, port: 80}, ports: [80, 443], other: {x: 1}}}`)) {
		t.Error("interning changed the content")
	}
}

// TestIdenticalKeepsTypesApart: values that compare equal in Go or print
// alike in YAML but differently in JSON are never taken for one another.
func TestIdenticalKeepsTypesApart(t *testing.T) {
	pairs := [][2]any{
		{int64(1), float64(1)},
		{"1", int64(1)},
		{"true", true},
		{"", nil},
		{0.0, math.Copysign(0, -1)},
		{[]any{}, []any(nil)},
		{map[string]any{}, map[string]any(nil)},
		{map[string]any{"a": nil}, map[string]any{"b": nil}},
		{[]any{int64(1), int64(2)}, []any{int64(2), int64(1)}},
	}
	for _, p := range pairs {
		if identical(p[0], p[1]) || identical(p[1], p[0]) {
			t.Errorf("%#v and %#v are taken for one value", p[0], p[1])
		}
	}
	in := newInterner()
	for _, p := range pairs[:5] { // the scalars: interned, they stay apart
		x, _ := in.scalar(p[0])
		y, _ := in.scalar(p[1])
		if identical(x, y) {
			t.Errorf("interned %#v and %#v are one value", p[0], p[1])
		}
	}
}

// TestDecodedContentSharesWhatItReadBefore: content read from the
// persistent cache is the content that was written, and its subtrees are
// shared with those read before (found by their encoding) and with equal
// ones krusty's output gave (by value); types stay apart.
func TestDecodedContentSharesWhatItReadBefore(t *testing.T) {
	docs := []string{
		`{kind: Deployment, metadata: {name: a}, spec: {probe: {path: /healthz, port: 80}, ports: [80, 443], ratio: 0.5, other: {x: 1}}}`,
		`{kind: Deployment, metadata: {name: b}, spec: {probe: {port: 80, path: /healthz}, ports: [80, 443], ratio: "0.5", other: {x: 2}}}`,
	}
	e := &cache.Encoder{}
	var want []map[string]any
	for _, doc := range docs {
		m := internedContent(t, newInterner(), doc)
		want = append(want, m)
		if err := e.Value(m); err != nil {
			t.Fatal(err)
		}
	}
	in := newInterner()
	built := internedContent(t, in, `{probe: {path: /healthz, port: 80}}`)
	d := cache.NewDecoder(e.Bytes())
	a, b := in.decodedContent(d), in.decodedContent(d)
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, want[0]) || !reflect.DeepEqual(b, want[1]) {
		t.Fatalf("decoded\n%#v\n%#v\nwant\n%#v\n%#v", a, b, want[0], want[1])
	}
	as, bs := a["spec"].(map[string]any), b["spec"].(map[string]any)
	if !same(as["probe"], bs["probe"]) || !same(as["ports"], bs["ports"]) {
		t.Error("equal subtrees read from the cache are not shared")
	}
	if !same(as["probe"], built["probe"]) {
		t.Error("a subtree read from the cache is not shared with the equal one krusty's output gave")
	}
	if same(as["other"], bs["other"]) || identical(as["ratio"], bs["ratio"]) {
		t.Error("different values are shared")
	}
	again := in.decodedContent(cache.NewDecoder(e.Bytes()))
	if !same(again, a) {
		t.Error("content read twice is not one value")
	}
	if in.decodedContent(cache.NewDecoder([]byte{0x7f})) != nil {
		t.Error("a corrupt entry decoded")
	}
}
