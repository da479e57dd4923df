package rules

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// mergedSection is a Section whose entries are kept as the shards wrote
// them.
type mergedSection struct {
	Rules     []SectionRule     `json:"rules"`
	Documents []json.RawMessage `json:"documents"`
	Objects   []json.RawMessage `json:"objects"`
}

// MergeShards combines the rules sections of shard reports (plumb merge).
// Every shard loads every file, so the early phase saw the same documents
// in each and the document entries are the same; each rendered object
// belongs to one target and each target to one shard, so the object
// entries are put back in target order, each target's in its shard's
// order (the unsharded run's). The rules' match counts are counted again
// over the merged entries.
func (Section) MergeShards(parts []json.RawMessage) (any, error) {
	type entryView struct {
		Object *manifest.ObjectID `json:"object"`
		Rules  []struct {
			UUID string `json:"uuid"`
		} `json:"rules"`
	}
	out := &mergedSection{}
	byTarget := map[string][]json.RawMessage{}
	var targets []string
	matched := map[string]int{}
	count := func(raw json.RawMessage) (*entryView, error) {
		var e entryView
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, err
		}
		for _, r := range e.Rules {
			matched[r.UUID]++
		}
		return &e, nil
	}
	for i, p := range parts {
		var s struct {
			Rules     []SectionRule     `json:"rules"`
			Documents []json.RawMessage `json:"documents"`
			Objects   []json.RawMessage `json:"objects"`
		}
		if err := json.Unmarshal(p, &s); err != nil {
			return nil, fmt.Errorf("shard %d: %w", i+1, err)
		}
		if i == 0 {
			out.Rules, out.Documents = s.Rules, s.Documents
			for _, d := range s.Documents {
				if _, err := count(d); err != nil {
					return nil, fmt.Errorf("shard 1: %w", err)
				}
			}
		} else if !sameRules(out.Rules, s.Rules) || !sameEntries(out.Documents, s.Documents) {
			return nil, fmt.Errorf("shard %d loaded other rules or ran them differently on the source documents than shard 1: merge the shards of one run", i+1)
		}
		for _, o := range s.Objects {
			e, err := count(o)
			if err != nil {
				return nil, fmt.Errorf("shard %d: %w", i+1, err)
			}
			t := ""
			if e.Object != nil {
				t = e.Object.Target
			}
			if _, ok := byTarget[t]; !ok {
				targets = append(targets, t)
			}
			byTarget[t] = append(byTarget[t], o)
		}
	}
	slices.SortFunc(targets, strings.Compare)
	out.Objects = []json.RawMessage{}
	for _, t := range targets {
		out.Objects = append(out.Objects, byTarget[t]...)
	}
	if out.Documents == nil {
		out.Documents = []json.RawMessage{}
	}
	for i := range out.Rules {
		out.Rules[i].Matched = matched[out.Rules[i].UUID]
	}
	return out, nil
}

// sameRules compares the loaded rules, leaving out their match counts.
func sameRules(a, b []SectionRule) bool {
	return slices.EqualFunc(a, b, func(x, y SectionRule) bool {
		x.Matched, y.Matched = 0, 0
		return x == y
	})
}

func sameEntries(a, b []json.RawMessage) bool {
	return slices.EqualFunc(a, b, func(x, y json.RawMessage) bool { return bytes.Equal(x, y) })
}
