package report

import (
	"encoding/json"
	"fmt"
)

// TargetKeyedSection merges sections that are JSON objects with one key per
// render target (the reference comparison's): every target is in one shard,
// so the merged section is the union of the shards' keys.
type TargetKeyedSection struct{}

// MergeShards implements ShardMerger.
func (TargetKeyedSection) MergeShards(parts []json.RawMessage) (any, error) {
	out := map[string]json.RawMessage{}
	for i, p := range parts {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(p, &m); err != nil {
			return nil, fmt.Errorf("shard %d: %w", i+1, err)
		}
		for k, v := range m {
			if _, dup := out[k]; dup {
				return nil, fmt.Errorf("target %s is in two shards", k)
			}
			out[k] = v
		}
	}
	return out, nil
}
