package compare

import (
	"encoding/json"
	"errors"
	"fmt"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	"github.com/plumb-ci/plumb/internal/value"
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

// mergeOnto is mergePatch(copyMap(live), rendered) for a rendered tree
// the caller owns: rendered's maps and values become the result's (they
// are not copied), and only what live alone holds is copied from it. With
// ignore-unspecified-fields the template covers most of the input, whose
// copy mergePatch mostly overwrote. live is not modified, and the result
// shares nothing with it.
func mergeOnto(live, rendered map[string]any) map[string]any {
	var only []string // live's keys rendered lacks
	for k := range live {
		if _, ok := rendered[k]; !ok {
			only = append(only, k)
		}
	}
	for k, v := range rendered {
		switch x := v.(type) {
		case nil:
			delete(rendered, k)
		case map[string]any:
			lm, _ := live[k].(map[string]any)
			rendered[k] = mergeOnto(lm, x)
		}
	}
	for _, k := range only {
		rendered[k] = deepCopy(live[k])
	}
	return rendered
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
		if !value.Equal(fv, tv) {
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

// parseJSONPatch reads an RFC 6902 document (a JSON array of operations,
// given as its decoded value) and checks that each operation has what its op
// needs, so a broken override is reported when it is loaded rather than
// when it first applies. Patches are applied by evanphx/json-patch, the
// library kubectl's own patching uses.
func parseJSONPatch(v any) (jsonpatch.Patch, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, errors.New("an rfc6902 patch is a JSON array of operations")
	}
	for i, x := range list {
		if _, ok := x.(map[string]any); !ok {
			return nil, fmt.Errorf("operation %d is not an object", i)
		}
	}
	data, err := json.Marshal(list)
	if err != nil {
		return nil, err
	}
	p, err := jsonpatch.DecodePatch(data)
	if err != nil {
		return nil, err
	}
	for i, op := range p {
		if _, err := op.Path(); err != nil {
			return nil, fmt.Errorf("operation %d has no path", i)
		}
		switch kind := op.Kind(); kind {
		case "add", "replace", "test":
			if _, ok := op["value"]; !ok {
				return nil, fmt.Errorf("operation %d (%s) has no value", i, kind)
			}
		case "move", "copy":
			if _, err := op.From(); err != nil {
				return nil, fmt.Errorf("operation %d (%s) has no from", i, kind)
			}
		case "remove":
		default:
			name, _ := list[i].(map[string]any)["op"].(string)
			return nil, fmt.Errorf("operation %d: unknown op %q", i, name)
		}
	}
	return p, nil
}

// applyJSONPatch applies an RFC 6902 patch to a value tree and returns the
// patched tree (doc itself is not changed).
func applyJSONPatch(doc any, p jsonpatch.Patch) (any, error) {
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	if data, err = p.Apply(data); err != nil {
		return nil, err
	}
	return decodeJSON(data)
}
