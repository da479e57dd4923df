package manifest

import (
	"strings"
	"testing"
)

func TestPathRoundTrip(t *testing.T) {
	for _, s := range []string{
		"",
		"spec",
		"spec.template.spec.containers[0].image",
		`metadata.labels["app.kubernetes.io/name"]`,
		`metadata.annotations["a\"quoted\\key"]`,
		"spec.containers[12].env[3].valueFrom.secretKeyRef.name",
		`data["config.yaml"]`,
		"items[0][1]",
		`x[""]`,
		"spec.rules[0].http.paths[0].backend.service.port.number",
		"a-b.c_d.$ref",
	} {
		p, err := ParsePath(s)
		if err != nil {
			t.Fatalf("ParsePath(%q): %v", s, err)
		}
		if got := p.String(); got != s {
			t.Errorf("ParsePath(%q).String() = %q", s, got)
		}
	}
}

func TestParsePathForms(t *testing.T) {
	cases := []struct {
		in   string
		want Path
	}{
		{".spec.replicas", Path{Key("spec"), Key("replicas")}},
		{"metadata.labels['app.kubernetes.io/name']", Path{Key("metadata"), Key("labels"), Key("app.kubernetes.io/name")}},
		{`a["b.c"].d`, Path{Key("a"), Key("b.c"), Key("d")}},
		{"a[0].b", Path{Key("a"), Index(0), Key("b")}},
		{"0.1", Path{Key("0"), Key("1")}}, // keys may be digits; indexes use brackets
	}
	for _, c := range cases {
		got, err := ParsePath(c.in)
		if err != nil {
			t.Fatalf("ParsePath(%q): %v", c.in, err)
		}
		if !got.Equal(c.want) {
			t.Errorf("ParsePath(%q) = %#v, want %#v", c.in, got, c.want)
		}
	}
}

func TestParsePathErrors(t *testing.T) {
	for in, want := range map[string]string{
		"a..b":    "empty key",
		"a.":      "ends with '.'",
		"a[":      "unterminated",
		"a[x]":    "not a non-negative integer",
		"a[-1]":   "not a non-negative integer",
		"a[01]":   "not a non-negative integer",
		`a["b]`:   "unterminated quoted key",
		"a['b]":   "unterminated quoted key",
		"a[0]b":   "expected '.' or '['",
		"a]":      "unexpected",
		`a["\q"]`: "bad quoted key",
	} {
		_, err := ParsePath(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParsePath(%q) error = %v, want it to mention %q", in, err, want)
		}
	}
}

func TestPathHelpers(t *testing.T) {
	p := MustParsePath("spec.containers[0]")
	c := p.Child(Key("image"))
	if c.String() != "spec.containers[0].image" || p.String() != "spec.containers[0]" {
		t.Fatalf("Child modified the parent or built the wrong path: %s, %s", p, c)
	}
	if !c.HasPrefix(p) || p.HasPrefix(c) {
		t.Errorf("HasPrefix is wrong")
	}
	if !c.Parent().Equal(p) {
		t.Errorf("Parent(%s) = %s", c, c.Parent())
	}
	var q Path
	if err := q.UnmarshalText([]byte(`metadata.labels["a.b"]`)); err != nil || q.String() != `metadata.labels["a.b"]` {
		t.Errorf("UnmarshalText: %v %s", err, q)
	}
}
