package compare

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// mergePatch applies an RFC 7386 JSON merge patch to target and returns the
// result: mappings merge recursively, null deletes a key, anything else
// (lists included) replaces the target value wholesale. target may be
// changed in place.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return deepCopy(patch)
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], v)
	}
	return t
}

// createMergePatch returns the RFC 7386 merge patch that turns from into to.
func createMergePatch(from, to map[string]any) map[string]any {
	patch := map[string]any{}
	for k, tv := range to {
		fv, ok := from[k]
		if !ok {
			patch[k] = deepCopy(tv)
			continue
		}
		fm, fIsMap := fv.(map[string]any)
		tm, tIsMap := tv.(map[string]any)
		if fIsMap && tIsMap {
			if sub := createMergePatch(fm, tm); len(sub) > 0 {
				patch[k] = sub
			}
			continue
		}
		if !deepEqual(fv, tv) {
			patch[k] = deepCopy(tv)
		}
	}
	for k := range from {
		if _, ok := to[k]; !ok {
			patch[k] = nil
		}
	}
	return patch
}

// jsonPatchOp is one RFC 6902 operation.
type jsonPatchOp struct {
	Op, Path, From string
	Value          any
	hasValue       bool
}

// parseJSONPatch reads an RFC 6902 document (a JSON array of operations).
func parseJSONPatch(v any) ([]jsonPatchOp, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, errors.New("an rfc6902 patch is a JSON array of operations")
	}
	ops := make([]jsonPatchOp, len(list))
	for i, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("operation %d is not an object", i)
		}
		op := jsonPatchOp{}
		op.Op, _ = m["op"].(string)
		op.Path, ok = m["path"].(string)
		if !ok {
			return nil, fmt.Errorf("operation %d has no path", i)
		}
		op.From, _ = m["from"].(string)
		op.Value, op.hasValue = m["value"]
		switch op.Op {
		case "add", "replace", "test":
			if !op.hasValue {
				return nil, fmt.Errorf("operation %d (%s) has no value", i, op.Op)
			}
		case "move", "copy":
			if _, ok := m["from"].(string); !ok {
				return nil, fmt.Errorf("operation %d (%s) has no from", i, op.Op)
			}
		case "remove":
		default:
			return nil, fmt.Errorf("operation %d: unknown op %q", i, op.Op)
		}
		ops[i] = op
	}
	return ops, nil
}

// applyJSONPatch applies RFC 6902 operations to doc and returns the result.
func applyJSONPatch(doc any, ops []jsonPatchOp) (any, error) {
	for i, op := range ops {
		var err error
		switch op.Op {
		case "add":
			doc, err = pointerAdd(doc, op.Path, deepCopy(op.Value))
		case "remove":
			doc, _, err = pointerRemove(doc, op.Path)
		case "replace":
			if doc, _, err = pointerRemove(doc, op.Path); err == nil {
				doc, err = pointerAdd(doc, op.Path, deepCopy(op.Value))
			}
		case "move":
			var v any
			if doc, v, err = pointerRemove(doc, op.From); err == nil {
				doc, err = pointerAdd(doc, op.Path, v)
			}
		case "copy":
			var v any
			if v, err = pointerGet(doc, op.From); err == nil {
				doc, err = pointerAdd(doc, op.Path, deepCopy(v))
			}
		case "test":
			var v any
			if v, err = pointerGet(doc, op.Path); err == nil && !deepEqual(v, op.Value) {
				err = fmt.Errorf("test failed at %s", op.Path)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("operation %d (%s %s): %w", i, op.Op, op.Path, err)
		}
	}
	return doc, nil
}

func splitPointer(p string) ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("JSON pointer %q does not start with '/'", p)
	}
	parts := strings.Split(p[1:], "/")
	for i, s := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

func pointerGet(doc any, p string) (any, error) {
	parts, err := splitPointer(p)
	if err != nil {
		return nil, err
	}
	cur := doc
	for _, s := range parts {
		switch t := cur.(type) {
		case map[string]any:
			v, ok := t[s]
			if !ok {
				return nil, fmt.Errorf("%s: no such key %q", p, s)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(s)
			if err != nil || i < 0 || i >= len(t) {
				return nil, fmt.Errorf("%s: no such index %q", p, s)
			}
			cur = t[i]
		default:
			return nil, fmt.Errorf("%s: cannot index a %s", p, kindName(cur))
		}
	}
	return cur, nil
}

// pointerAdd adds (or, in a mapping, sets) value at p. Lists are changed by
// replacing them in their parent, so the result is returned.
func pointerAdd(doc any, p string, value any) (any, error) {
	parts, err := splitPointer(p)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return value, nil
	}
	parent, err := pointerGet(doc, "/"+strings.Join(escapeAll(parts[:len(parts)-1]), "/"))
	if len(parts) == 1 {
		parent, err = doc, nil
	}
	if err != nil {
		return nil, err
	}
	last := parts[len(parts)-1]
	switch t := parent.(type) {
	case map[string]any:
		t[last] = value
		return doc, nil
	case []any:
		i := len(t)
		if last != "-" {
			if i, err = strconv.Atoi(last); err != nil || i < 0 || i > len(t) {
				return nil, fmt.Errorf("%s: index %q out of range", p, last)
			}
		}
		grown := append(t[:i:i], append([]any{value}, t[i:]...)...)
		return replaceAt(doc, parts[:len(parts)-1], grown)
	}
	return nil, fmt.Errorf("%s: cannot add into a %s", p, kindName(parent))
}

// pointerRemove removes the value at p and returns it.
func pointerRemove(doc any, p string) (any, any, error) {
	parts, err := splitPointer(p)
	if err != nil {
		return nil, nil, err
	}
	if len(parts) == 0 {
		return nil, doc, nil
	}
	parent := doc
	if len(parts) > 1 {
		if parent, err = pointerGet(doc, "/"+strings.Join(escapeAll(parts[:len(parts)-1]), "/")); err != nil {
			return nil, nil, err
		}
	}
	last := parts[len(parts)-1]
	switch t := parent.(type) {
	case map[string]any:
		v, ok := t[last]
		if !ok {
			return nil, nil, fmt.Errorf("%s: no such key %q", p, last)
		}
		delete(t, last)
		return doc, v, nil
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(t) {
			return nil, nil, fmt.Errorf("%s: no such index %q", p, last)
		}
		v := t[i]
		shrunk := append(t[:i:i], t[i+1:]...)
		doc, err = replaceAt(doc, parts[:len(parts)-1], shrunk)
		return doc, v, err
	}
	return nil, nil, fmt.Errorf("%s: cannot remove from a %s", p, kindName(parent))
}

// replaceAt stores value at the pointer segments (the root when empty).
func replaceAt(doc any, parts []string, value any) (any, error) {
	if len(parts) == 0 {
		return value, nil
	}
	parent := doc
	var err error
	if len(parts) > 1 {
		if parent, err = pointerGet(doc, "/"+strings.Join(escapeAll(parts[:len(parts)-1]), "/")); err != nil {
			return nil, err
		}
	}
	last := parts[len(parts)-1]
	switch t := parent.(type) {
	case map[string]any:
		t[last] = value
	case []any:
		i, _ := strconv.Atoi(last)
		t[i] = value
	}
	return doc, nil
}

func escapeAll(parts []string) []string {
	out := make([]string, len(parts))
	for i, s := range parts {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
	}
	return out
}
