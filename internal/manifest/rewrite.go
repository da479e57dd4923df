package manifest

import "maps"

// RewriteMap applies f to every entry of m and returns a copy holding the
// entries f changed, or m itself (and false) when f changed none: the
// copy-on-write walk that masking and number normalisation share, so an
// unchanged subtree is never copied.
func RewriteMap(m map[string]any, f func(key string, v any) (any, bool)) (map[string]any, bool) {
	var out map[string]any
	for k, e := range m {
		ne, changed := f(k, e)
		if !changed {
			continue
		}
		if out == nil {
			out = maps.Clone(m)
		}
		out[k] = ne
	}
	if out == nil {
		return m, false
	}
	return out, true
}

// RewriteList is RewriteMap for a list.
func RewriteList(l []any, f func(v any) (any, bool)) ([]any, bool) {
	var out []any
	for i, e := range l {
		ne, changed := f(e)
		if !changed {
			continue
		}
		if out == nil {
			out = append([]any(nil), l...)
		}
		out[i] = ne
	}
	if out == nil {
		return l, false
	}
	return out, true
}
