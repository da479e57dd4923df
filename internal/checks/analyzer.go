package checks

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/common/types/ref"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/parallel"
)

// Analyzer runs a catalog's checks over the rendered objects.
type Analyzer struct {
	checks []*Check
	custom Customizations
	// detail is the JSON report's detail of the section (detail.go).
	detail string
}

// NewAnalyzer runs the given checks (usable ones, already selected) with
// validated customizations; its section lists every target (WithDetail).
func NewAnalyzer(checks []*Check, custom Customizations) *Analyzer {
	return &Analyzer{checks: checks, custom: custom}
}

// WithDetail sets the JSON report's detail of the section:
// config.DetailSummary, or config.DetailFull for every target.
func (a *Analyzer) WithDetail(detail string) *Analyzer {
	a.detail = detail
	return a
}

// Name implements analyzer.Analyzer; it is also the JSON report section.
func (a *Analyzer) Name() string { return "checks" }

// Rules describes every check that runs.
func (a *Analyzer) Rules() []finding.Rule {
	out := EngineRules()
	for _, c := range a.checks {
		out = append(out, finding.Rule{
			ID: c.RuleID(), Name: c.Name, Short: c.Name, Full: c.Description, Help: c.Remediation,
			Level: c.Severity.Level(), Tags: []string{"checks", c.Group}, Precision: "high",
		})
	}
	return out
}

// envKey identifies one environment: a render target, and the kind for
// object checks.
type envKey struct {
	target string
	kind   string
	group  bool
}

// envInfo is one environment with the checks that apply in it.
type envInfo struct {
	key int
	env map[string]any
	// val is env as CEL sees it, shared by the targets of the environment.
	val    ref.Val
	checks []*Check
}

// Analyze implements analyzer.Analyzer: one execution whose targets are the
// objects (object checks) and the render targets (group checks).
func (a *Analyzer) Analyze(ctx context.Context, in *analyzer.Input) (*analyzer.Output, error) {
	out := &analyzer.Output{Rules: a.Rules()}
	var objectChecks, groupChecks []*Check
	for _, c := range a.checks {
		if c.TargetType == TargetGroup {
			groupChecks = append(groupChecks, c)
		} else {
			objectChecks = append(objectChecks, c)
		}
	}

	envInfos := map[envKey]*envInfo{}
	envFor := func(k envKey, base map[string]any, checks []*Check) *envInfo {
		if e, ok := envInfos[k]; ok {
			return e
		}
		env := NormalizeEnv(base)
		if env == nil {
			env = map[string]any{}
		}
		if k.group {
			env["target_type"] = string(TargetGroup)
		} else {
			env["target_type"] = string(TargetObject)
			env["kind"] = k.kind
		}
		e := &envInfo{key: len(envInfos), env: env, val: celMap(env)}
		for _, c := range checks {
			if c.Applicable(env, e.val) {
				e.checks = append(e.checks, c)
			}
		}
		envInfos[k] = e
		return e
	}

	x := &Execution{Custom: a.custom}
	fb := &findingBuilder{same: map[*Check]map[string]*sameTarget{}, sharded: in.Sharded}
	var tc *targetCacher
	if in.Cache != nil {
		tc = &targetCacher{c: in.Cache, fb: fb, parts: map[*Target][]byte{}, owner: map[*Target]*ownedTargets{}}
		x.onTarget = tc.record
	}
	var names []string
	// The render targets' indexes (masked views of their objects) are
	// built on every core: the analyzers run one after another, so what
	// runs on one core here would leave the other idle.
	indexes := make([]*targetIndex, len(in.Targets))
	parallel.ForEach(0, len(in.Targets), func(i int) { indexes[i] = newTargetIndex(in.Targets[i]) })
	envs := []map[string]any{in.Env}
	for i, rt := range in.Targets {
		names = append(names, rt.Name)
		idx := indexes[i]
		envs = append(envs, in.TargetEnv[rt.Name])
		base := in.EnvFor(rt.Name)
		first := len(x.Targets)
		if len(objectChecks) > 0 {
			for _, o := range rt.Objects {
				e := envFor(envKey{target: rt.Name, kind: o.ID.Kind}, base, objectChecks)
				if len(e.checks) == 0 {
					continue
				}
				// Host is filled in below, on every core.
				x.Targets = append(x.Targets, &Target{
					ID: ObjectTargetID(o.ID), Env: e.env, EnvKey: e.key,
					Checks: e.checks, subject: &subject{obj: o, target: idx}, object: o.ID, envVal: e.val,
				})
			}
		}
		if len(groupChecks) > 0 {
			e := envFor(envKey{target: rt.Name, group: true}, base, groupChecks)
			if len(e.checks) > 0 {
				x.Targets = append(x.Targets, &Target{
					ID: rt.Name, Env: e.env, EnvKey: e.key, Host: groupAttributes(idx),
					Checks: e.checks, subject: &subject{target: idx}, object: manifest.ObjectID{Target: rt.Name}, envVal: e.val,
				})
			}
		}
		if tc != nil {
			tc.attach(rt.Name, x.Targets[first:])
		}
	}
	// An object target's attributes are made here to bound their sizes
	// and again when the target is evaluated (runTarget): holding ten
	// thousand of them in between cost 8 MB at the analyzers' peak.
	hosts := make([]sizeBound, len(x.Targets))
	parallel.ForEach(0, len(x.Targets), func(i int) {
		t := x.Targets[i]
		h := t.Host
		if h == nil {
			h = objectAttributes(t.subject.obj, t.subject.target)
		}
		hosts[i].observe(h)
	})
	bounds := boundsOfTargets(indexes, hosts, envs).finish(a.checks, a.custom)
	x.Bound, x.ObjectBound = &bounds.target, &bounds.object
	ids := make([]string, 0, len(a.checks))
	for _, c := range a.checks {
		ids = append(ids, c.ID)
	}
	x.GroupID = uuid5("plumb-checks-group:" + strings.Join(names, "\n"))
	x.ID = uuid5("plumb-checks-execution:" + strings.Join(names, "\n") + "\x00" + strings.Join(ids, "\n"))
	x.Gather = func(t *Target, c *Check) ([]GatheredFact, bool) {
		facts := make([]GatheredFact, len(c.Facts))
		for i, f := range c.Facts {
			facts[i] = GatheredFact{Name: f.Name, g: t.subject.gather(f)}
		}
		return facts, true
	}
	x.DropPassingFacts = true
	x.OnRecord = fb.record
	res, err := x.Run(ctx)
	if err != nil {
		return nil, err
	}
	if tc != nil {
		for _, t := range x.Targets {
			if t.cached != nil {
				fb.restoreSames(t, t.cached.sames)
			}
		}
	}
	// Findings come in target order (then check order for expect_same), so
	// they are deterministic; the report sorts them by location.
	same, pending := fb.expectSame(res)
	n := len(same)
	for _, fs := range x.FindingsByTarget {
		n += len(fs)
	}
	out.Findings = make([]finding.Finding, 0, n)
	for _, fs := range x.FindingsByTarget {
		out.Findings = append(out.Findings, fs...)
	}
	out.Findings = append(out.Findings, same...)
	out.Findings = append(out.Findings, costLimitFindings(a.checks, x.plan)...)
	res.shard = &shardContext{targets: names, checks: a.checks}
	res.shard.setPending(pending)
	res.detail = a.detail
	dropPassingFacts(res, in.Sharded)
	out.Section = res
	return out, nil
}

// dropPassingFacts empties the facts of every target that passed its
// check (the execution already dropped those of targets without
// expect_same, which pass or fail on their own). Wanda's Result lists every fact of every target so that its UI
// can show them; in a report over thousands of objects those copies of
// the objects' own fields are three quarters of the JSON report (78 of 105
// MB on the 10,000-object benchmark corpus) and say nothing the objects do
// not. Facts stay where they explain something: targets that failed,
// warned or erred. `plumb checks eval` keeps them all.
//
// Whether an expect_same value passed depends on the check's result over
// every target, which a shard does not know: a sharded run keeps the facts
// of checks with expect_same, and plumb merge drops them once it knows.
//
// The execution drops the facts of a target as soon as it passed; only
// expect_same values wait for the check's result, so only the checks with
// expect_same are gone through again here.
func dropPassingFacts(res *Result, sharded bool) {
	if sharded {
		return
	}
	for i := range res.CheckResults {
		cr := &res.CheckResults[i]
		if !hasSame(cr.ExpectationResults) {
			continue
		}
		i := 0
		for a := range cr.AgentsCheckResults.Verdicts() {
			if agentPassed(a, cr) {
				cr.AgentsCheckResults.dropFacts(i)
			}
			i++
		}
	}
}

// hasSame reports whether a check compared values with expect_same.
func hasSame(results []ExpectationResult) bool {
	for _, er := range results {
		if er.Type == ExpectSame {
			return true
		}
	}
	return false
}

// agentPassed reports whether every expectation passed on the target;
// an expect_same value passes when the check's result (nil: not known
// yet) says the target's application agreed (CheckResult.samePassed).
func agentPassed(a *AgentResult, cr *CheckResult) bool {
	if a.IsError() || a.Status != StatusExecuted {
		return false
	}
	for _, e := range a.Evaluations {
		if e.Error != nil {
			return false
		}
		switch e.Type {
		case Expect:
			if e.ReturnValue != true {
				return false
			}
		case ExpectEnum:
			if e.ReturnValue != Passing {
				return false
			}
		default:
			if !cr.samePassed(a, e.Name) {
				return false
			}
		}
	}
	return true
}

// ObjectTargetID is the target id of an object:
// <render target>:<apiVersion>/<Kind>/<namespace>/<name>.
func ObjectTargetID(id manifest.ObjectID) string {
	return id.Target + ":" + id.APIVersion + "/" + id.Kind + "/" + id.Namespace + "/" + id.Name
}

// objectAttributes is what exclude sees of an object (research §7.1).
func objectAttributes(o *manifest.Object, idx *targetIndex) map[string]any {
	loc, _ := o.Locate(nil)
	return map[string]any{
		"kind":          o.ID.Kind,
		"apiVersion":    o.ID.APIVersion,
		"namespace":     idx.namespaceOf(o),
		"name":          o.ID.Name,
		"labels":        stringsToAny(o.Labels()),
		"annotations":   stringsToAny(o.Annotations()),
		"source_file":   loc.File,
		"render_target": idx.name,
	}
}

// groupAttributes is what exclude sees of a render target.
func groupAttributes(idx *targetIndex) map[string]any {
	kinds := make([]string, 0, len(idx.byKind))
	for k := range idx.byKind {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	ks := make([]any, len(kinds))
	for i, k := range kinds {
		ks[i] = k
	}
	return map[string]any{"name": idx.name, "kind": idx.kind, "objects": int64(len(idx.objects)), "kinds": ks}
}

func stringsToAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// findingBuilder turns evaluated records into findings as they come.
type findingBuilder struct {
	// mu guards same, which workers fill concurrently.
	mu sync.Mutex
	// same keeps, per check with expect_same, where each target's value
	// came from.
	same map[*Check]map[string]*sameTarget
	// sharded leaves the expect_same findings of checks over render
	// targets to plumb merge (pending instead of findings).
	sharded bool
}
