package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/parallel"
)

// maxRefine bounds how many elements of a list fact are re-evaluated one by
// one to find the ones that fail.
const maxRefine = 256

// maxRelated bounds the related locations of one finding.
const maxRelated = 20

// place is where a finding about one target goes.
type place struct {
	loc     manifest.Location
	path    manifest.Path
	related []finding.Related
}

// sameTarget remembers where a target's expect_same values came from.
type sameTarget struct {
	// rec names the check and the target; it holds no facts nor result
	// (they would stay alive to the end of the execution).
	rec    *Record
	places map[string]place
}

func (fb *findingBuilder) record(rec *Record, dst *[]finding.Finding) {
	c := rec.Check
	fs := *dst
	defer func() { *dst = fs }()
	if rec.Agent.IsError() {
		for _, f := range rec.Facts {
			if f.g.err != nil {
				if ff := factErrorFinding(rec, f); !reportedBefore(fs, &ff, f.g.err.Message) {
					fs = append(fs, ff)
				}
			}
		}
		return
	}
	for i, e := range c.Expectations {
		ev := rec.Agent.Evaluations[i]
		switch {
		case ev.Error != nil:
			p := placeFor(rec, e.factRefs)
			fs = append(fs, newFinding(rec, e, p, c.Severity.Level(), e.Name+"#error",
				fmt.Sprintf("%s: expectation %s could not be evaluated (%s): %s", c.Name, e.Name, ev.Error.Type, ev.Error.Message)))
		case e.Type == ExpectSame:
			fb.rememberSame(rec, e)
		case e.Type == Expect && ev.ReturnValue == true, e.Type == ExpectEnum && ev.ReturnValue == Passing:
		case e.Type == Expect && ev.ReturnValue != false:
			p := placeFor(rec, e.factRefs)
			fs = append(fs, newFinding(rec, e, p, c.Severity.Level(), e.Name+"#type",
				fmt.Sprintf("%s: expectation %s returned %s, not a boolean, so it is not met", c.Name, e.Name, short(ev.ReturnValue))))
		default:
			fs = failureFindings(fs, rec, e, ev)
		}
	}
}

// failureFindings reports a failing expect or a warning/critical
// expect_enum. When the fact the finding points at is a list (containers,
// images, references), each element is re-evaluated on its own, and every
// element that fails alone gets its own finding at its own line.
func failureFindings(dst []finding.Finding, rec *Record, e *Expectation, ev Evaluation) []finding.Finding {
	c := rec.Check
	level := c.Severity.Level()
	if e.Type == ExpectEnum {
		level = levelOf(ev.ReturnValue.(string))
	}
	p, k := placeIndex(rec, e.factRefs)
	if k >= 0 {
		switch items := rec.Facts[k].g.items; {
		case len(items) == 1 && aligned(rec, e, k):
			// One element, and every list it is read with has one too:
			// narrowing changes nothing, so the element is the culprit.
			q := placeOf(rec, items[0].at)
			q.related = p.related
			return append(dst, withFix(newFinding(rec, e, q, level, fmt.Sprintf("%s#%v", e.Name, items[0].key), failureText(rec, e, ev)), rec))
		case len(items) > 0 && len(items) <= maxRefine:
			n := len(dst)
			if dst = refine(dst, rec, e, k); len(dst) > n {
				return dst
			}
		}
	}
	return append(dst, withFix(newFinding(rec, e, p, level, e.Name, failureText(rec, e, ev)), rec))
}

// withFix gives a failure finding the check's declared fix, made
// absolute from the field the finding points at.
func withFix(f finding.Finding, rec *Record) finding.Finding {
	if obj := rec.Target.subject.obj; obj != nil {
		f.Fix = rec.Check.findingFix(obj, f.Path)
	}
	return f
}

// aligned reports whether every list fact the expectation reads (with
// per-element origins) has as many elements as fact k.
func aligned(rec *Record, e *Expectation, k int) bool {
	n := len(rec.Facts[k].g.items)
	for _, r := range e.factRefs {
		if items := rec.Facts[r].g.items; items != nil && len(items) != n {
			return false
		}
	}
	return true
}

// refine re-evaluates an expectation with the list fact k (and every other
// fact it reads that is a list of the same length, element by element)
// narrowed to one element.
func refine(out []finding.Finding, rec *Record, e *Expectation, k int) []finding.Finding {
	c := rec.Check
	items := rec.Facts[k].g.items
	aligned := []int{k}
	for _, r := range e.factRefs {
		if r != k && len(rec.Facts[r].g.items) == len(items) {
			aligned = append(aligned, r)
		}
	}
	// One facts map for every element: the aligned facts are set to the
	// element in turn, the others stay whole. (The CEL map reads m as it
	// is at each evaluation; its keys never change.)
	m := make(map[string]any, len(rec.Facts))
	for _, f := range rec.Facts {
		m[f.Name] = f.g.value
	}
	act := &activation{facts: celMap(m), values: rec.act.values, env: rec.act.env, plan: rec.act.plan}
	for i, it := range items {
		for _, a := range aligned {
			f := rec.Facts[a]
			m[f.Name] = element(f.g, i)
		}
		ev := evaluateExpectation(e, act)
		if ev.Error != nil {
			continue
		}
		level := c.Severity.Level()
		switch {
		case e.Type == Expect && ev.ReturnValue == false:
		case e.Type == ExpectEnum && ev.ReturnValue != Passing:
			level = levelOf(ev.ReturnValue.(string))
		default:
			continue
		}
		msg := failureText(rec, e, ev)
		p := culprit(placeOf(rec, it.at), it.at, e.chains[rec.Facts[k].Name], msg)
		out = append(out, withFix(newFinding(rec, e, p, level, fmt.Sprintf("%s#%v", e.Name, it.key), msg), rec))
	}
	return out
}

// element narrows a list or map fact to its i-th element.
func element(g gathered, i int) any {
	switch v := g.value.(type) {
	case []any:
		return []any{v[i]}
	case map[string]any:
		k, _ := g.items[i].key.(string)
		return map[string]any{k: v[k]}
	}
	return g.value
}

// failureText is the finding message: the check's own (interpolated)
// message, or a sentence naming the check and expectation when the check
// has none.
func failureText(rec *Record, e *Expectation, ev Evaluation) string {
	m := e.FailureMessage
	if e.Type == ExpectEnum && ev.ReturnValue == Warning {
		m = e.WarningMessage
	}
	if m == nil || ev.FailureMessage == nil {
		return fmt.Sprintf("%s: %s is not met", rec.Check.Name, e.Name)
	}
	return *ev.FailureMessage
}

// factErrorFinding reports a fact that could not be gathered, in the words
// of the problem it met (a file that does not parse, a ConfigMap that is
// not there); which gatherer read it is in the checks section of the JSON
// report.
func factErrorFinding(rec *Record, f GatheredFact) finding.Finding {
	c := rec.Check
	p := anchor(rec)
	if f.g.at != nil {
		p = placeOf(rec, *f.g.at)
	}
	return newFinding(rec, &Expectation{Name: "fact:" + f.Name}, p, c.Severity.Level(), "fact:"+f.Name,
		fmt.Sprintf("%s: %s", c.Name, f.g.err.Message))
}

// reportedBefore reports whether an earlier check already reported the
// same problem at the same place on this target (two checks that read a
// ConfigMap's files both meet the file that does not parse): one problem,
// one finding, from the check that comes first.
func reportedBefore(earlier []finding.Finding, f *finding.Finding, problem string) bool {
	for i := range earlier {
		e := &earlier[i]
		if strings.HasPrefix(e.Key, "fact:") && e.Location == f.Location && strings.HasSuffix(e.Message, ": "+problem) {
			return true
		}
	}
	return false
}

// placeFor picks where a finding about an expectation goes.
func placeFor(rec *Record, refs []int) place {
	p, _ := placeIndex(rec, refs)
	return p
}

// placeIndex returns the place of the first fact (in declaration order)
// that the expectation reads and that read a field, with its index; the
// target's anchor and -1 when there is none.
func placeIndex(rec *Record, refs []int) (place, int) {
	for _, r := range refs {
		if at := rec.Facts[r].g.at; at != nil && at.obj != nil {
			p := placeOf(rec, *at)
			p.related = append(p.related, relatedObjects(rec, refs, at.obj)...)
			return p, r
		}
	}
	// A group finding whose facts read no single field (objects@v1,
	// count@v1) points at the first object they involve, rather than at
	// whatever object comes first in the render target.
	related := relatedObjects(rec, refs, nil)
	if len(related) == 0 {
		p := anchor(rec)
		return p, -1
	}
	return place{loc: related[0].Location, related: related[1:]}, -1
}

// placeOf locates an origin; the path is kept only when it is a field of
// the target object itself.
func placeOf(rec *Record, at origin) place {
	loc, _ := at.obj.Locate(at.path)
	p := place{loc: loc}
	if at.obj == rec.Target.subject.obj {
		p.path = at.path
	}
	return p
}

// anchor is where a finding about a whole target goes: the object's
// document, or for a render target its first object.
func anchor(rec *Record) place {
	s := rec.Target.subject
	if s.obj != nil {
		loc, _ := s.obj.Locate(nil)
		return place{loc: loc}
	}
	for _, o := range s.target.objects {
		if loc, _ := o.Locate(nil); !loc.IsZero() {
			return place{loc: loc}
		}
	}
	return place{loc: manifest.Location{File: s.target.name}}
}

// relatedObjects lists the other objects a group finding involves.
func relatedObjects(rec *Record, refs []int, primary *manifest.Object) []finding.Related {
	if rec.Target.subject.obj != nil {
		return nil
	}
	seen := map[*manifest.Object]bool{primary: true}
	var out []finding.Related
	for _, r := range refs {
		g := rec.Facts[r].g
		objs := append([]*manifest.Object(nil), g.objects...)
		for _, it := range g.items {
			objs = append(objs, it.at.obj)
		}
		for _, o := range objs {
			if o == nil || seen[o] || len(out) >= maxRelated {
				continue
			}
			seen[o] = true
			loc, _ := o.Locate(nil)
			out = append(out, finding.Related{Location: loc, Message: fmt.Sprintf("%s %s", o.ID.Kind, describeObject(o))})
		}
	}
	return out
}

// newFinding assembles a finding about one target.
func newFinding(rec *Record, e *Expectation, p place, level finding.Level, key, msg string) finding.Finding {
	c := rec.Check
	obj := rec.Target.object
	f := finding.Finding{
		Source:   finding.SourceCheck,
		RuleID:   c.RuleID(),
		Level:    level,
		Title:    c.Name,
		Message:  msg,
		Help:     c.Remediation,
		Object:   obj,
		Path:     p.path,
		Location: p.loc,
		Related:  p.related,
		Key:      key,
		Tags:     []string{c.Group},
	}
	f.SetFingerprint()
	return f
}

// rememberSame keeps where a target's expect_same value came from.
func (fb *findingBuilder) rememberSame(rec *Record, e *Expectation) {
	p := placeFor(rec, e.factRefs)
	fb.mu.Lock()
	defer fb.mu.Unlock()
	byTarget := fb.same[rec.Check]
	if byTarget == nil {
		byTarget = map[string]*sameTarget{}
		fb.same[rec.Check] = byTarget
	}
	st := byTarget[rec.Target.ID]
	if st == nil {
		st = &sameTarget{rec: &Record{Check: rec.Check, Target: rec.Target}, places: map[string]place{}}
		byTarget[rec.Target.ID] = st
	}
	st.places[e.Name] = p
}

// expectSame reports the targets whose expect_same value differs from the
// others: those outside the strict majority, or every target when no value
// has one. In a sharded run, the checks over render targets compare values
// of every shard: their findings are returned pending instead, one per
// target, for plumb merge to decide.
func (fb *findingBuilder) expectSame(res *Result) ([]finding.Finding, []pendingSame) {
	type job struct {
		check *Check
		cr    *CheckResult
	}
	var jobs []job
	for i := range res.CheckResults {
		cr := &res.CheckResults[i]
		for check := range fb.same {
			if check.ID == cr.CheckID {
				jobs = append(jobs, job{check, cr})
			}
		}
	}
	out := make([][]finding.Finding, len(jobs))
	pend := make([][]pendingSame, len(jobs))
	parallel.ForEach(0, len(jobs), func(i int) {
		j := jobs[i]
		for _, e := range j.check.Expectations {
			switch {
			case e.Type != ExpectSame:
			case fb.sharded && j.check.TargetType == TargetGroup:
				pend[i] = append(pend[i], samePending(j.check, e, j.cr, fb.same[j.check])...)
			default:
				out[i] = append(out[i], sameFindings(j.check, e, j.cr, fb.same[j.check])...)
			}
		}
	})
	var found []finding.Finding
	for _, fs := range out {
		found = append(found, fs...)
	}
	var pending []pendingSame
	for _, p := range pend {
		pending = append(pending, p...)
	}
	return found, pending
}

func sameFindings(c *Check, e *Expectation, cr *CheckResult, byTarget map[string]*sameTarget) []finding.Finding {
	var values []sameValue
	for a := range cr.AgentsCheckResults.Verdicts() {
		if a.IsError() || a.Status != StatusExecuted {
			continue
		}
		for _, ev := range a.Evaluations {
			if ev.Name != e.Name || ev.Error != nil {
				continue
			}
			v := ev.ReturnValue
			values = append(values, sameValue{target: a.AgentID, application: a.application, key: canonical(v), show: func() string { return short(v) }})
		}
	}
	var out []finding.Finding
	for _, v := range sameVerdictsByApplication(e, values) {
		if st := byTarget[v.target]; st != nil {
			out = append(out, newFinding(st.rec, e, st.places[e.Name], c.Severity.Level(), e.Name, v.message))
		}
	}
	return out
}

// sameValue is one target's value of an expect_same expectation.
type sameValue struct {
	target string
	// application is the target's application when the check compares
	// within applications ("" otherwise, or when it has none).
	application string
	// key is the canonical encoding: targets with equal keys returned the
	// same value.
	key string
	// show prints the value for a message (short).
	show func() string
}

// sameVerdict is a target whose expect_same value differs from the others,
// with the message of its finding.
type sameVerdict struct {
	target, message string
}

// sameVerdicts picks the targets of one application an expect_same
// expectation reports — those outside the strict majority, or every target
// when no value has one — and words their messages, which name the
// application (when there is one) and count its targets only. values are in
// target order, which decides the order of values with equal counts. An
// unsharded run and plumb merge both decide here, so their findings agree.
func sameVerdicts(e *Expectation, values []sameValue, application string) []sameVerdict {
	groups := map[string][]sameValue{}
	var order []string
	for _, v := range values {
		if _, ok := groups[v.key]; !ok {
			order = append(order, v.key)
		}
		groups[v.key] = append(groups[v.key], v)
	}
	if len(groups) < 2 {
		return nil
	}
	sort.SliceStable(order, func(i, j int) bool { return len(groups[order[i]]) > len(groups[order[j]]) })
	majority := ""
	if len(groups[order[0]]) > len(groups[order[1]]) {
		majority = order[0]
	}
	text := DefaultFailureMessage
	if e.FailureMessage != nil {
		text = e.FailureMessage.Raw
	}
	total := len(values)
	var out []sameVerdict
	for _, k := range order {
		if k == majority {
			continue
		}
		var others []string
		for _, ok := range order {
			if ok != k {
				others = append(others, fmt.Sprintf("%s (%d of %d)", groups[ok][0].show(), len(groups[ok]), total))
			}
		}
		elsewhere := strings.Join(others, ", ")
		for _, v := range groups[k] {
			msg := fmt.Sprintf("%s: %s here, but %s elsewhere%s", text, v.show(), elsewhere, inApplication(application))
			out = append(out, sameVerdict{v.target, msg})
		}
	}
	return out
}

// short prints a value for a message, cut to a readable length.
func short(v any) string {
	s := display(v)
	if _, isString := v.(string); isString {
		s = fmt.Sprintf("%q", s)
	}
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
