package renderdiff

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/sections"
)

// FromSection reads the diff section of a report, whether the run made it
// (a *Section) or it was read back from a JSON report; nil, nil when v is
// nil.
func FromSection(v any) (*Section, error) { return sections.Read[Section](SectionName, v) }

func decode(b []byte) (*Section, error) { return sections.Decode[Section](SectionName, b) }

// MergeShards combines the diff sections of shard reports (plumb merge):
// each shard diffed its own targets against the same base.
func (Section) MergeShards(parts []json.RawMessage) (any, error) {
	var out *Section
	seen := map[string]bool{}
	for i, p := range parts {
		s, err := decode(p)
		if err != nil {
			return nil, fmt.Errorf("shard %d: %w", i+1, err)
		}
		if out == nil {
			out = &Section{BaseRef: s.BaseRef, BaseCommit: s.BaseCommit}
		} else if s.BaseCommit != out.BaseCommit {
			return nil, fmt.Errorf("the shards compared with different base commits (%s and %s)", out.BaseCommit, s.BaseCommit)
		}
		for _, t := range s.Targets {
			if seen[t.Name] {
				return nil, fmt.Errorf("target %s is in two shards", t.Name)
			}
			seen[t.Name] = true
			out.Targets = append(out.Targets, t)
		}
	}
	if out != nil {
		slices.SortFunc(out.Targets, func(a, b Target) int { return strings.Compare(a.Name, b.Name) })
	}
	return out, nil
}
