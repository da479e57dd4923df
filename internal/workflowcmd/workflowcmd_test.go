package workflowcmd

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

func TestIsCommandLine(t *testing.T) {
	for line, want := range map[string]bool{
		"::error::x":          true,
		"   ::warning file=a": true,
		"\t\u00a0::notice::x": true, // the runner trims Unicode whitespace
		"##[error]legacy":     true,
		"  ##[group]x":        true,
		"echo ::error::x":     false,
		"# ::error::x":        false,
		":error":              false,
		"##error":             false,
		"":                    false,
	} {
		if got := IsCommandLine(line); got != want {
			t.Errorf("IsCommandLine(%q) = %v, want %v", line, got, want)
		}
	}
}

func TestHasCommandLine(t *testing.T) {
	for text, want := range map[string]bool{
		"a\nb::c\n":           false,
		"a\n  ::error::x\n":   true,
		"a\r::error::x":       true, // a bare CR ends a line for the runner
		"a\r\n##[warning]x":   true,
		"no colons at all":    false,
		"key: a::b\n- c::d\n": false,
	} {
		if got := HasCommandLine(text); got != want {
			t.Errorf("HasCommandLine(%q) = %v, want %v", text, got, want)
		}
	}
}

// Every scalar that could start a line with a command is quoted, and the
// YAML still reads back to the same values.
func TestSafeYAML(t *testing.T) {
	v := map[string]any{
		"::warning::key": "v",
		"data": map[string]any{
			"script": "echo hi\n  ::error::pwned\n##[warning]legacy\n",
			"plain":  "line one\nline two\n",
			"inline": "a ::error::b",
		},
		"list": []any{"::notice::x", "ok"},
	}
	out, err := SafeYAML(v)
	if err != nil {
		t.Fatal(err)
	}
	if HasCommandLine(out) {
		t.Errorf("SafeYAML left a command line:\n%s", out)
	}
	if !strings.Contains(out, "plain: |") {
		t.Errorf("a harmless multi-line string lost its literal block:\n%s", out)
	}
	var back any
	if err := yaml.Unmarshal([]byte(out), &back); err != nil {
		t.Fatalf("SafeYAML's output does not parse: %v\n%s", err, out)
	}
	if !reflect.DeepEqual(back, v) {
		t.Errorf("read back %#v, want %#v", back, v)
	}
}

func FuzzSafeYAML(f *testing.F) {
	for _, s := range []string{"::error::x", "a\n ::b", "##[x", "a\r::b", "\u2028::x", "\u0085::x"} {
		f.Add("k", s)
	}
	// What the fuzzer found: yaml.v3 prints a literal block that starts
	// with a blank line or a tab, and a plain "<<" key, that it cannot
	// read back.
	f.Add("0", "\n0")
	f.Add("0", "\t\n")
	f.Add("<<", "0")
	f.Fuzz(func(t *testing.T, k, s string) {
		if !utf8.ValidString(k) || !utf8.ValidString(s) {
			return // plumb's loader refuses invalid UTF-8 before anything prints
		}
		v := map[string]any{k: s, "list": []any{s}}
		out, err := SafeYAML(v)
		if err != nil {
			t.Fatal(err)
		}
		if HasCommandLine(out) {
			t.Fatalf("command line in:\n%s", out)
		}
		var back any
		if err := yaml.Unmarshal([]byte(out), &back); err != nil {
			t.Fatalf("does not parse: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(back, v) {
			t.Fatalf("read back %#v, want %#v\n%s", back, v, out)
		}
	})
}

func TestInertWriter(t *testing.T) {
	var b strings.Builder
	w := NewInertWriter(&b)
	// Written in pieces that split lines, as a report writer does.
	for _, p := range []string{"ok line\n  ::err", "or::x\nmid::dle\r##[group]y\r\n", "::last"} {
		if _, err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := "ok line\n\\  ::error::x\nmid::dle\r\\##[group]y\r\n\\::last"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if HasCommandLine(b.String()) {
		t.Error("a command line got through")
	}
}
