package compare

import (
	"fmt"
	"slices"
	"strings"
)

// Correlation fields, as bits of a group mask.
const (
	fieldAPIVersion = 1 << iota
	fieldKind
	fieldNamespace
	fieldName
)

// correlationGroups are the field groups of kube-compare's group
// correlator, most specific first. Among groups of the same size the order
// is the one kube-compare's build was observed to use (research §3.3); it
// is an accident of an unstable sort upstream, made deterministic here.
var correlationGroups = []int{
	fieldAPIVersion | fieldKind | fieldNamespace | fieldName,
	fieldAPIVersion | fieldKind | fieldName,
	fieldKind | fieldNamespace | fieldName,
	fieldAPIVersion | fieldKind | fieldNamespace,
	fieldAPIVersion | fieldKind,
	fieldKind | fieldNamespace,
	fieldKind | fieldName,
	fieldKind,
}

func (id identity) mask() int {
	m := 0
	if id.APIVersion != "" {
		m |= fieldAPIVersion
	}
	if id.Kind != "" {
		m |= fieldKind
	}
	if id.Namespace != "" {
		m |= fieldNamespace
	}
	if id.Name != "" {
		m |= fieldName
	}
	return m
}

// key joins the fields of a group (NUL-separated: names may contain "_").
func (id identity) key(group int) string {
	var b strings.Builder
	for _, f := range []struct {
		bit int
		v   string
	}{{fieldAPIVersion, id.APIVersion}, {fieldKind, id.Kind}, {fieldNamespace, id.Namespace}, {fieldName, id.Name}} {
		if group&f.bit != 0 {
			b.WriteString(f.v)
			b.WriteByte(0)
		}
	}
	return b.String()
}

func groupFields(group int) string {
	var names []string
	for _, f := range []struct {
		bit  int
		name string
	}{{fieldAPIVersion, "apiVersion"}, {fieldName, "name"}, {fieldNamespace, "namespace"}, {fieldKind, "kind"}} {
		if group&f.bit != 0 {
			names = append(names, f.name)
		}
	}
	return strings.Join(names, ", ")
}

// groupIndex finds correlation candidates with one map lookup per group.
// Each entry (a template, or an override) is indexed in exactly one group:
// the group made of its fixed fields.
type groupIndex struct {
	buckets [8]map[string][]int // one per correlationGroups entry
}

// newGroupIndex indexes entries by their fixed fields. Entries without a
// fixed kind cannot be correlated and are left out.
func newGroupIndex(fixed []identity) *groupIndex {
	g := &groupIndex{}
	for i := range g.buckets {
		g.buckets[i] = map[string][]int{}
	}
	for i, id := range fixed {
		mask := id.mask()
		for gi, group := range correlationGroups {
			if group == mask {
				k := id.key(group)
				g.buckets[gi][k] = append(g.buckets[gi][k], i)
				break
			}
		}
	}
	return g
}

// candidates returns the entries of the most specific group whose key the
// object matches; groups needing a field the object lacks are skipped.
func (g *groupIndex) candidates(id identity) []int {
	has := id.mask()
	for gi, group := range correlationGroups {
		if has&group != group {
			continue
		}
		if c := g.buckets[gi][id.key(group)]; len(c) > 0 {
			return c
		}
	}
	return nil
}

// overlaps describes every bucket holding more than one entry.
func (g *groupIndex) overlaps(name func(int) string) []string {
	var out []string
	for gi, group := range correlationGroups {
		for _, members := range sortedBuckets(g.buckets[gi]) {
			if len(members) < 2 {
				continue
			}
			names := make([]string, len(members))
			for i, m := range members {
				names[i] = name(m)
			}
			out = append(out, fmt.Sprintf("More than one template with same %s. These templates are: %s",
				groupFields(group), strings.Join(names, ", ")))
		}
	}
	return out
}

func sortedBuckets(m map[string][]int) [][]int {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([][]int, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}
