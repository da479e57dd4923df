package compare

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// BuiltInOmitRef is the fieldsToOmit item kube-compare always defines.
const BuiltInOmitRef = "cluster-compare-built-in"

// builtInOmitPaths are the fields kube-compare omits by default: the
// server-managed metadata, the last-applied annotation (and the top-level key
// of the same name kube-compare lists) and status.
var builtInOmitPaths = []string{
	"metadata.resourceVersion",
	"metadata.uid",
	"metadata.creationTimestamp",
	"metadata.generation",
	"metadata.managedFields",
	"metadata.selfLink",
	"metadata.generateName",
	"metadata.finalizers",
	`"kubectl.kubernetes.io/last-applied-configuration"`,
	`metadata.annotations."kubectl.kubernetes.io/last-applied-configuration"`,
	"status",
}

// omitPath is one field (or, with prefix, every key starting with the last
// segment) to remove before comparing.
type omitPath struct {
	segs   []string
	prefix bool
}

func (p omitPath) String() string {
	var b strings.Builder
	for i, s := range p.segs {
		if i > 0 {
			b.WriteByte('.')
		}
		if strings.ContainsAny(s, `."`) {
			b.WriteString(`"` + strings.ReplaceAll(s, `"`, `""`) + `"`)
		} else {
			b.WriteString(s)
		}
	}
	if p.prefix {
		b.WriteString(" (prefix)")
	}
	return b.String()
}

// parseKeyPath splits a pathToKey the way kube-compare does: an optional
// leading dot is ignored and the rest is one CSV record with '.' as the
// separator, so a key containing dots is double-quoted as a whole
// (metadata.annotations."k8s.io/x").
func parseKeyPath(s string) ([]string, error) {
	s = strings.TrimPrefix(s, ".")
	if s == "" {
		return nil, errors.New("the path is empty")
	}
	r := csv.NewReader(strings.NewReader(s))
	r.Comma = '.'
	r.FieldsPerRecord = -1
	rec, err := r.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("path %q: %w", s, err)
	}
	if _, err := r.Read(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("path %q: a path is one line", s)
	}
	for _, seg := range rec {
		if seg == "" {
			return nil, fmt.Errorf("path %q: empty segment", s)
		}
	}
	return rec, nil
}

// omitFields removes the paths from obj in place. Only mappings are
// traversed: a segment that meets a list removes nothing (kube-compare
// cannot index lists in omission paths). A mapping emptied by a removal is
// removed from its parent, all the way up.
func omitFields(obj map[string]any, paths []omitPath) {
	for _, p := range paths {
		removePath(obj, p.segs, p.prefix)
	}
}

// removePath reports whether m became empty because of the removal.
func removePath(m map[string]any, segs []string, prefix bool) bool {
	if len(segs) == 1 {
		removed := false
		if prefix {
			for k := range m {
				if strings.HasPrefix(k, segs[0]) {
					delete(m, k)
					removed = true
				}
			}
		} else if _, ok := m[segs[0]]; ok {
			delete(m, segs[0])
			removed = true
		}
		return removed && len(m) == 0
	}
	child, ok := m[segs[0]].(map[string]any)
	if !ok {
		return false
	}
	if removePath(child, segs[1:], prefix) {
		delete(m, segs[0])
		return len(m) == 0
	}
	return false
}

// omitConfig is the resolved fieldsToOmit section: every item's effective
// path list (includes expanded) and the default.
type omitConfig struct {
	items      map[string][]omitPath
	defaultRef string
}

// rawOmitEntry is one entry of an items list as written.
type rawOmitEntry struct {
	pathToKey string
	isPrefix  bool
	include   string
	line      int
}

// resolveOmit expands includes (v2) and parses every path. Errors name the
// item and the line of the offending entry.
func resolveOmit(raw map[string][]rawOmitEntry, lines map[string]int, defaultRef string, file string) (*omitConfig, []Problem) {
	var problems []Problem
	builtIn := make([]rawOmitEntry, len(builtInOmitPaths))
	for i, p := range builtInOmitPaths {
		builtIn[i] = rawOmitEntry{pathToKey: p}
	}
	if _, ok := raw[BuiltInOmitRef]; ok {
		problems = append(problems, Problem{Location: loc(file, lines[BuiltInOmitRef]), Warning: true,
			Message: fmt.Sprintf("fieldsToOmit.items.%s is reserved for the built-in list and is replaced by it", BuiltInOmitRef)})
	}
	all := make(map[string][]rawOmitEntry, len(raw)+1)
	for k, v := range raw {
		all[k] = v
	}
	all[BuiltInOmitRef] = builtIn
	if defaultRef == "" {
		defaultRef = BuiltInOmitRef
	}
	cfg := &omitConfig{items: map[string][]omitPath{}, defaultRef: defaultRef}
	if _, ok := all[defaultRef]; !ok {
		problems = append(problems, Problem{Location: loc(file, lines["\x00default"]),
			Message: fmt.Sprintf("fieldsToOmit's defaultOmitRef %q not found in items", defaultRef)})
	}
	names := make([]string, 0, len(all))
	for k := range all {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		var out []omitPath
		seen := map[string]bool{}
		var expand func(item string, chain []string) bool
		expand = func(item string, chain []string) bool {
			if slices.Contains(chain, item) {
				// Each item of a cycle reports the cycle as seen from
				// itself; items that merely include a cyclic one stay quiet.
				if item == name {
					cycle := append(slices.Clone(chain), item)
					problems = append(problems, Problem{Location: loc(file, lines[name]),
						Message: fmt.Sprintf("fieldsToOmit: circular include found %s", strings.Join(cycle, " -> "))})
				}
				return false
			}
			entries, ok := all[item]
			if !ok {
				return true // reported where the include is written
			}
			chain = append(chain, item)
			for _, e := range entries {
				switch {
				case e.include != "" && e.pathToKey != "":
					if item == name {
						problems = append(problems, Problem{Location: loc(file, e.line),
							Message: fmt.Sprintf("fieldsToOmit.items.%s: an entry has both include and pathToKey; use one per entry", item)})
					}
				case e.include != "":
					if _, ok := all[e.include]; !ok {
						if item == name {
							problems = append(problems, Problem{Location: loc(file, e.line),
								Message: fmt.Sprintf("fieldsToOmit.items.%s: include %q names no item", item, e.include)})
						}
						continue
					}
					if !expand(e.include, chain) {
						return false
					}
				case e.pathToKey != "":
					segs, err := parseKeyPath(e.pathToKey)
					if err != nil {
						if item == name {
							problems = append(problems, Problem{Location: loc(file, e.line),
								Message: fmt.Sprintf("fieldsToOmit.items.%s: %v", item, err)})
						}
						continue
					}
					p := omitPath{segs: segs, prefix: e.isPrefix}
					if key := p.String(); !seen[key] {
						seen[key] = true
						out = append(out, p)
					}
				default:
					if item == name {
						problems = append(problems, Problem{Location: loc(file, e.line),
							Message: fmt.Sprintf("fieldsToOmit.items.%s: an entry has neither include nor pathToKey", item)})
					}
				}
			}
			return true
		}
		expand(name, nil)
		cfg.items[name] = out
	}
	return cfg, problems
}

// pathsFor returns the omission list of a template: the union of its
// fieldsToOmitRefs, or the default list when it names none.
func (c *omitConfig) pathsFor(refs []string) []omitPath {
	if len(refs) == 0 {
		return c.items[c.defaultRef]
	}
	if len(refs) == 1 {
		return c.items[refs[0]]
	}
	var out []omitPath
	seen := map[string]bool{}
	for _, r := range refs {
		for _, p := range c.items[r] {
			if k := p.String(); !seen[k] {
				seen[k] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// omitted returns obj without the paths, leaving obj untouched: the maps on
// the way to a removed field are copied, everything else is shared. The
// result must be treated as read-only.
func omitted(obj map[string]any, paths []omitPath) map[string]any {
	for _, p := range paths {
		obj, _ = withoutPath(obj, p.segs, p.prefix, true)
	}
	return obj
}

// withoutPath returns m with the path removed (copying only what changes)
// and whether anything was removed. With prune, a mapping the removal
// empties is removed from its parent.
func withoutPath(m map[string]any, segs []string, prefix, prune bool) (map[string]any, bool) {
	if len(segs) == 1 {
		var del []string
		if prefix {
			for k := range m {
				if strings.HasPrefix(k, segs[0]) {
					del = append(del, k)
				}
			}
		} else if _, ok := m[segs[0]]; ok {
			del = []string{segs[0]}
		}
		if len(del) == 0 {
			return m, false
		}
		out := make(map[string]any, len(m))
		for k, v := range m {
			out[k] = v
		}
		for _, k := range del {
			delete(out, k)
		}
		return out, true
	}
	child, ok := m[segs[0]].(map[string]any)
	if !ok {
		return m, false
	}
	nc, changed := withoutPath(child, segs[1:], prefix, prune)
	if !changed {
		return m, false
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	if prune && len(nc) == 0 {
		delete(out, segs[0])
	} else {
		out[segs[0]] = nc
	}
	return out, true
}
