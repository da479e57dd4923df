package suppress

import (
	"encoding/json"
	"fmt"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// SectionName is the key of the suppressions section in the JSON report.
const SectionName = "suppressions"

// Section lists the suppressions of .plumb.yaml and whether each matched a
// finding, so stale entries can be found. (A configured suppression that
// matches nothing is not a finding: with sharding, one shard cannot know
// whether another one used it; the section merges exactly.)
type Section struct {
	Config []SectionEntry `json:"config"`
}

// SectionEntry is one configured suppression.
type SectionEntry struct {
	Location manifest.Location `json:"location"`
	Selector string            `json:"selector"`
	Reason   string            `json:"reason"`
	Until    string            `json:"until,omitempty"`
	Expired  bool              `json:"expired,omitempty"`
	// Used says whether the entry selected a finding (suppressed it, or saw
	// it reported again after expiry).
	Used bool `json:"used"`
}

// MergeShards implements the report's section merging for plumb merge: the
// entries are the same in every shard (one configuration), and an entry is
// used when some shard used it.
func (Section) MergeShards(parts []json.RawMessage) (any, error) {
	var out *Section
	for i, p := range parts {
		var s Section
		if err := json.Unmarshal(p, &s); err != nil {
			return nil, fmt.Errorf("shard %d: %w", i+1, err)
		}
		if out == nil {
			out = &s
			continue
		}
		if len(s.Config) != len(out.Config) {
			return nil, fmt.Errorf("the shards were run with different suppressions")
		}
		for j := range s.Config {
			a, b := out.Config[j], s.Config[j]
			a.Used, b.Used = false, false
			if a != b {
				return nil, fmt.Errorf("the shards were run with different suppressions (%s:%d)", b.Location.File, b.Location.Line)
			}
			out.Config[j].Used = out.Config[j].Used || s.Config[j].Used
		}
	}
	return out, nil
}

// MarkUsed marks the configured suppressions of the given indexes used:
// plumb merge reports findings that select them.
func (s *Section) MarkUsed(indexes []int) error {
	for _, i := range indexes {
		if i < 0 || i >= len(s.Config) {
			return fmt.Errorf("a finding selects configured suppression #%d, but there are %d", i+1, len(s.Config))
		}
		s.Config[i].Used = true
	}
	return nil
}
