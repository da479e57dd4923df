package checks

import (
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// NormalizeEnv returns env with numbers typed as the checks see them: whole
// numbers int64 (Wanda's protobuf mapping truncates whole doubles), other
// numbers float64. The input is not modified.
func NormalizeEnv(env map[string]any) map[string]any {
	if env == nil {
		return nil
	}
	out := make(map[string]any, len(env))
	for k, v := range env {
		out[k] = normalizeValue(v)
	}
	return out
}

// normalizeValue types numbers the way facts and env are typed.
func normalizeValue(v any) any {
	switch t := v.(type) {
	case int:
		return int64(t)
	case int32:
		return int64(t)
	case int64:
		return t
	case uint64:
		if t < 1<<63 {
			return int64(t)
		}
		return float64(t)
	case float32:
		return normalizeNumber(float64(t))
	case float64:
		return normalizeNumber(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = normalizeValue(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = normalizeValue(e)
		}
		return out
	}
	return v
}

// Applicable reports whether the check runs in env: its when holds and its
// metadata matches (research §2.2).
func (c *Check) Applicable(env map[string]any, envVal ref.Val) bool {
	return c.whenHolds(env, envVal) && c.metadataMatches(env)
}

// whenHolds evaluates the check-level when. Like Wanda, an empty env skips
// it (the check is kept), and an error or any result but true removes the
// check.
func (c *Check) whenHolds(env map[string]any, envVal ref.Val) bool {
	if c.When == nil || len(env) == 0 {
		return true
	}
	if !c.When.Compiled() {
		return false
	}
	v, err := c.When.eval(&activation{env: envVal})
	return err == nil && v == types.True
}

// metadataMatches is Wanda's match_metadata: for every env key the check's
// metadata has, the values must be strictly equal, or the metadata list must
// hold the env value. Keys the metadata lacks match; an empty env or nil
// metadata match everything.
func (c *Check) metadataMatches(env map[string]any) bool {
	if len(env) == 0 || c.Metadata == nil {
		return true
	}
	for k, ev := range env {
		mv, ok := c.Metadata[k]
		if !ok {
			continue
		}
		if list, ok := mv.([]any); ok {
			found := false
			for _, e := range list {
				if strictEqual(e, ev) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
			continue
		}
		if !strictEqual(mv, ev) {
			return false
		}
	}
	return true
}

// strictEqual is Elixir's ===: same type and value, so 42 is not "42" and
// 42 is not 42.0.
func strictEqual(a, b any) bool {
	return reflect.DeepEqual(a, b)
}
