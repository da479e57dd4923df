package jsonstream

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

type leaf struct {
	Name  string         `json:"name"`
	Tags  []string       `json:"tags"`
	Extra map[string]any `json:"extra,omitempty"`
}

type node struct {
	ID     string `json:"id"`
	Leaves []leaf `json:"leaves"`
	Empty  []leaf `json:"empty"`
	Nil    []leaf `json:"nil"`
}

// StreamJSON streams its leaves, as a section's nested types do.
func (n *node) StreamJSON(w io.Writer, prefix, indent string) error {
	return WriteObject(w, prefix, indent, []Field{
		{Key: "id", Value: n.ID},
		{Key: "leaves", Value: n.Leaves, Stream: true},
		{Key: "empty", Value: n.Empty, Stream: true},
		{Key: "nil", Value: n.Nil, Stream: true},
	})
}

type root struct {
	Version string `json:"version"`
	Nodes   []node `json:"nodes"`
	Count   int    `json:"count"`
}

func (r *root) StreamJSON(w io.Writer, prefix, indent string) error {
	return WriteObject(w, prefix, indent, []Field{
		{Key: "version", Value: r.Version},
		{Key: "nodes", Value: r.Nodes, Stream: true},
		{Key: "count", Value: r.Count},
	})
}

// What a Streamer writes is exactly what MarshalIndent writes for the same
// value, escaping included, at any prefix.
func TestStreamedEqualsMarshalIndent(t *testing.T) {
	r := &root{Version: "1 <&> \u2028", Count: 3, Nodes: []node{
		{ID: "a", Leaves: []leaf{{Name: "x", Tags: []string{"t1", "t2"}}, {Name: "y\n\"z\"", Extra: map[string]any{"b": 1, "a": []any{true, nil}}}}, Empty: []leaf{}},
		{ID: "b", Empty: []leaf{}},
	}}
	plain := struct {
		Version string `json:"version"`
		Nodes   []node `json:"nodes"`
		Count   int    `json:"count"`
	}{r.Version, r.Nodes, r.Count}
	for _, prefix := range []string{"", "  ", "\t"} {
		want, err := json.MarshalIndent(plain, prefix, "  ")
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := r.StreamJSON(&got, prefix, "  "); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want) {
			t.Errorf("prefix %q:\nstreamed:\n%s\nMarshalIndent:\n%s", prefix, got.String(), want)
		}
	}
}

func TestWriteSliceRefusesWhatIsNotASlice(t *testing.T) {
	err := WriteObject(io.Discard, "", "  ", []Field{{Key: "k", Value: 3, Stream: true}})
	if err == nil || err.Error() != "k: jsonstream: int is not a slice" {
		t.Errorf("error %v", err)
	}
}
