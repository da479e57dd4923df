package report

import (
	"encoding/json"
	"testing"
)

func TestTargetKeyedSectionIsTheUnionOfTargets(t *testing.T) {
	a := json.RawMessage(`{"overlays/a": {"x": 1}, "overlays/c": {"x": 3}}`)
	b := json.RawMessage(`{"overlays/b": {"x": 2}}`)
	got, err := TargetKeyedSection{}.MergeShards([]json.RawMessage{a, b})
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(got)
	if string(out) != `{"overlays/a":{"x":1},"overlays/b":{"x":2},"overlays/c":{"x":3}}` {
		t.Errorf("merged %s", out)
	}
	if _, err := (TargetKeyedSection{}).MergeShards([]json.RawMessage{a, a}); err == nil {
		t.Error("a target in two shards merged")
	}
	if _, err := (TargetKeyedSection{}).MergeShards([]json.RawMessage{json.RawMessage(`[1]`)}); err == nil {
		t.Error("a section that is not an object merged")
	}
}
