package checks

import (
	"strings"
	"testing"
)

// expect_same values that differ merge only when one shard saw all of the
// differing targets; the base revision's values (pull-request mode) are held
// to the same rule, since its findings come back as fixed ones.
func TestSameAcrossShards(t *testing.T) {
	vals := func(shard int, m map[string]string) sameShard {
		return sameShard{shard, SameValues{CheckID: "H1", Expectation: "same", Values: m}}
	}
	for _, c := range []struct {
		name  string
		in    []sameShard
		where string
		want  string
	}{
		{"equal everywhere", []sameShard{vals(0, map[string]string{"a": "x"}), vals(1, map[string]string{"b": "x"})}, "", ""},
		{"differ within one shard", []sameShard{vals(0, map[string]string{"a": "x", "b": "y"}), vals(1, map[string]string{})}, "", ""},
		{"differ across shards", []sameShard{vals(0, map[string]string{"a": "x"}), vals(1, map[string]string{"b": "y"})}, "",
			"check H1: expect_same same returns different values on render targets of different shards"},
		{"base differs across shards", []sameShard{vals(0, map[string]string{"a": "x"}), vals(2, map[string]string{"b": "y"})}, "at the base revision ",
			"check H1: expect_same same returns different values at the base revision on render targets of different shards"},
	} {
		err := sameAcrossShards(map[string][]sameShard{"H1\x00same": c.in}, c.where)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
