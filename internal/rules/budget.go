package rules

import (
	"fmt"
	"sync/atomic"
)

// What inspection rules may write. A rule can feed a value back into
// itself: set-plugin-data of "{plugin_data[a]}{plugin_data[a]}" in a loop
// of forty items doubles the value forty times, and chained rules do the
// same across phases, until the kernel kills the process. Every argument
// an action is given (what it writes into plugin data, an attribute, a log
// line, and the report's record of the action) is bounded in size, and so
// is the total of all actions of a run.
const (
	// MaxValueBytes bounds one argument of one action (1 MiB).
	MaxValueBytes = 1 << 20
	// MaxRunBytes bounds the arguments of every action of a run together
	// (64 MiB).
	MaxRunBytes = 64 << 20
)

// runBudget counts what a run's actions were given.
type runBudget struct {
	written atomic.Int64
}

// admitArgs refuses an action whose arguments are over the limits.
func (x *evalCtx) admitArgs(params []param, args []any) error {
	var total int64
	for i, a := range args {
		n := valueBytes(a, MaxValueBytes+1)
		if n > MaxValueBytes {
			name := fmt.Sprintf("argument %d", i)
			if i < len(params) {
				name = "argument " + params[i].name
			}
			return fmt.Errorf("%s is more than %d bytes, the limit of one value an inspection rule writes (does the rule feed a value back into itself, in a loop or through plugin data?)",
				name, MaxValueBytes)
		}
		total += n
	}
	if x.s == nil || x.s.run == nil {
		return nil
	}
	if x.s.run.budget.written.Add(total) > MaxRunBytes {
		return fmt.Errorf("the inspection rules of this run have written more than %d bytes, the limit of all their actions together: the action is not run (do rules copy large values into plugin data or attributes for every object?)",
			MaxRunBytes)
	}
	return nil
}

// valueBytes measures a value as its text would be, stopping past limit.
func valueBytes(v any, limit int64) int64 {
	var n int64
	var walk func(v any) bool
	walk = func(v any) bool {
		switch t := v.(type) {
		case string:
			n += int64(len(t))
		case map[string]any:
			for k, e := range t {
				n += int64(len(k)) + 2
				if n > limit || !walk(e) {
					return false
				}
			}
		case []any:
			for _, e := range t {
				n += 2
				if n > limit || !walk(e) {
					return false
				}
			}
		default:
			n += 8
		}
		return n <= limit
	}
	walk(v)
	return n
}
