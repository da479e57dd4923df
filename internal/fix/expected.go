package fix

import (
	"fmt"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// expected is the document's value with op made.
func expected(v any, op sourceOp) (any, error) {
	v = manifest.DeepCopy(v)
	if op.rename {
		parent, ok := lookup(v, op.path.Parent()).(map[string]any)
		last := op.path[len(op.path)-1]
		if !ok || last.IsIndex {
			return nil, notEditable("no mapping holds the key")
		}
		if _, taken := parent[op.to]; taken {
			return nil, notEditable("%s is already there", op.to)
		}
		parent[op.to] = parent[last.Key]
		delete(parent, last.Key)
		return v, nil
	}
	for _, in := range append([]insertion{{op.keys, op.value}}, op.also...) {
		var err error
		if v, err = setValue(v, op.path.Child(keyPath(in.keys)...), normalize(in.value)); err != nil {
			return nil, err
		}
	}
	return v, nil
}

func keyPath(keys []string) manifest.Path {
	p := make(manifest.Path, len(keys))
	for i, k := range keys {
		p[i] = manifest.Key(k)
	}
	return p
}

// setValue sets the value at p, making mappings on the way (a null
// becomes a mapping).
func setValue(root any, p manifest.Path, value any) (any, error) {
	if len(p) == 0 {
		return value, nil
	}
	seg := p[0]
	if seg.IsIndex {
		list, ok := root.([]any)
		if !ok || seg.Index >= len(list) {
			return nil, fmt.Errorf("no item %d", seg.Index)
		}
		next, err := setValue(list[seg.Index], p[1:], value)
		list[seg.Index] = next
		return list, err
	}
	m, ok := root.(map[string]any)
	if root == nil {
		m, ok = map[string]any{}, true
	}
	if !ok {
		return nil, fmt.Errorf("%s is not in a mapping", seg.Key)
	}
	next, err := setValue(m[seg.Key], p[1:], value)
	m[seg.Key] = next
	return m, err
}

func lookup(v any, p manifest.Path) any {
	out, _ := manifest.Lookup(v, p)
	return out
}

// normalize makes numbers int64 where they are whole, as the manifest
// decoder does, so values from a catalog and from a document compare.
func normalize(v any) any {
	switch t := v.(type) {
	case int:
		return int64(t)
	case int32:
		return int64(t)
	case uint64:
		return int64(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}
