package checks

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/functions"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
)

// The cost limit counts steps, and cel-go counts the cost of a call after
// the call: a call that builds a large value from small inputs has built
// it before its cost is known. facts.k.split("").map(x, facts.k).join("")
// on a 100,000-character value asks join for a 10 GB string from a list
// of 100,000 references to one string (80 s and 17.7 GB, with the limit
// never reached); a list of such references printed into a message wrote
// an 800 MB report. So, besides the cost limit:
//
//   - the calls that can build a value larger than their inputs (join,
//     replace, regex.replace, format, json.encode, flatten, lists.range) and
//     those whose work is the product of their inputs' sizes (sets.*,
//     distinct) compute what they would build, or cost, from their actual
//     arguments first, and are refused past MaxValueBytes (or CostLimit)
//     before anything is allocated;
//   - the result of every evaluation is measured (as its text would be,
//     every shared string counted each time it appears) and refused past
//     MaxValueBytes, so no value over it reaches a message or a report;
//   - an evaluation that is not proven cheap runs under a deadline
//     (EvalTimeLimit), checked in every comprehension.
//
// A refusal is a too_many_operations error, reported as the cost limit is.

// MaxValueBytes bounds a value one call may build and the result of one
// evaluation (4 MiB): a thousand times what a check's message or value
// needs, far below what would hurt the runner.
const MaxValueBytes = 4 << 20

// guardedSize computes, from a call's actual arguments, the size of what
// it would build (bytes) and the cost of the work it would do (cost
// units); ok is false when the arguments are not what the function takes
// (the function reports that itself).
type guardedSize func(args []ref.Val) (size, cost uint64, ok bool)

// buildingCalls are the guarded functions whose result the guard bounds by
// MaxValueBytes (the others are bounded by CostLimit).
var buildingCalls = map[string]struct{}{
	"join": {}, "replace": {}, "regex.replace": {}, "format": {}, "json.encode": {}, "flatten": {}, "lists.range": {},
}

// guards are the functions that are sized before they run, by name.
var guards = map[string]guardedSize{
	"join":            joinSize,
	"replace":         replaceSize,
	"regex.replace":   regexReplaceSize,
	"format":          formatSize,
	"json.encode":     jsonEncodeSize,
	"flatten":         flattenSize,
	"lists.range":     rangeSize,
	"sets.contains":   productCost,
	"sets.intersects": productCost,
	"sets.equivalent": productCost,
	"distinct":        distinctCost,
}

// sizeGuard returns the decorator that sizes the guarded calls of
// programs of env before they run.
func sizeGuard(env *cel.Env) (cel.ProgramOption, error) {
	impls := map[string]*functions.Overload{}
	for _, fn := range env.Functions() {
		if guards[fn.Name()] == nil {
			continue
		}
		bindings, err := fn.Bindings()
		if err != nil {
			return nil, err
		}
		for _, o := range bindings {
			impls[o.Operator] = o
		}
	}
	return cel.CustomDecoratorV2(func(i interpreter.InterpretableV2) (interpreter.InterpretableV2, error) {
		call, ok := i.(interpreter.InterpretableCall)
		if !ok {
			return i, nil
		}
		size := guards[call.Function()]
		if size == nil {
			return i, nil
		}
		impl := impls[call.OverloadID()]
		if impl == nil {
			impl = impls[call.Function()]
		}
		return &guardedCall{InterpretableCall: call, size: size, impl: impl}, nil
	}), nil
}

// guardedCall evaluates a guarded call's arguments, sizes the call and
// runs the function only when it is within the limits.
type guardedCall struct {
	interpreter.InterpretableCall
	size guardedSize
	impl *functions.Overload
}

// Exec implements interpreter.InterpretableV2.
func (g *guardedCall) Exec(frame *interpreter.ExecutionFrame) ref.Val {
	argExprs := g.Args()
	args := make([]ref.Val, len(argExprs))
	for i, a := range argExprs {
		args[i] = a.Exec(frame)
		if types.IsUnknownOrError(args[i]) {
			return args[i]
		}
	}
	if size, cost, ok := g.size(args); ok {
		if size > MaxValueBytes {
			return types.NewErr("value limit exceeded: %s would build about %d bytes, over the limit of %d bytes per value", g.Function(), size, MaxValueBytes)
		}
		if cost > CostLimit {
			return types.NewErr("cost limit exceeded: %s over its arguments would cost about %d units, over the limit of %d per evaluation", g.Function(), cost, CostLimit)
		}
	}
	if g.impl == nil {
		// No overload to call directly: the call evaluates its arguments
		// once more.
		return g.InterpretableCall.Exec(frame)
	}
	if t := g.impl.OperandTrait; t != 0 && !args[0].Type().HasTrait(t) {
		return types.NewErr("no such overload: %s", g.Function())
	}
	switch {
	case len(args) == 1 && g.impl.Unary != nil:
		return g.impl.Unary(args[0])
	case len(args) == 2 && g.impl.Binary != nil:
		return g.impl.Binary(args[0], args[1])
	case g.impl.Function != nil:
		return g.impl.Function(args...)
	}
	return types.NewErr("no such overload: %s", g.Function())
}

// Eval implements interpreter.Interpretable.
func (g *guardedCall) Eval(act interpreter.Activation) ref.Val {
	return g.Exec(interpreter.AsFrame(act))
}

func joinSize(args []ref.Val) (uint64, uint64, bool) {
	list, ok := args[0].(traits.Lister)
	if !ok {
		return 0, 0, false
	}
	var sep uint64
	if len(args) > 1 {
		s, ok := args[1].(types.String)
		if !ok {
			return 0, 0, false
		}
		sep = uint64(len(s))
	}
	n, ok := list.Size().(types.Int)
	if !ok {
		return 0, 0, false
	}
	var size uint64
	for i := types.Int(0); i < n; i++ {
		if s, ok := list.Get(i).(types.String); ok {
			size += uint64(len(s))
		}
		if i > 0 {
			size += sep
		}
		if size > MaxValueBytes {
			break
		}
	}
	return size, 0, true
}

func replaceSize(args []ref.Val) (uint64, uint64, bool) {
	if len(args) < 3 {
		return 0, 0, false
	}
	s, ok1 := args[0].(types.String)
	old, ok2 := args[1].(types.String)
	repl, ok3 := args[2].(types.String)
	if !ok1 || !ok2 || !ok3 {
		return 0, 0, false
	}
	count := strings.Count(string(s), string(old))
	if len(args) > 3 {
		if n, ok := args[3].(types.Int); ok && n >= 0 && int(n) < count {
			count = int(n)
		}
	}
	size := uint64(len(s))
	if len(repl) > len(old) {
		size += uint64(count) * uint64(len(repl)-len(old))
	}
	return size, 0, true
}

// groupRefRE finds the group references of a regex.replace replacement.
var groupRefRE = regexp.MustCompile(`\\[0-9]`)

func regexReplaceSize(args []ref.Val) (uint64, uint64, bool) {
	if len(args) < 3 {
		return 0, 0, false
	}
	s, ok1 := args[0].(types.String)
	repl, ok3 := args[2].(types.String)
	if !ok1 || !ok3 {
		return 0, 0, false
	}
	// Every position of s may match; each match writes the replacement
	// with its group references expanded (each at most s).
	per := uint64(len(repl)) + uint64(len(groupRefRE.FindAllStringIndex(string(repl), -1)))*uint64(len(s))
	matches := uint64(utf8.RuneCountInString(string(s)) + 1)
	if len(args) > 3 {
		if n, ok := args[3].(types.Int); ok && n >= 0 && uint64(n) < matches {
			matches = uint64(n)
		}
	}
	return uint64(len(s)) + matches*per, 0, true
}

// widthRE finds the widths and precisions a format string asks for.
var widthRE = regexp.MustCompile(`%[-+# 0]*([0-9]*)(?:\.([0-9]+))?`)

func formatSize(args []ref.Val) (uint64, uint64, bool) {
	f, ok := args[0].(types.String)
	if !ok || len(args) < 2 {
		return 0, 0, false
	}
	size := uint64(len(f)) + valueSize(args[1], MaxValueBytes+1)
	for _, m := range widthRE.FindAllStringSubmatch(string(f), -1) {
		for _, d := range m[1:] {
			var n uint64
			for _, c := range d {
				n = min(n*10+uint64(c-'0'), MaxValueBytes+1)
			}
			size += n
		}
	}
	return size, 0, true
}

func jsonEncodeSize(args []ref.Val) (uint64, uint64, bool) {
	// Escaping writes at most six bytes per byte (\u00XX).
	return 6 * valueSize(args[0], MaxValueBytes+1), 0, true
}

func flattenSize(args []ref.Val) (uint64, uint64, bool) {
	depth := 1
	if len(args) > 1 {
		d, ok := args[1].(types.Int)
		if !ok {
			return 0, 0, false
		}
		depth = int(min(d, 64))
	}
	var count uint64
	var walk func(v ref.Val, d int)
	walk = func(v ref.Val, d int) {
		l, ok := v.(traits.Lister)
		if !ok || d < 0 {
			count++
			return
		}
		n, _ := l.Size().(types.Int)
		for i := types.Int(0); i < n && count*16 <= MaxValueBytes; i++ {
			walk(l.Get(i), d-1)
		}
	}
	l, ok := args[0].(traits.Lister)
	if !ok {
		return 0, 0, false
	}
	n, _ := l.Size().(types.Int)
	for i := types.Int(0); i < n && count*16 <= MaxValueBytes; i++ {
		walk(l.Get(i), depth-1)
	}
	return count * 16, 0, true
}

func rangeSize(args []ref.Val) (uint64, uint64, bool) {
	n, ok := args[0].(types.Int)
	if !ok || n < 0 {
		return 0, 0, false
	}
	return uint64(min(n, MaxValueBytes)) * 16, 0, true
}

func productCost(args []ref.Val) (uint64, uint64, bool) {
	if len(args) < 2 {
		return 0, 0, false
	}
	return 0, listSize(args[0]) * listSize(args[1]), true
}

func distinctCost(args []ref.Val) (uint64, uint64, bool) {
	n := listSize(args[0])
	return 0, n * n, true
}

func listSize(v ref.Val) uint64 {
	l, ok := v.(traits.Lister)
	if !ok {
		return 0
	}
	n, _ := l.Size().(types.Int)
	return uint64(max(n, 0))
}

// valueSize measures a CEL value as its text would be — every string each
// time it appears, a few bytes for every other element — stopping once
// past limit.
func valueSize(v ref.Val, limit uint64) uint64 {
	var n uint64
	var walk func(v ref.Val)
	walk = func(v ref.Val) {
		if n > limit {
			return
		}
		switch t := v.(type) {
		case types.String:
			n += uint64(len(t)) + 2
			return
		case types.Bytes:
			n += uint64(len(t)) + 2
			return
		}
		switch native := v.Value().(type) {
		case map[string]any, []any:
			n += nativeSize(native, limit-min(n, limit))
			return
		}
		switch t := v.(type) {
		case traits.Lister:
			size, _ := t.Size().(types.Int)
			for i := types.Int(0); i < size && n <= limit; i++ {
				n += 2
				walk(t.Get(i))
			}
		case traits.Mapper:
			it := t.Iterator()
			for it.HasNext() == types.True && n <= limit {
				k := it.Next()
				n += 2
				walk(k)
				walk(t.Get(k))
			}
		default:
			n += 8
		}
	}
	walk(v)
	return n
}

// nativeSize is valueSize of a native value (the facts, values and env an
// expression reads).
func nativeSize(v any, limit uint64) uint64 {
	var n uint64
	var walk func(v any)
	walk = func(v any) {
		if n > limit {
			return
		}
		switch t := v.(type) {
		case string:
			n += uint64(len(t)) + 2
		case map[string]any:
			for k, e := range t {
				n += uint64(len(k)) + 4
				walk(e)
			}
		case []any:
			for _, e := range t {
				n += 2
				walk(e)
			}
		default:
			n += 8
		}
	}
	walk(v)
	return n
}

// resultTooLarge refuses an evaluation's result over MaxValueBytes.
func resultTooLarge(v ref.Val) *EvalError {
	if n := valueSize(v, MaxValueBytes); n > MaxValueBytes {
		return &EvalError{Type: "too_many_operations",
			Message: fmt.Sprintf("value limit exceeded: the result is more than %d bytes", MaxValueBytes)}
	}
	return nil
}
