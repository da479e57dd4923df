package checks

import (
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
)

// plumb meters the cost of an evaluation itself instead of using cel-go's
// runtime cost tracking. That tracker keeps a stack of every value
// evaluated and searches it from the top for each attribute read; inside a
// comprehension that builds a list the stack keeps growing, so the search
// is linear and the evaluation quadratic: a map() over 100,000 elements
// took more than ten seconds to track (the nested map over split()
// took 29 s to reach the limit), far longer than it takes to run. The
// meter counts calls, which every iteration of every comprehension makes
// (its loop condition or step is one), plus the size of the strings a call
// builds (a tenth of a unit per byte, as cel-go counts) and of the lists
// the list-building functions return (a unit per element), in constant
// time per call. It stops the evaluation at CostLimit units. cel-go's
// static estimate, in the same units, still decides which expressions can
// skip the meter (costPlan).

// listBuilders are the functions whose list result is built in one call,
// metered by its size.
var listBuilders = map[string]bool{
	"split": true, "flatten": true, "lists.range": true, "sort": true, "sortBy": true, "distinct": true,
	"reverse": true, "slice": true, "regex.extractAll": true, "keys": true, "values": true,
}

// costMeter is the decorator that meters the calls of a program.
func costMeter() cel.ProgramOption {
	return cel.CustomDecoratorV2(func(i interpreter.InterpretableV2) (interpreter.InterpretableV2, error) {
		call, ok := i.(interpreter.InterpretableCall)
		if !ok {
			return i, nil
		}
		return &meteredCall{InterpretableCall: call, lists: listBuilders[call.Function()]}, nil
	})
}

// meteredCall counts one call into its evaluation's meter.
type meteredCall struct {
	interpreter.InterpretableCall
	lists bool
}

// Exec implements interpreter.InterpretableV2.
func (m *meteredCall) Exec(frame *interpreter.ExecutionFrame) ref.Val {
	v := m.InterpretableCall.Exec(frame)
	act := activationOf(frame)
	if act == nil {
		return v
	}
	cost := uint64(1)
	switch t := v.(type) {
	case types.String:
		cost += uint64(len(t)) / 10
	case types.Bytes:
		cost += uint64(len(t)) / 10
	case traits.Lister:
		if m.lists {
			if n, ok := t.Size().(types.Int); ok && n > 0 {
				cost += uint64(n)
			}
		}
	}
	act.spent += cost
	if act.spent > CostLimit {
		// cel-go's evaluation recovers this and returns it as the error.
		panic(interpreter.EvalCancelledError{Cause: interpreter.CostLimitExceeded, Message: "operation cancelled: actual cost limit exceeded"})
	}
	return v
}

// Eval implements interpreter.Interpretable.
func (m *meteredCall) Eval(a interpreter.Activation) ref.Val {
	return m.Exec(interpreter.AsFrame(a))
}

// activationOf finds the activation an evaluation was started with,
// through the scopes comprehensions add.
func activationOf(a interpreter.Activation) *activation {
	for a != nil {
		switch t := a.(type) {
		case *activation:
			return t
		case *interpreter.ExecutionFrame:
			a = t.Unwrap()
		default:
			a = a.Parent()
		}
	}
	return nil
}
