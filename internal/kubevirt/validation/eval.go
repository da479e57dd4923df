package validation

import (
	"errors"
	"reflect"
	"strings"

	v1 "github.com/plumb-ci/plumb/internal/kubevirt/api/v1"
)

// The validator's rule errors.
var (
	ErrDuplicateName      = errors.New("duplicate Rule Name")
	ErrUnrecognizedRule   = errors.New("unrecognized Rule type")
	ErrMissingRequiredKey = errors.New("missing required key")
)

// Outcome is what happened to one rule.
type Outcome string

const (
	Satisfied   Outcome = "satisfied"
	Unsatisfied Outcome = "unsatisfied"
	Skipped     Outcome = "skipped"
	Failed      Outcome = "error"
)

// Stage says where in the pipeline a rule errored.
type Stage string

const (
	StageCheck      Stage = "check"      // name, type, message, path present
	StageSpecialize Stage = "specialize" // resolving arguments, compiling the regex
	StageApply      Stage = "apply"      // resolving the path, converting, checking
)

// RuleResult is the outcome of one rule on one VM.
type RuleResult struct {
	Rule    *Rule
	Outcome Outcome
	// Err is set for Failed, with the Stage it failed in.
	Err   error
	Stage Stage
	// Detail is the validator's text for Satisfied and Unsatisfied.
	Detail string
	// Values are what the rule's path resolved to, and Failing the
	// indexes of those that broke the rule.
	Values  Values
	Failing []int
}

// Cause is the validator's status cause message: "<message>: <detail>".
func (rr *RuleResult) Cause() string {
	detail := rr.Detail
	if rr.Err != nil {
		detail = rr.Err.Error()
	}
	return rr.Rule.Message + ": " + detail
}

// Rejects reports whether this rule makes the validator reject the VM: an
// error always does, even on a justWarning rule; an unsatisfied rule does
// unless it is justWarning.
func (rr *RuleResult) Rejects() bool {
	return rr.Outcome == Failed || (rr.Outcome == Unsatisfied && !rr.Rule.JustWarning)
}

// Result is the outcome of a rule set on one VM.
type Result struct {
	Rules   []RuleResult
	Allowed bool
}

// Message is the validator's denial message: the causes of every errored
// or unsatisfied rule (justWarning ones included), in annotation order,
// joined with ", "; empty when the VM is allowed.
func (r *Result) Message() string {
	if r.Allowed {
		return ""
	}
	var causes []string
	for i := range r.Rules {
		rr := &r.Rules[i]
		if rr.Outcome == Failed || rr.Outcome == Unsatisfied {
			causes = append(causes, rr.Cause())
		}
	}
	return strings.Join(causes, ", ")
}

// DefaultCPU applies the validator's CPU defaulting: when
// spec.template.spec.domain.cpu is present, sockets, cores and threads
// that are 0 (absent) become 1. Without cpu nothing is set, and the
// reference VM later supplies 0.
func DefaultCPU(vm *v1.VirtualMachine) {
	if vm.Spec.Template == nil {
		return
	}
	cpu := vm.Spec.Template.Spec.Domain.CPU
	if cpu == nil {
		return
	}
	if cpu.Sockets == 0 {
		cpu.Sockets = 1
	}
	if cpu.Cores == 0 {
		cpu.Cores = 1
	}
	if cpu.Threads == 0 {
		cpu.Threads = 1
	}
}

// Evaluate runs every rule on the VM in order, without short-circuit, as
// the validator's evaluator does: a repeated name, an unknown type or an
// empty message fail the rule; a `valid` path that errors or finds nothing
// on the VM skips it; then the arguments are resolved and the path checked.
// The VM must already have its CPU defaults (DefaultCPU).
func Evaluate(rules []*Rule, vm *v1.VirtualMachine) *Result {
	rs := newResolver(vm, Reference())
	res := &Result{Allowed: true, Rules: make([]RuleResult, 0, len(rules))}
	names := make(map[string]bool, len(rules))
	for _, r := range rules {
		rr := evaluateOne(r, rs, names)
		if rr.Rejects() {
			res.Allowed = false
		}
		res.Rules = append(res.Rules, rr)
	}
	return res
}

func evaluateOne(r *Rule, rs *resolver, names map[string]bool) RuleResult {
	rr := RuleResult{Rule: r}
	fail := func(stage Stage, err error) RuleResult {
		rr.Outcome, rr.Stage, rr.Err = Failed, stage, err
		return rr
	}
	if err := checkRule(r, names); err != nil {
		return fail(StageCheck, err)
	}
	if r.Valid.IsSet() {
		vals, err := rs.find(r.Valid, false)
		if err != nil || len(vals) == 0 {
			rr.Outcome = Skipped
			return rr
		}
	}
	c, err := specialize(r, rs)
	if err != nil {
		return fail(StageSpecialize, err)
	}
	vals, err := rs.resolve(r.Path)
	if err != nil {
		return fail(StageApply, err)
	}
	rr.Values = vals
	if len(vals.List) == 0 {
		return fail(StageApply, ErrNoValues)
	}
	ok, failing, err := c.check(vals.List)
	if err != nil {
		return fail(StageApply, err)
	}
	rr.Failing = failing
	rr.Detail = c.describe(ok)
	rr.Outcome = Unsatisfied
	if ok {
		rr.Outcome = Satisfied
	}
	return rr
}

// FailingValues returns the values that broke the rule.
func (rr *RuleResult) FailingValues() []reflect.Value {
	out := make([]reflect.Value, 0, len(rr.Failing))
	for _, i := range rr.Failing {
		out = append(out, rr.Values.List[i])
	}
	return out
}

// checkRule is the validator's first stage for one rule, in its order
// (ssp-operator internal/template-validator/validation/eval.go, Evaluate):
// a repeated name, then an unknown type, then an empty message. names
// records the names seen so far, invalid rules' included.
func checkRule(r *Rule, names map[string]bool) error {
	if names[r.Name] {
		return ErrDuplicateName
	}
	names[r.Name] = true
	if !KnownType(r.Rule) {
		return ErrUnrecognizedRule
	}
	if r.Message == "" {
		return ErrMissingRequiredKey
	}
	if !r.Path.IsSet() {
		// The validator dereferences the missing path and crashes; its
		// predecessor reported this as a missing key, and so does plumb.
		return ErrMissingRequiredKey
	}
	return nil
}

// StaticFailures are the rules that fail on every VM, whatever it holds,
// each with the validator's single cause: the check stage's (checkRule),
// else a regex RE2 rejects (unless a `valid` path may skip the rule). For
// rules that are linted but not evaluated (a Template whose parameters
// were not processed, one no VM refers to).
func StaticFailures(rules []*Rule) []RuleResult {
	var out []RuleResult
	names := make(map[string]bool, len(rules))
	for _, r := range rules {
		if err := checkRule(r, names); err != nil {
			out = append(out, RuleResult{Rule: r, Outcome: Failed, Stage: StageCheck, Err: err})
			continue
		}
		if r.Rule == TypeRegex && r.regexErr != nil && !r.Valid.IsSet() {
			out = append(out, RuleResult{Rule: r, Outcome: Failed, Stage: StageSpecialize, Err: r.regexErr})
		}
	}
	return out
}
