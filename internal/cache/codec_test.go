package cache

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func sampleTree() map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1",
		"kind":       "Deployment",
		"metadata":   map[string]any{"name": "web", "labels": map[string]any{"app": "web"}, "annotations": map[string]any{}},
		"spec": map[string]any{
			"replicas":  int64(3),
			"ratio":     0.25,
			"paused":    false,
			"ready":     true,
			"nothing":   nil,
			"big":       int64(-1 << 62),
			"list":      []any{"a", int64(1), map[string]any{"x": []any{}}, nil},
			"empty":     "",
			"unicode":   "héllo ✓",
			"goint":     7,
			"strings":   []string{"a", "b"},
			"nostrings": []string(nil),
			"nomap":     map[string]string(nil),
			"smap":      map[string]string{"k": "v", "a": "b"},
			"emptys":    []string{},
		},
	}
}

func TestValueRoundTrip(t *testing.T) {
	in := sampleTree()
	e := &Encoder{}
	if err := e.Value(in); err != nil {
		t.Fatal(err)
	}
	e.String("after")
	d := NewDecoder(e.Bytes())
	out := d.Map()
	if s := d.String(); s != "after" {
		t.Errorf("read %q after the value, want %q", s, "after")
	}
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip changed the value:\n in: %#v\nout: %#v", in, out)
	}
}

// TestSkipValueEndsWhereValueEnds: skipping a value tree reads exactly the
// bytes decoding it reads, every kind of value included, and truncated input
// is corruption for both.
func TestSkipValueEndsWhereValueEnds(t *testing.T) {
	e := &Encoder{}
	for _, v := range []any{sampleTree(), nil, true, int64(-5), 2.5, "s", []any{}, 7, []string{"x"}, map[string]string{"a": "b"}} {
		if err := e.Value(v); err != nil {
			t.Fatal(err)
		}
	}
	e.String("after")
	good := e.Bytes()
	for n := 0; n <= len(good); n++ {
		decoded, skipped := NewDecoder(good[:n]), NewDecoder(good[:n])
		for range 10 {
			decoded.Value()
			skipped.SkipValue()
			if decoded.pos != skipped.pos {
				t.Fatalf("%d of %d bytes: decoding stopped at %d, skipping at %d", n, len(good), decoded.pos, skipped.pos)
			}
		}
		if (decoded.Err() == nil) != (skipped.Err() == nil) {
			t.Fatalf("%d of %d bytes: decoding error %v, skipping error %v", n, len(good), decoded.Err(), skipped.Err())
		}
		if n == len(good) && skipped.String() != "after" {
			t.Error("skipping lost the reader's place")
		}
	}
}

func TestValueEncodingIsDeterministic(t *testing.T) {
	var first []byte
	for i := 0; i < 20; i++ {
		e := &Encoder{}
		if err := e.Value(sampleTree()); err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = e.Bytes()
		} else if !bytes.Equal(first, e.Bytes()) {
			t.Fatal("one value encoded to different bytes")
		}
	}
}

func TestValueRefusesOtherTypes(t *testing.T) {
	for _, v := range []any{int32(1), float32(1), map[string]int{}, []int{}, json.Number("1")} {
		if err := (&Encoder{}).Value(map[string]any{"x": v}); err == nil {
			t.Errorf("%T encoded; want an error (it would not read back as the same type)", v)
		}
	}
}

// Every truncation and every single-byte change of an entry decodes to an
// error or a value, never a panic, and a truncation is always an error.
func TestDecoderCorruption(t *testing.T) {
	e := &Encoder{}
	if err := e.Value(sampleTree()); err != nil {
		t.Fatal(err)
	}
	e.Strings([]string{"a", "b"})
	good := e.Bytes()
	for n := 0; n < len(good); n++ {
		d := NewDecoder(good[:n])
		d.Value()
		d.Strings()
		if err := d.Done(); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("truncated to %d of %d bytes: err %v, want ErrCorrupt", n, len(good), err)
		}
	}
	for i := range good {
		bad := bytes.Clone(good)
		bad[i] ^= 0xff
		d := NewDecoder(bad)
		d.Value()
		d.Strings()
		_ = d.Done()
	}
}

func TestDecoderRefusesHugeCounts(t *testing.T) {
	e := &Encoder{}
	e.buf = append(e.buf, tagList)
	e.Uint(1 << 60)
	d := NewDecoder(e.Bytes())
	d.Value()
	if !errors.Is(d.Err(), ErrCorrupt) {
		t.Fatalf("err %v, want ErrCorrupt", d.Err())
	}
}

func TestDecoderInternsStrings(t *testing.T) {
	e := &Encoder{}
	e.String("metadata")
	e.String("metadata")
	d := NewDecoder(e.Bytes())
	a, b := d.String(), d.String()
	if a != "metadata" || b != "metadata" {
		t.Fatalf("read %q, %q", a, b)
	}
	if unsafeData(a) != unsafeData(b) {
		t.Error("the same string read twice is held twice")
	}
}

func BenchmarkCodec(b *testing.B) {
	objs := make([]any, 50)
	for i := range objs {
		objs[i] = sampleTree()
	}
	e := &Encoder{}
	if err := e.Value(objs); err != nil {
		b.Fatal(err)
	}
	data := e.Bytes()
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			e := &Encoder{}
			if err := e.Value(objs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			d := NewDecoder(data)
			d.Value()
			if err := d.Done(); err != nil {
				b.Fatal(err)
			}
		}
	})
	js, _ := json.Marshal(objs)
	b.Run("json-decode", func(b *testing.B) {
		b.SetBytes(int64(len(js)))
		for i := 0; i < b.N; i++ {
			var v any
			if err := json.Unmarshal(js, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestSharedStrings: after ShareStrings, repeated strings are written once
// and read back equal, inside value trees too; skipping a tree keeps the
// reader's count of strings, so a reference after it resolves; and the
// entry is smaller than without sharing.
func TestSharedStrings(t *testing.T) {
	write := func(share bool) []byte {
		e := &Encoder{}
		e.String("plain")
		if share {
			e.ShareStrings()
		}
		for range 3 {
			e.Strings([]string{"remediation text that repeats", "", "kind"})
			if err := e.Value(sampleTree()); err != nil {
				t.Fatal(err)
			}
		}
		e.String("kind")
		return e.Bytes()
	}
	shared, plain := write(true), write(false)
	if len(shared) >= len(plain) {
		t.Errorf("shared strings took %d bytes, %d without sharing", len(shared), len(plain))
	}
	d := NewDecoder(shared)
	if s := d.String(); s != "plain" {
		t.Fatalf("read %q before sharing", s)
	}
	d.ShareStrings()
	for i := range 3 {
		if got := d.Strings(); !reflect.DeepEqual(got, []string{"remediation text that repeats", "", "kind"}) {
			t.Fatalf("strings %d: %q", i, got)
		}
		if i == 1 {
			d.SkipValue()
			continue
		}
		if got := d.Map(); !reflect.DeepEqual(got, sampleTree()) {
			t.Fatalf("tree %d: %#v", i, got)
		}
	}
	if s := d.String(); s != "kind" {
		t.Errorf("the last reference read %q", s)
	}
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}

	bad := &Encoder{}
	bad.Uint(5<<1 | 1) // a reference to a string never written
	d = NewDecoder(bad.Bytes())
	d.ShareStrings()
	if s := d.String(); s != "" || !errors.Is(d.Err(), ErrCorrupt) {
		t.Errorf("a dangling reference read without error: %v", d.Err())
	}
}
