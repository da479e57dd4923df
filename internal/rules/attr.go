package rules

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// attributePath splits an attribute action's path the way Ironic does: a
// path with '/' is a JSON pointer (leading and trailing slashes dropped),
// otherwise it is split on '.'. JSON-pointer escapes (~1 for '/', ~0 for
// '~') are decoded so label keys such as app.kubernetes.io/name can be
// addressed (/metadata/labels/app.kubernetes.io~1name).
func attributePath(p string) ([]string, error) {
	var segs []string
	if strings.Contains(p, "/") {
		trimmed := strings.Trim(p, "/")
		if trimmed == "" {
			return nil, fmt.Errorf("path %q addresses the whole object; name a field", p)
		}
		for _, s := range strings.Split(trimmed, "/") {
			segs = append(segs, strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~"))
		}
	} else {
		if p == "" {
			return nil, fmt.Errorf("path is empty")
		}
		segs = strings.Split(p, ".")
	}
	for _, s := range segs {
		if s == "" {
			return nil, fmt.Errorf("path %q has an empty segment", p)
		}
	}
	return segs, nil
}

// pointer prints segments as a JSON pointer (RFC 6901).
func pointer(segs []string) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// fieldPath reads the optional path of fail and log: plumb's field path
// syntax (spec.replicas, metadata.labels["a/b"]) or a JSON pointer.
func fieldPath(s string) (manifest.Path, error) {
	if s == "" {
		return nil, nil
	}
	if strings.HasPrefix(s, "/") {
		segs, err := attributePath(s)
		if err != nil {
			return nil, err
		}
		var p manifest.Path
		for _, seg := range segs {
			if n, err := strconv.Atoi(seg); err == nil && n >= 0 && strconv.Itoa(n) == seg {
				p = append(p, manifest.Index(n))
			} else {
				p = append(p, manifest.Key(seg))
			}
		}
		return p, nil
	}
	return manifest.ParsePath(s)
}

// copyOnWrite gives a subject private copies of the mappings and lists its
// edits write to, each copied the first time: the rest of the object stays
// shared with the rendered object it came from. A rule that sets one label
// copies the root, metadata and labels mappings, where a copy of the whole
// object was made before (8 MB for 2,000 objects of the benchmark corpus).
type copyOnWrite struct {
	// owned are the mappings and lists already copied, by address; each
	// is kept as the value so that its address cannot be reused while the
	// subject may still write.
	owned map[uintptr]any
}

// mapping returns m, or a copy the subject owns.
func (c *copyOnWrite) mapping(m map[string]any) map[string]any {
	if _, ok := c.owned[reflect.ValueOf(m).Pointer()]; ok && m != nil {
		return m
	}
	cp := maps.Clone(m)
	if cp == nil {
		cp = map[string]any{}
	}
	c.own(reflect.ValueOf(cp).Pointer(), cp)
	return cp
}

// list returns l, or a copy the subject owns.
func (c *copyOnWrite) list(l []any) []any {
	if _, ok := c.owned[reflect.ValueOf(l).Pointer()]; ok && len(l) > 0 {
		return l
	}
	cp := slices.Clone(l)
	if len(cp) > 0 {
		c.own(reflect.ValueOf(cp).Pointer(), cp)
	}
	return cp
}

func (c *copyOnWrite) own(p uintptr, v any) {
	if c.owned == nil {
		c.owned = map[uintptr]any{}
	}
	c.owned[p] = v
}

// sameNode reports whether a is b: the same mapping or list (by address),
// or equal scalars.
func sameNode(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && reflect.ValueOf(x).Pointer() == reflect.ValueOf(y).Pointer()
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && reflect.ValueOf(x).Pointer() == reflect.ValueOf(y).Pointer()
	}
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && (ta == nil || ta.Comparable() && a == b)
}

// updateFunc computes the new value at a path from the old one; remove
// deletes the entry instead.
type updateFunc func(old any, exists bool) (v any, remove bool, err error)

// edit is one walk to a path in a subject's content, copying each mapping
// and list it writes to that the subject does not own yet.
type edit struct {
	cow  *copyOnWrite
	segs []string
	// create makes missing intermediate mappings (set and extend); delete
	// walks never create and never fail on a missing path (D9).
	create bool
	// appendOK lets "-" append to a list (JSON patch).
	appendOK bool
	fn       updateFunc
	// touched records the path that was reached, with list indexes;
	// created is the length of its prefix that the edit created (-1 for
	// none), so the patch adds the new subtree where it starts.
	touched manifest.Path
	created int
	existed bool
}

// patchTarget is where the change starts: the first created mapping, or
// the edited field.
func (e *edit) patchTarget() manifest.Path {
	if e.created > 0 {
		return e.touched[:e.created]
	}
	return e.touched
}

// apply runs the edit below cur (a mapping or list) and returns cur's new
// value (a list may be reallocated).
func (e *edit) apply(cur any, depth int) (any, error) {
	seg := e.segs[depth]
	last := depth == len(e.segs)-1
	where := pointer(e.segs[:depth])
	if where == "" {
		where = "the object"
	}
	switch t := cur.(type) {
	case map[string]any:
		e.touched = append(e.touched, manifest.Key(seg))
		old, ok := t[seg]
		prev := old
		if last {
			nv, remove, err := e.fn(old, ok)
			if err != nil {
				return cur, err
			}
			t = e.cow.mapping(t)
			e.existed = ok
			if remove {
				if ok {
					delete(t, seg)
				}
			} else {
				t[seg] = nv
			}
			return t, nil
		}
		if !ok || old == nil {
			if !e.create {
				return t, nil
			}
			old = map[string]any{}
			if e.created < 0 {
				e.created = len(e.touched)
			}
		}
		nv, err := e.apply(old, depth+1)
		if !ok || !sameNode(nv, prev) {
			t = e.cow.mapping(t)
			t[seg] = nv
		}
		return t, err
	case []any:
		if seg == "-" && last && e.appendOK {
			e.touched = append(e.touched, manifest.Index(len(t)))
			nv, remove, err := e.fn(nil, false)
			if err != nil || remove {
				return t, err
			}
			// Clipped, the append never writes into a backing array
			// that other objects may share.
			return append(slices.Clip(t), nv), nil
		}
		i, err := strconv.Atoi(seg)
		if err != nil || i < 0 || strconv.Itoa(i) != seg {
			if !e.create {
				return t, nil
			}
			return cur, fmt.Errorf("%s is a list: %q is not an index", where, seg)
		}
		if i >= len(t) {
			if !e.create {
				return t, nil
			}
			return cur, fmt.Errorf("index %d is out of range: %s has %d items", i, where, len(t))
		}
		e.touched = append(e.touched, manifest.Index(i))
		if last {
			nv, remove, err := e.fn(t[i], true)
			if err != nil {
				return cur, err
			}
			e.existed = true
			if remove {
				return append(t[:i:i], t[i+1:]...), nil
			}
			t = e.cow.list(t)
			t[i] = nv
			return t, nil
		}
		nv, err := e.apply(t[i], depth+1)
		if !sameNode(nv, t[i]) {
			t = e.cow.list(t)
			t[i] = nv
		}
		return t, err
	}
	if !e.create {
		return cur, nil
	}
	return cur, fmt.Errorf("%s is a %s, not a mapping", where, typeName(cur))
}
