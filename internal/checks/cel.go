package checks

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/env"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
)

// CostLimit bounds the work of one evaluation of one expression, in CEL
// cost units (roughly one per operation and per element a comprehension
// visits). A runaway expression stops with a too_many_operations error
// instead of stalling the run.
const CostLimit = 5_000_000

// scope says which variables an expression sees (research §2.1).
type scope int

const (
	// scopeEnv: check-level when and value conditions see env only.
	scopeEnv scope = iota
	// scopeHost: exclude sees the target's attributes as host (Wanda's
	// name) and target (an alias).
	scopeHost
	// scopeExpect: expectations and message interpolations see facts and
	// values, and env as a documented extension.
	scopeExpect
)

func (s scope) String() string {
	switch s {
	case scopeEnv:
		return "env"
	case scopeHost:
		return "host, target"
	}
	return "facts, values, env"
}

var (
	envsOnce sync.Once
	envs     [3]*cel.Env
	// envGuards are the size guards of the scopes' programs (celguard.go).
	envGuards [3]cel.ProgramOption
	envsErr   error
)

// EvalTimeLimit bounds one evaluation of an expression that is not proven
// cheap (costPlan): its comprehensions check the deadline every
// interruptEvery iterations. cel-go's cost tracking grows slower as a
// nested comprehension runs (a nested map over split() of 100,000
// characters took 29 s to reach the cost limit); the deadline stops such
// an evaluation at a known time. A stop at the deadline is reported as a
// stop at the cost limit, in the same words: which of the two comes first
// depends on the machine's load, and reports must not.
const EvalTimeLimit = 10 * time.Second

// evalTimeLimit is EvalTimeLimit (a test shortens it).
var evalTimeLimit = EvalTimeLimit

const interruptEvery = 64

// compiles counts expression compilations, so a test can prove that each
// expression is compiled once per run.
var compiles atomic.Int64

// celEnv returns the CEL environment of a scope, built once per process.
func celEnv(s scope) (*cel.Env, error) {
	envsOnce.Do(func() {
		dyn := cel.MapType(cel.StringType, cel.DynType)
		base := []cel.EnvOption{
			// The standard library, with matches() replaced below: with a
			// pattern that is not a literal (a customizable value) the
			// standard one compiles the pattern on every call.
			cel.StdLib(cel.StdLibSubset(env.NewLibrarySubset().AddExcludedFunctions(env.NewFunction("matches")))),
			cel.EagerlyValidateDeclarations(false),
			// Optional types before the regex library, which builds on them.
			cel.OptionalTypes(), cel.CrossTypeNumericComparisons(true),
			cel.Function("matches",
				cel.Overload("matches", []*cel.Type{cel.StringType, cel.StringType}, cel.BoolType),
				cel.MemberOverload("matches_string", []*cel.Type{cel.StringType, cel.StringType}, cel.BoolType),
				cel.SingletonBinaryBinding(cachedMatches)),
			ext.Strings(), ext.Lists(), ext.Sets(), ext.Math(), ext.Encoders(),
			ext.Bindings(), ext.TwoVarComprehensions(), ext.Regex(),
		}
		vars := [3][]cel.EnvOption{
			scopeEnv:    {cel.Variable("env", dyn)},
			scopeHost:   {cel.Variable("host", dyn), cel.Variable("target", dyn)},
			scopeExpect: {cel.Variable("facts", dyn), cel.Variable("values", dyn), cel.Variable("env", dyn)},
		}
		for i := range envs {
			envs[i], envsErr = cel.NewCustomEnv(append(append([]cel.EnvOption{}, base...), vars[i]...)...)
			if envsErr != nil {
				return
			}
			if envGuards[i], envsErr = sizeGuard(envs[i]); envsErr != nil {
				return
			}
		}
	})
	return envs[s], envsErr
}

// regexCache holds compiled patterns of matches(); patterns come from
// check definitions and values, so there are few. It stops growing at
// maxCachedRegexes (patterns built from facts would be unbounded).
var (
	regexCache      sync.Map // pattern → *regexp.Regexp
	regexCacheCount atomic.Int64
)

const maxCachedRegexes = 4096

// cachedMatches is the standard matches() with compiled patterns cached.
func cachedMatches(s, pattern ref.Val) ref.Val {
	str, ok := s.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(s)
	}
	pat, ok := pattern.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(pattern)
	}
	if re, ok := regexCache.Load(string(pat)); ok {
		return types.Bool(re.(*regexp.Regexp).MatchString(string(str)))
	}
	re, err := regexp.Compile(string(pat))
	if err != nil {
		return types.WrapErr(err)
	}
	if regexCacheCount.Add(1) <= maxCachedRegexes {
		regexCache.Store(string(pat), re)
	}
	return types.Bool(re.MatchString(string(str)))
}

// compileError is a CEL compile error with its position inside the
// expression (1-based line, 1-based column).
type compileError struct {
	Line, Column int
	Message      string
}

// compiled is the outcome of compiling one expression.
type compiled struct {
	ast   *cel.Ast
	prog  cel.Program
	fast  cel.Program
	scope scope
	errs  []compileError
}

// compile parses, type-checks and plans one expression in a scope.
func compile(s scope, src string) compiled {
	compiles.Add(1)
	env, err := celEnv(s)
	if err != nil {
		return compiled{errs: []compileError{{Message: err.Error()}}}
	}
	ast, iss := env.Compile(src)
	if iss != nil && iss.Err() != nil {
		var errs []compileError
		for _, e := range iss.Errors() {
			errs = append(errs, compileError{Line: e.Location.Line(), Column: e.Location.Column() + 1, Message: e.Message})
		}
		if len(errs) == 0 {
			errs = []compileError{{Message: iss.Err().Error()}}
		}
		return compiled{errs: errs}
	}
	guard := envGuards[s]
	prog, err := env.Program(ast, guard, costMeter(), cel.EvalOptions(cel.OptOptimize), cel.InterruptCheckFrequency(interruptEvery))
	if err != nil {
		return compiled{ast: ast, errs: []compileError{{Message: err.Error()}}}
	}
	// The same plan without cost tracking, for runs whose inputs are small
	// enough that the expression provably stays under the limit (see
	// costPlan): tracking costs about a third of the evaluation time.
	fast, err := env.Program(ast, guard, cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		return compiled{ast: ast, errs: []compileError{{Message: err.Error()}}}
	}
	return compiled{ast: ast, prog: prog, fast: fast, scope: s}
}

// errString joins compile errors into one message.
func (c compiled) errString() string {
	var parts []string
	for _, e := range c.errs {
		parts = append(parts, e.Message)
	}
	return strings.Join(parts, "; ")
}

// activation resolves the scope variables of one evaluation without
// building a map per call.
type activation struct {
	facts, values, env, host ref.Val
	// plan says which expressions may run without cost tracking.
	plan *costPlan
	// spent is the cost metered so far in the current evaluation
	// (celmeter.go).
	spent uint64
}

func (a *activation) ResolveName(name string) (any, bool) {
	var v ref.Val
	switch name {
	case "facts":
		v = a.facts
	case "values":
		v = a.values
	case "env":
		v = a.env
	case "host", "target":
		v = a.host
	}
	return v, v != nil
}

func (a *activation) Parent() interpreter.Activation { return nil }

// celMap wraps a native map for an activation (an empty map for nil).
func celMap(m map[string]any) ref.Val {
	if m == nil {
		m = map[string]any{}
	}
	return types.NewStringInterfaceMap(types.DefaultTypeAdapter, m)
}

// EvalError is a runtime error of an expression, with a Wanda-style type.
type EvalError struct {
	// Type follows Wanda's (Rhai's) error vocabulary: parsing,
	// property_not_found, variable_not_found, function_not_found,
	// mismatch_data_type, array_bounds, arithmetic, too_many_operations,
	// runtime.
	Type    string
	Message string
}

func (e *EvalError) Error() string { return e.Message }

// eval evaluates a compiled expression; errors come back as *EvalError.
func (e *Expr) eval(act *activation) (ref.Val, *EvalError) {
	var v ref.Val
	var err *EvalError
	if act.plan.isFast(e) {
		v, err = run(e.fast, act, false)
	} else {
		v, err = run(e.prog, act, true)
	}
	if err != nil && err.Type == "too_many_operations" {
		act.plan.stop(e, err.Message)
	}
	return v, err
}

// run evaluates a program; errors come back as *EvalError. A program that
// is not proven cheap runs under EvalTimeLimit.
func run(prog cel.Program, act *activation, deadline bool) (ref.Val, *EvalError) {
	var out ref.Val
	var err error
	act.spent = 0
	if deadline {
		ctx, cancel := context.WithTimeout(context.Background(), evalTimeLimit)
		out, _, err = prog.ContextEval(ctx, act)
		cancel()
		if err != nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, costStop()
		}
	} else {
		out, _, err = prog.Eval(act)
	}
	if err != nil {
		return nil, classify(err)
	}
	if types.IsError(out) {
		return nil, classify(out.(*types.Err))
	}
	if types.IsUnknown(out) {
		return nil, &EvalError{Type: "variable_not_found", Message: "the expression depends on an unknown value"}
	}
	if err := resultTooLarge(out); err != nil {
		return nil, err
	}
	return out, nil
}

// classify maps a CEL runtime error to Wanda's error types
// (research §4.2 item 7).
func classify(err error) *EvalError {
	msg := err.Error()
	low := strings.ToLower(msg)
	t := "runtime"
	switch {
	case strings.Contains(low, "cost limit exceeded"), strings.Contains(low, "value limit exceeded"),
		strings.Contains(low, "operation cancelled"), strings.Contains(low, "operation interrupted"):
		t = "too_many_operations"
	case strings.Contains(low, "no such key"):
		t = "property_not_found"
	case strings.Contains(low, "no such attribute"), strings.Contains(low, "undeclared reference"):
		t = "variable_not_found"
	case strings.Contains(low, "no such overload"), strings.Contains(low, "no matching overload"):
		t = "function_not_found"
	case strings.Contains(low, "index out of range"), strings.Contains(low, "out of bounds"), strings.Contains(low, "invalid index"):
		t = "array_bounds"
	case strings.Contains(low, "division by zero"), strings.Contains(low, "modulus by zero"), strings.Contains(low, "overflow"):
		t = "arithmetic"
	case strings.Contains(low, "type conversion error"), strings.Contains(low, "unsupported"):
		t = "mismatch_data_type"
	}
	var ee *EvalError
	if errors.As(err, &ee) {
		return ee
	}
	if t == "too_many_operations" && !strings.Contains(low, "value limit exceeded") {
		return costStop()
	}
	return &EvalError{Type: t, Message: msg}
}

// toNative converts a CEL value into a JSON-compatible Go value (maps,
// lists, strings, int64, uint64, float64, bool, nil).
func toNative(v ref.Val) (any, error) {
	switch t := v.(type) {
	case types.Bool:
		return bool(t), nil
	case types.Int:
		return int64(t), nil
	case types.Uint:
		return uint64(t), nil
	case types.Double:
		if f := float64(t); math.IsNaN(f) || math.IsInf(f, 0) {
			// JSON cannot hold it: the report carries CEL's name of it.
			return t.ConvertToType(types.StringType).Value(), nil
		}
		return float64(t), nil
	case types.String:
		return string(t), nil
	case types.Bytes:
		return []byte(t), nil
	case types.Null:
		return nil, nil
	case types.Duration:
		return t.Duration.String(), nil
	case types.Timestamp:
		return t.Time.UTC().Format(time.RFC3339Nano), nil
	case *types.Optional:
		if !t.HasValue() {
			return nil, nil
		}
		return toNative(t.GetValue())
	case ref.Type:
		return t.TypeName(), nil
	}
	if types.IsError(v) {
		return nil, v.(*types.Err)
	}
	// Values that wrap our own inputs are already native.
	switch n := v.Value().(type) {
	case map[string]any, []any:
		return n, nil
	}
	switch t := v.(type) {
	case traits.Mapper:
		out := map[string]any{}
		it := t.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			kn, err := toNative(k)
			if err != nil {
				return nil, err
			}
			vn, err := toNative(t.Get(k))
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(kn)] = vn
		}
		return out, nil
	case traits.Lister:
		n := int(t.Size().(types.Int))
		out := make([]any, 0, n)
		for i := 0; i < n; i++ {
			e, err := toNative(t.Get(types.Int(i)))
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	}
	return v.Value(), nil
}

// costStop is the error of an evaluation stopped at the cost limit or the
// deadline: one text for both (see EvalTimeLimit).
func costStop() *EvalError {
	return &EvalError{Type: "too_many_operations",
		Message: fmt.Sprintf("operation cancelled: cost limit exceeded (%d units or %v per evaluation)", CostLimit, EvalTimeLimit)}
}
