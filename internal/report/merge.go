package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/shard"
)

// ShardSection is the JSON report key under which a sharded run (--shard
// i/n) records its share. plumb merge checks it and drops it: the merged
// report is the unsharded run's report.
const ShardSection = "shard"

// ShardInfo is the shard section of a shard report: its share, and what
// every shard of one run has in common, which plumb merge checks.
type ShardInfo struct {
	shard.Spec
	// BaseCommit is the commit pull-request mode compared with; "" for a
	// single-revision run.
	BaseCommit string `json:"base_commit,omitempty"`
}

// ShardMerger is implemented by engine sections that can be put together
// from the reports of shards. Each shard ran the engine on its own render
// targets; MergeShards gets the section of every shard report that has one,
// in shard order, and returns the section the unsharded run would have
// written (it must marshal to the same bytes).
type ShardMerger interface {
	MergeShards(parts []json.RawMessage) (any, error)
}

// ShardReport is a report read back from a shard's JSON file.
type ShardReport struct {
	Name   string // the file, for messages
	Report *Report
}

// Merge combines the reports of all shards of one run into the report of
// the whole run:
//
//   - findings: every shard loads every file, so findings that do not
//     depend on a render target (a YAML syntax error) appear in each shard
//     report and are kept once; findings on a target's objects appear only
//     in its shard. Each distinct finding is kept as many times as the shard
//     that has it most often.
//   - targets and objects: the union, in target order (targets never appear
//     in two shards).
//   - rules: the union.
//   - duration_ms: the sum (the work done, not the wall time).
//   - engine sections: merged by the section's ShardMerger, found by name in
//     mergers; a section without one is kept when every shard wrote the same
//     bytes, and is an error otherwise.
func Merge(in []ShardReport, mergers map[string]ShardMerger) (*Report, error) {
	if len(in) == 0 {
		return nil, errors.New("no reports to merge")
	}
	shards, err := checkShards(in)
	if err != nil {
		return nil, err
	}
	out := &Report{Version: shards[0].Report.Version, Sections: map[string]any{}}
	for _, s := range shards {
		if s.Report.Version != out.Version {
			return nil, fmt.Errorf("%s was written by plumb %s, %s by plumb %s: merge reports of one run", shards[0].Name, out.Version, s.Name, s.Report.Version)
		}
		out.DurationMS += s.Report.DurationMS
		out.Rules = append(out.Rules, s.Report.Rules...)
	}
	out.Rules = finding.SortRules(out.Rules)
	if out.Findings, err = mergeFindings(shards); err != nil {
		return nil, err
	}
	if out.Targets, out.Objects, err = mergeTargets(shards); err != nil {
		return nil, err
	}
	// Every shard loads the whole repository: their skipped files agree.
	out.Skipped = shards[0].Report.Skipped
	for _, s := range shards {
		out.Fetched = mergeFetched(out.Fetched, s.Report.Fetched)
	}
	if err := mergeSections(shards, mergers, out); err != nil {
		return nil, err
	}
	if len(out.Sections) == 0 {
		out.Sections = nil
	}
	return out, nil
}

// checkShards verifies that the reports are the shards 1/n … n/n of one run,
// each once, and returns them in shard order.
func checkShards(in []ShardReport) ([]ShardReport, error) {
	infos := make([]ShardInfo, len(in))
	specs := make([]shard.Spec, len(in))
	for i, r := range in {
		raw, ok := r.Report.Sections[ShardSection]
		if !ok {
			return nil, fmt.Errorf("%s is not a shard report (it has no %q section; run plumb check with --shard i/n)", r.Name, ShardSection)
		}
		b, err := rawJSON(raw)
		if err == nil {
			err = json.Unmarshal(b, &infos[i])
		}
		specs[i] = infos[i].Spec
		if err != nil || !specs[i].Enabled() || specs[i].Index < 1 || specs[i].Index > specs[i].Count {
			return nil, fmt.Errorf("%s: the %q section is not a shard i/n", r.Name, ShardSection)
		}
		// Shards of pull-request mode and of a single revision, or against
		// different bases, would merge into a report whose statuses mean
		// nothing.
		if a, b := infos[0].BaseCommit, infos[i].BaseCommit; a != b {
			return nil, fmt.Errorf("%s %s but %s %s: merge the shards of one run", in[0].Name, baseOf(a), r.Name, baseOf(b))
		}
	}
	n := specs[0].Count
	byIndex := make([]*ShardReport, n+1)
	for i := range in {
		s := specs[i]
		if s.Count != n {
			return nil, fmt.Errorf("%s is shard %s but %s is shard %s: merge the shards of one run", in[0].Name, specs[0], in[i].Name, s)
		}
		if prev := byIndex[s.Index]; prev != nil {
			return nil, fmt.Errorf("shard %s is given twice (%s and %s)", s, prev.Name, in[i].Name)
		}
		byIndex[s.Index] = &in[i]
	}
	var missing []string
	out := make([]ShardReport, 0, n)
	for i := 1; i <= n; i++ {
		if byIndex[i] == nil {
			missing = append(missing, fmt.Sprintf("%d/%d", i, n))
			continue
		}
		out = append(out, *byIndex[i])
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing shard reports: %s (a merged report must cover every shard)", strings.Join(missing, ", "))
	}
	return out, nil
}

// baseOf says what a shard was compared with, for messages.
func baseOf(commit string) string {
	if commit == "" {
		return "checked a single revision (no --base-ref)"
	}
	return "was compared with base commit " + commit
}

func mergeFindings(shards []ShardReport) ([]finding.Finding, error) {
	kept := map[string]int{}
	var out []finding.Finding
	for _, s := range shards {
		here := map[string]int{}
		for _, f := range s.Report.Findings {
			b, err := json.Marshal(f)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.Name, err)
			}
			k := string(b)
			here[k]++
			if here[k] > kept[k] {
				kept[k]++
				out = append(out, f)
			}
		}
	}
	finding.Sort(out)
	return out, nil
}

func mergeTargets(shards []ShardReport) ([]TargetEntry, []ObjectEntry, error) {
	owner := map[string]string{}
	objects := map[string][]ObjectEntry{}
	var targets []TargetEntry
	for _, s := range shards {
		for _, t := range s.Report.Targets {
			if prev, ok := owner[t.Name]; ok {
				return nil, nil, fmt.Errorf("target %s is in %s and in %s: these are not shards of one run", t.Name, prev, s.Name)
			}
			owner[t.Name] = s.Name
			targets = append(targets, t)
		}
		for _, o := range s.Report.Objects {
			objects[o.Target] = append(objects[o.Target], o)
		}
	}
	slices.SortFunc(targets, func(a, b TargetEntry) int { return strings.Compare(a.Name, b.Name) })
	var out []ObjectEntry
	for _, t := range targets {
		out = append(out, objects[t.Name]...)
		delete(objects, t.Name)
	}
	for name := range objects {
		return nil, nil, fmt.Errorf("objects of target %q are listed without the target", name)
	}
	return targets, out, nil
}

func mergeSections(shards []ShardReport, mergers map[string]ShardMerger, out *Report) error {
	var names []string
	parts := map[string][]json.RawMessage{}
	for _, s := range shards {
		for name, v := range s.Report.Sections {
			if name == ShardSection {
				continue
			}
			b, err := rawJSON(v)
			if err != nil {
				return fmt.Errorf("%s: the %q section: %w", s.Name, name, err)
			}
			if _, ok := parts[name]; !ok {
				names = append(names, name)
			}
			parts[name] = append(parts[name], b)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		p := parts[name]
		if m, ok := mergers[name]; ok {
			v, err := m.MergeShards(p)
			if err != nil {
				return fmt.Errorf("merging the %q sections: %w", name, err)
			}
			out.Sections[name] = v
			continue
		}
		same := len(p) == len(shards)
		for _, b := range p[1:] {
			same = same && bytes.Equal(b, p[0])
		}
		if !same {
			return fmt.Errorf("the %q sections of the shards differ and plumb does not know how to merge them", name)
		}
		out.Sections[name] = p[0]
	}
	return nil
}

// rawJSON returns a section as JSON: read-back sections are raw already.
func rawJSON(v any) (json.RawMessage, error) {
	if b, ok := v.(json.RawMessage); ok {
		return b, nil
	}
	return json.Marshal(v)
}

// ShardWriter is implemented by engine sections that write more into a
// shard report than into a whole run's report, for their ShardMerger.
// ShardSection gets the same engine's section of the base revision in
// pull-request mode (nil otherwise).
type ShardWriter interface {
	ShardSection(base any) any
}
