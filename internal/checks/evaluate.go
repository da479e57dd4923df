package checks

import (
	"context"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/google/cel-go/common/types/ref"

	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/parallel"
)

// Target is one target of an execution: an object, a render target, or a
// host of a fake-facts file.
type Target struct {
	ID string
	// Env is the environment of this target (metadata matching, when,
	// value conditions, and expectations as an extension).
	Env map[string]any
	// EnvKey identifies Env among the execution's targets: targets with the
	// same key share one value resolution per check.
	EnvKey int
	// Host is the attribute map exclude sees as host (and target).
	Host map[string]any
	// Checks are the checks this target runs, after env filtering and
	// selection.
	Checks []*Check
	// Timeout marks a target that did not answer in time.
	Timeout bool

	envVal, hostVal ref.Val
	subject         *subject
	// object is what the target's findings are about: its object, or
	// for a render target an id with only the target set.
	object manifest.ObjectID
	// cached, when set, is the target's outcome taken from the cache
	// (cache.go): runTarget replays it instead of evaluating.
	cached *cachedTarget
}

// GatheredFact is one fact of one target.
type GatheredFact struct {
	Name string
	g    gathered
}

// NewFact is a gathered value (fake facts).
func NewFact(name string, value any) GatheredFact {
	return GatheredFact{Name: name, g: gathered{value: value}}
}

// NewFactError is a fact the target could not gather (fake facts).
func NewFactError(name, typ, message string) GatheredFact {
	return GatheredFact{Name: name, g: gathered{err: &FactError{Type: typ, Message: message}}}
}

// Record is one evaluated (check, target) pair, handed to
// Execution.OnRecord while the execution runs.
type Record struct {
	Check  *Check
	Target *Target
	Facts  []GatheredFact
	Agent  *AgentResult
	// act is the evaluation's scope; it is valid only during OnRecord
	// (its facts map is reused for the next pair).
	act *activation
}

// Execution evaluates checks over targets with Wanda's semantics (research
// §2.3–§2.8).
type Execution struct {
	ID, GroupID string
	Targets     []*Target
	Custom      Customizations
	// Gather returns the facts of a check on a target; present is false
	// when the target sent no facts for the check (it is then not part of
	// the check's result).
	Gather func(t *Target, c *Check) (facts []GatheredFact, present bool)
	// OnRecord, when set, sees every evaluated pair (concurrently) and
	// appends the findings about it to dst; Run collects them by target.
	OnRecord func(rec *Record, dst *[]finding.Finding)
	// FindingsByTarget are what OnRecord returned, in target order, after
	// Run (the caller puts them together once, with its own).
	FindingsByTarget [][]finding.Finding
	// onTarget, when set, sees every target evaluated afresh (not
	// replayed from the cache), concurrently, with its outcome.
	onTarget func(t *Target, pairs []pairResult, findings []finding.Finding)
	// DropPassingFacts leaves the facts out of the result of every target
	// that passed its check (dropPassingFacts), as soon as that is known.
	DropPassingFacts bool
	// Bound, when set, bounds the sizes of everything the expressions can
	// read in this execution; expressions that provably stay under the
	// cost limit then run without cost tracking.
	Bound *sizeBound
	// ObjectBound, when set, bounds what the expressions of object checks
	// that read only facts of one object can see (runBounds).
	ObjectBound *sizeBound

	plan *costPlan

	values sync.Map // valuesKey → *resolved
}

type valuesKey struct {
	check  *Check
	envKey int
}

type resolved struct {
	list []ResolvedValue
	val  ref.Val
}

// pairResult is one (check, target) outcome before aggregation.
type pairResult struct {
	check    *Check
	agent    packedAgent
	excluded bool
}

// targetResult is everything one target produced.
type targetResult struct {
	pairs    []pairResult
	findings []finding.Finding
}

// Run evaluates every target and aggregates the Result.
func (x *Execution) Run(ctx context.Context) (*Result, error) {
	slices.SortStableFunc(x.Targets, func(a, b *Target) int { return strings.Compare(a.ID, b.ID) })
	if x.Bound != nil {
		var checks []*Check
		seen := map[*Check]bool{}
		for _, t := range x.Targets {
			for _, c := range t.Checks {
				if !seen[c] {
					seen[c] = true
					checks = append(checks, c)
				}
			}
		}
		x.plan = newCostPlan(checks, *x.Bound, x.ObjectBound)
	}
	perTarget := make([]targetResult, len(x.Targets))
	parallel.ForEach(0, len(x.Targets), func(i int) {
		if ctx.Err() != nil {
			return
		}
		t := x.Targets[i]
		if t.cached != nil {
			if r, ok := t.replay(); ok {
				perTarget[i] = r
				t.release()
				return
			}
			t.cached = nil
		}
		perTarget[i] = x.runTarget(t)
		if x.onTarget != nil {
			x.onTarget(t, perTarget[i].pairs, perTarget[i].findings)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// Bucket by check; targets are in id order, so each bucket is too.
	type bucket struct {
		agents, excluded []packedAgent
	}
	buckets := map[*Check]*bucket{}
	var order []*Check
	counts := map[*Check]int{}
	for _, tr := range perTarget {
		for _, pr := range tr.pairs {
			counts[pr.check]++
		}
	}
	x.FindingsByTarget = make([][]finding.Finding, 0, len(perTarget))
	for _, tr := range perTarget {
		if len(tr.findings) > 0 {
			x.FindingsByTarget = append(x.FindingsByTarget, tr.findings)
		}
		for _, pr := range tr.pairs {
			b := buckets[pr.check]
			if b == nil {
				b = &bucket{agents: make([]packedAgent, 0, counts[pr.check])}
				buckets[pr.check] = b
				order = append(order, pr.check)
			}
			if pr.excluded {
				b.excluded = append(b.excluded, pr.agent)
			} else {
				b.agents = append(b.agents, pr.agent)
			}
		}
	}
	slices.SortFunc(order, func(a, b *Check) int { return strings.Compare(a.ID, b.ID) })

	res := &Result{ExecutionID: x.ID, GroupID: x.GroupID, Result: Passing, CheckResults: []CheckResult{}, Timeout: []string{}}
	// Aggregation is independent per check: spread it over the cores.
	crs := make([]CheckResult, len(order))
	parallel.ForEach(0, len(order), func(i int) {
		c := order[i]
		b := buckets[c]
		if len(b.agents) == 0 {
			crs[i] = CheckResult{CheckID: c.ID, Result: Passing, ExpectationResults: []ExpectationResult{}}
		} else {
			crs[i] = aggregate(c, unpackForAggregate(b.agents))
		}
		crs[i].AgentsCheckResults = AgentList{agents: append(b.agents, b.excluded...)}
		crs[i].Customized = len(x.Custom[c.ID]) > 0
	})
	var fullyExcluded []CheckResult
	for i, c := range order {
		if len(buckets[c].agents) == 0 {
			fullyExcluded = append(fullyExcluded, crs[i])
			continue
		}
		res.CheckResults = append(res.CheckResults, crs[i])
		res.Result = worst(res.Result, crs[i].Result)
	}
	res.CheckResults = append(res.CheckResults, fullyExcluded...)
	for _, t := range x.Targets {
		if t.Timeout {
			res.Timeout = append(res.Timeout, t.ID)
		}
	}
	return res, nil
}

// runTarget applies exclude, gathers and evaluates every check of a target.
func (x *Execution) runTarget(t *Target) targetResult {
	if t.envVal == nil {
		t.envVal = celMap(t.Env)
	}
	if t.hostVal == nil {
		if t.Host == nil && t.subject != nil && t.subject.obj != nil {
			t.Host = objectAttributes(t.subject.obj, t.subject.target)
		}
		t.hostVal = celMap(t.Host)
	}
	var out targetResult
	out.pairs = make([]pairResult, 0, len(t.Checks))
	// The results are packed together once the target is done (packAgents).
	agents := make([]*AgentResult, 0, len(t.Checks))
	app := applicationOf(t.Env)
	// scratch holds the facts of one evaluation: the map is used only
	// while the pair is evaluated and its findings built.
	scratch := make(map[string]any, 8)
	// The target's findings grow in a buffer kept from target to target
	// and are copied out once, at their size: a workload that fails half
	// the checks has a few dozen findings, each one a large struct.
	buf := findingBuffers.Get().(*[]finding.Finding)
	found := (*buf)[:0]
	for _, c := range t.Checks {
		if c.excludes(t, x.plan) {
			src := c.Exclude.Source
			out.pairs = append(out.pairs, pairResult{check: c, excluded: true})
			agents = append(agents, &AgentResult{AgentID: t.ID, Status: StatusExcluded, ExcludeExpression: &src})
			continue
		}
		if t.Timeout {
			out.pairs = append(out.pairs, pairResult{check: c})
			agents = append(agents, &AgentResult{AgentID: t.ID, ErrorType: ErrTimeout, Message: msgTimeout})
			continue
		}
		facts, present := x.Gather(t, c)
		if !present {
			continue
		}
		rec := x.evaluate(c, t, facts, scratch)
		if c.comparedWithin() {
			rec.Agent.application = app
		}
		out.pairs = append(out.pairs, pairResult{check: c})
		agents = append(agents, rec.Agent)
		if x.OnRecord != nil {
			x.OnRecord(rec, &found)
		}
		if x.DropPassingFacts && agentPassed(rec.Agent, nil) {
			rec.Agent.Facts = nil // see dropPassingFacts; freed as early as possible
		}
	}
	for i, p := range packAgents(agents) {
		out.pairs[i].agent = p
	}
	if len(found) > 0 {
		out.findings = slices.Clone(found)
	}
	clear(found) // the pool must not keep the messages alive
	*buf = found[:0]
	findingBuffers.Put(buf)
	t.release()
	return out
}

// release lets go of what only the target's own evaluation needed: the
// facts gathered from it (those a result keeps are in the result), the
// attributes exclude read and their CEL views, and its subject, through
// which the render target's index (masked views of its objects, the
// selections group facts made) stays reachable. On 10,000 objects they are
// about 100 MB, as much as everything else the analyzers hold, and they
// would otherwise live until every target is evaluated.
func (t *Target) release() {
	t.Host, t.hostVal = nil, nil
	if t.subject != nil {
		t.subject.facts = nil
		t.subject = nil
	}
}

// findingBuffers are the buffers runTarget collects findings in.
var findingBuffers = sync.Pool{New: func() any {
	b := make([]finding.Finding, 0, 32)
	return &b
}}

// excludes evaluates exclude: only a literal true excludes the target; a
// false, a non-boolean or an error keeps it (Wanda logs a warning).
func (c *Check) excludes(t *Target, plan *costPlan) bool {
	if c.Exclude == nil || !c.Exclude.Compiled() {
		return false
	}
	v, err := c.Exclude.eval(&activation{host: t.hostVal, plan: plan})
	return err == nil && v.Value() == true
}

// valuesFor resolves a check's values once per distinct env.
func (x *Execution) valuesFor(c *Check, t *Target) *resolved {
	key := valuesKey{c, t.EnvKey}
	if r, ok := x.values.Load(key); ok {
		return r.(*resolved)
	}
	list := c.resolveValues(t.envVal, x.Custom[c.ID])
	m := make(map[string]any, len(list))
	for _, v := range list {
		m[v.Name] = v.Value
	}
	r, _ := x.values.LoadOrStore(key, &resolved{list: list, val: celMap(m)})
	return r.(*resolved)
}

// evaluate is Wanda's add_agent_check_result_or_error for one target.
func (x *Execution) evaluate(c *Check, t *Target, facts []GatheredFact, scratch map[string]any) *Record {
	agent := &AgentResult{AgentID: t.ID}
	rec := &Record{Check: c, Target: t, Facts: facts, Agent: agent}
	agent.Facts = make([]FactResult, len(facts))
	failed := false
	for i, f := range facts {
		agent.Facts[i] = FactResult{CheckID: c.ID, Name: f.Name, Value: f.g.value, Error: f.g.err}
		if f.g.err != nil {
			failed = true
		}
	}
	if failed {
		agent.ErrorType, agent.Message = ErrFactGathering, msgFactGatheringError
		return rec
	}
	vals := x.valuesFor(c, t)
	clear(scratch)
	for _, f := range facts {
		scratch[f.Name] = f.g.value
	}
	rec.act = &activation{facts: celMap(scratch), values: vals.val, env: t.envVal, plan: x.plan}
	agent.Status = StatusExecuted
	agent.Values = vals.list
	agent.Evaluations = make([]Evaluation, len(c.Expectations))
	for i, e := range c.Expectations {
		agent.Evaluations[i] = evaluateExpectation(e, rec.act)
	}
	return rec
}

// evaluateExpectation evaluates one expectation for one target.
func evaluateExpectation(e *Expectation, act *activation) Evaluation {
	ev := Evaluation{Name: e.Name, Type: e.Type}
	if e.Expr == nil || !e.Expr.Compiled() {
		msg := "the expression does not compile"
		if e.Expr != nil && len(e.Expr.errs) > 0 {
			msg = compiled{errs: e.Expr.errs}.errString()
		}
		ev.Error = &EvalError{Type: "parsing", Message: msg}
		return ev
	}
	v, err := e.Expr.eval(act)
	if err != nil {
		ev.Error = err
		return ev
	}
	n, cerr := toNative(v)
	if cerr != nil {
		ev.Error = classify(cerr)
		return ev
	}
	switch e.Type {
	case Expect:
		ev.ReturnValue = n
		if n == false {
			msg := messageFor(e.FailureMessage, act)
			ev.FailureMessage = &msg
		}
	case ExpectSame:
		ev.ReturnValue = n
	case ExpectEnum:
		outcome := enumOutcome(n)
		ev.ReturnValue = outcome
		switch outcome {
		case Critical:
			msg := messageFor(e.FailureMessage, act)
			ev.FailureMessage = &msg
		case Warning:
			msg := messageFor(e.WarningMessage, act)
			ev.FailureMessage = &msg
		}
	}
	return ev
}

// enumOutcome normalises an expect_enum return value: "passing" and
// "warning" are themselves, anything else (other strings, null, numbers) is
// critical.
func enumOutcome(v any) string {
	switch v {
	case Passing:
		return Passing
	case Warning:
		return Warning
	}
	return Critical
}

// messageFor interpolates a message, falling back to DefaultFailureMessage
// when it is absent or any part fails.
func messageFor(m *Message, act *activation) string {
	if m == nil {
		return DefaultFailureMessage
	}
	if s, ok := m.render(act); ok {
		return s
	}
	return DefaultFailureMessage
}

// unpackForAggregate decodes packed results for aggregate, which reads
// their evaluations, errors and applications only: the facts and values
// (subtrees of the checked objects, 13 MB at once for a check over 10,000
// objects) are read past, not built.
func unpackForAggregate(packed []packedAgent) []*AgentResult {
	out := make([]*AgentResult, len(packed))
	d := cache.NewDecoder(nil)
	for i, p := range packed {
		out[i] = p.unpackVerdict(d)
	}
	return out
}

// aggregate is Wanda's add_expectation_results and aggregate_check_result
// for one check over its (non-excluded) targets; the caller sets the
// result's AgentsCheckResults.
func aggregate(c *Check, agents []*AgentResult) CheckResult {
	byName := make(map[string][]*Evaluation, len(c.Expectations))
	for _, e := range c.Expectations {
		if byName[e.Name] == nil {
			byName[e.Name] = make([]*Evaluation, 0, len(agents))
		}
	}
	// appsOf holds, for each expect_same expectation, the application of
	// each evaluation in byName (application.go).
	appsOf := map[string][]string{}
	anyError, anyTimeout := false, false
	for _, a := range agents {
		if a.IsError() {
			anyError = true
			anyTimeout = anyTimeout || a.ErrorType == ErrTimeout
			continue
		}
		for i := range a.Evaluations {
			ev := &a.Evaluations[i]
			byName[ev.Name] = append(byName[ev.Name], ev)
			if ev.Type == ExpectSame {
				app := ""
				if c.comparedWithin() {
					app = a.application
				}
				appsOf[ev.Name] = append(appsOf[ev.Name], app)
			}
		}
	}
	for n, evs := range byName {
		if len(evs) == 0 {
			delete(byName, n)
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	cr := CheckResult{CheckID: c.ID, ExpectationResults: []ExpectationResult{}}
	for _, name := range names {
		evs := byName[name]
		exp := c.expectation(name)
		er := ExpectationResult{Name: name, Type: exp.Type}
		forced := len(evs) != len(agents)
		for _, ev := range evs {
			if ev.Error != nil {
				forced = true
			}
		}
		switch {
		case forced:
			er.Result = false
		case exp.Type == Expect:
			ok := true
			for _, ev := range evs {
				ok = ok && ev.ReturnValue == true
			}
			er.Result = ok
		case exp.Type == ExpectSame:
			// One distinct value, within each application for the
			// checks that compare within applications.
			o := compareSame(evs, appsOf[name])
			if cr.same == nil {
				cr.same = map[string]*sameOutcome{}
			}
			cr.same[name] = o
			er.Result = len(o.differing) == 0
		case exp.Type == ExpectEnum:
			out := Passing
			for _, ev := range evs {
				out = worst(out, ev.ReturnValue.(string))
			}
			er.Result = out
		}
		if exp.Type == ExpectSame && er.Result == false {
			msg := DefaultFailureMessage
			if exp.FailureMessage != nil {
				msg = exp.FailureMessage.Raw
			}
			er.FailureMessage = &msg
		}
		cr.ExpectationResults = append(cr.ExpectationResults, er)
	}
	switch {
	case anyTimeout:
		cr.Result = Critical
	case anyError:
		cr.Result = string(c.Severity)
	default:
		cr.Result = Passing
		for _, er := range cr.ExpectationResults {
			switch r := er.Result.(type) {
			case bool:
				if !r {
					cr.Result = worst(cr.Result, string(c.Severity))
				}
			case string:
				cr.Result = worst(cr.Result, r)
			}
		}
	}
	return cr
}

// expectation returns the first expectation with a name.
func (c *Check) expectation(name string) *Expectation {
	for _, e := range c.Expectations {
		if e.Name == name {
			return e
		}
	}
	return &Expectation{Name: name}
}

// canonical encodes a value for expect_same: equal encodings mean equal
// values, and the type is part of it, so 1 and 1.0 differ (as in Wanda).
func canonical(v any) string {
	var b strings.Builder
	writeCanonical(&b, v)
	return b.String()
}

func writeCanonical(b *strings.Builder, v any) {
	switch t := v.(type) {
	case nil:
		b.WriteString("n")
	case bool:
		b.WriteString("b" + strconv.FormatBool(t))
	case int64:
		b.WriteString("i" + strconv.FormatInt(t, 10))
	case uint64:
		b.WriteString("u" + strconv.FormatUint(t, 10))
	case float64:
		b.WriteString("d" + strconv.FormatFloat(t, 'g', -1, 64))
	case string:
		b.WriteString("s" + strconv.Quote(t))
	case []byte:
		b.WriteString("y" + strconv.Quote(string(t)))
	case []any:
		b.WriteString("[")
		for _, e := range t {
			writeCanonical(b, e)
			b.WriteString(",")
		}
		b.WriteString("]")
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("{")
		for _, k := range keys {
			b.WriteString(strconv.Quote(k) + ":")
			writeCanonical(b, t[k])
			b.WriteString(",")
		}
		b.WriteString("}")
	default:
		b.WriteString("?" + strconv.Quote(display(t)))
	}
}
