package sections

import (
	"encoding/json"
	"strings"
	"testing"
)

type sample struct {
	N int `json:"n"`
}

func TestRead(t *testing.T) {
	for _, c := range []struct {
		name string
		v    any
		want *sample
		err  string
	}{
		{"nothing", nil, nil, ""},
		{"the run's pointer", &sample{1}, &sample{1}, ""},
		{"the run's value", sample{2}, &sample{2}, ""},
		{"raw JSON", json.RawMessage(`{"n":3}`), &sample{3}, ""},
		{"bytes", []byte(`{"n":4}`), &sample{4}, ""},
		{"bad JSON", json.RawMessage(`{"n":"x"}`), nil, "reading the s section"},
		{"another type", 5, nil, "the s section has an unexpected type int"},
	} {
		got, err := Read[sample]("s", c.v)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("%s: got %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}
