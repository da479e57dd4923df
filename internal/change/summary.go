package change

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/sections"
	"github.com/plumb-ci/plumb/internal/value"
)

// SectionName is the key of the change summary in the JSON report.
const SectionName = "change"

// Section is the change summary: what the pull request does to each
// render target it reaches, identical targets grouped.
type Section struct {
	// Reached names every target the change reaches (added, removed or
	// with an object that differs), sorted.
	Reached []string `json:"targets_reached"`
	// Groups are the targets the change reaches, those it changes alike
	// in one group.
	Groups []TargetSummary `json:"groups"`
}

// Target statuses.
const (
	TargetAdded   = "added"
	TargetRemoved = "removed"
	TargetChanged = "changed"
)

// TargetSummary is what a change does to one target (or to several
// alike, Targets naming each).
type TargetSummary struct {
	Targets []string `json:"targets"`
	Status  string   `json:"status"`
	// Added, Changed and Deleted name the objects (Kind namespace/name).
	Added   []string `json:"added,omitempty"`
	Changed []string `json:"changed,omitempty"`
	Deleted []string `json:"deleted,omitempty"`
	// Renamed are "old → new" pairs (also counted in Changed).
	Renamed  []string        `json:"renamed,omitempty"`
	Images   []ImageChange   `json:"images,omitempty"`
	Replicas []ReplicaChange `json:"replicas,omitempty"`
	// CPU and Memory are the change in requested resources: each
	// container's requests times its workload's replicas, summed, head
	// minus base, in Kubernetes units ("+500m", "-1Gi"); "" when equal.
	CPU    string `json:"cpu_requested,omitempty"`
	Memory string `json:"memory_requested,omitempty"`
}

// ImageChange is an image replaced by another in the containers of a
// target.
type ImageChange struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Objects name the workloads (Kind namespace/name).
	Objects []string `json:"objects"`
}

// ReplicaChange is a workload's replica count changing.
type ReplicaChange struct {
	Object string `json:"object"`
	From   string `json:"from"`
	To     string `json:"to"`
}

// summarise is what the change does to one target; false when nothing
// rendered differs.
func summarise(tp TargetPairs) (TargetSummary, bool) {
	s := TargetSummary{Targets: []string{tp.Name}, Status: TargetChanged}
	switch {
	case tp.Base == nil:
		s.Status = TargetAdded
	case tp.Head == nil:
		s.Status = TargetRemoved
	}
	images := map[[2]string]*ImageChange{}
	var cpu, mem int64
	for _, p := range tp.Pairs {
		switch {
		case p.Added():
			s.Added = append(s.Added, short(p.Head))
		case p.Deleted():
			s.Deleted = append(s.Deleted, short(p.Base))
		case p.Changed():
			s.Changed = append(s.Changed, short(p.Head))
			if p.RenamedFrom {
				s.Renamed = append(s.Renamed, short(p.Base)+" → "+short(p.Head))
			}
		default:
			continue
		}
		if p.Base != nil && p.Head != nil {
			imageChanges(p, images)
			if r, ok := replicaChange(p); ok {
				s.Replicas = append(s.Replicas, r)
			}
		}
		addRequests(p.Head, 1, &cpu, &mem)
		addRequests(p.Base, -1, &cpu, &mem)
	}
	if len(s.Added)+len(s.Changed)+len(s.Deleted) == 0 && s.Status == TargetChanged {
		return s, false
	}
	for _, ic := range images {
		slices.Sort(ic.Objects)
		s.Images = append(s.Images, *ic)
	}
	slices.SortFunc(s.Images, func(a, b ImageChange) int { return strings.Compare(a.From+a.To, b.From+b.To) })
	s.CPU = signed(resource.NewMilliQuantity(cpu, resource.DecimalSI))
	s.Memory = signed(resource.NewQuantity(mem, resource.BinarySI))
	return s, true
}

func imageChanges(p Pair, into map[[2]string]*ImageChange) {
	base := map[string]string{}
	for _, c := range containers(p.Base) {
		base[c.name] = c.image
	}
	for _, c := range containers(p.Head) {
		old, ok := base[c.name]
		if !ok || old == c.image {
			continue
		}
		k := [2]string{old, c.image}
		if into[k] == nil {
			into[k] = &ImageChange{From: old, To: c.image}
		}
		if name := short(p.Head); !slices.Contains(into[k].Objects, name) {
			into[k].Objects = append(into[k].Objects, name)
		}
	}
}

// short names an object in the summary: Kind and name as written, without
// the namespace, so that overlays that deploy one application to several
// namespaces (or with name prefixes) read alike and are grouped.
func short(o *manifest.Object) string { return o.ID.Kind + " " + o.WrittenName() }

// replicaKinds are the workloads whose spec.replicas counts pods (a
// missing field means 1).
var replicaKinds = map[string]bool{"Deployment": true, "StatefulSet": true, "ReplicaSet": true, "ReplicationController": true}

func replicaChange(p Pair) (ReplicaChange, bool) {
	if !replicaKinds[p.Head.ID.Kind] {
		return ReplicaChange{}, false
	}
	b, bok := dig(p.Base.Content, "spec", "replicas")
	h, hok := dig(p.Head.Content, "spec", "replicas")
	text := func(v any, ok bool) string {
		if !ok {
			return "1 (default)"
		}
		return fmt.Sprint(v)
	}
	if bok == hok && value.Equal(b, h) {
		return ReplicaChange{}, false
	}
	if _, ok := replicas(p.Base); !ok {
		return ReplicaChange{}, false
	}
	if rb, _ := replicas(p.Base); !hok && rb == 1 {
		return ReplicaChange{}, false
	}
	if rh, _ := replicas(p.Head); !bok && rh == 1 {
		return ReplicaChange{}, false
	}
	return ReplicaChange{Object: short(p.Head), From: text(b, bok), To: text(h, hok)}, true
}

// replicas is the pods a workload asks for: spec.replicas, 1 when unset,
// a Pod 1; false for kinds whose count the cluster decides (a DaemonSet
// runs one pod per node) or a value that is not a number.
func replicas(o *manifest.Object) (int64, bool) {
	if o.ID.Kind == "Pod" {
		return 1, true
	}
	if !replicaKinds[o.ID.Kind] {
		return 0, false
	}
	v, ok := dig(o.Content, "spec", "replicas")
	if !ok {
		return 1, true
	}
	switch t := v.(type) {
	case int64:
		return t, true
	case float64:
		return int64(t), t == float64(int64(t))
	}
	return 0, false
}

// addRequests adds sign × replicas × each container's CPU (in
// millicores) and memory (in bytes) requests. Init containers are left
// out: they do not run alongside the others.
func addRequests(o *manifest.Object, sign int64, cpu, mem *int64) {
	if o == nil {
		return
	}
	n, ok := replicas(o)
	if !ok || n <= 0 {
		return
	}
	pod, _ := podSpec(o)
	for _, c := range list(pod, "containers") {
		if q, ok := quantity(dig(c, "resources", "requests", "cpu")); ok {
			*cpu += sign * n * q.MilliValue()
		}
		if q, ok := quantity(dig(c, "resources", "requests", "memory")); ok {
			*mem += sign * n * q.Value()
		}
	}
}

// signed prints a quantity with its sign, "" for zero.
func signed(q *resource.Quantity) string {
	switch q.Sign() {
	case 0:
		return ""
	case 1:
		return "+" + q.String()
	}
	return q.String()
}

// newSection groups the targets the change affects alike.
func newSection(summaries []TargetSummary) *Section {
	sec := &Section{Reached: []string{}, Groups: []TargetSummary{}}
	byShape := map[string]int{}
	for _, s := range summaries {
		sec.Reached = append(sec.Reached, s.Targets...)
		shape := s
		shape.Targets = nil
		b, _ := json.Marshal(shape)
		if i, ok := byShape[string(b)]; ok {
			sec.Groups[i].Targets = append(sec.Groups[i].Targets, s.Targets...)
			continue
		}
		byShape[string(b)] = len(sec.Groups)
		sec.Groups = append(sec.Groups, s)
	}
	slices.Sort(sec.Reached)
	return sec
}

// FromSection reads the change section of a report, whether the run made it
// (a *Section) or it was read back from a JSON report; nil, nil when v is
// nil.
func FromSection(v any) (*Section, error) { return sections.Read[Section](SectionName, v) }

func decode(b []byte) (*Section, error) { return sections.Decode[Section](SectionName, b) }

// MergeShards combines the change sections of shard reports (plumb merge):
// each shard judged its own targets against the same base. Groups of
// different shards that read alike become one.
func (Section) MergeShards(parts []json.RawMessage) (any, error) {
	var summaries []TargetSummary
	for i, p := range parts {
		s, err := decode(p)
		if err != nil {
			return nil, fmt.Errorf("shard %d: %w", i+1, err)
		}
		for _, g := range s.Groups {
			for _, t := range g.Targets {
				one := g
				one.Targets = []string{t}
				summaries = append(summaries, one)
			}
		}
	}
	slices.SortStableFunc(summaries, func(a, b TargetSummary) int { return strings.Compare(a.Targets[0], b.Targets[0]) })
	return newSection(summaries), nil
}
