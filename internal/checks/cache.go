package checks

import (
	"slices"
	"sync"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/finding"
)

// The checks of one render target — every object check on its objects and
// every group check on the target itself — depend on the target's objects,
// its environment and the catalog alone, so their outcome is kept in the
// run's target cache: for each of the target's execution targets, the
// result of each check (the AgentResult, facts included, as the execution
// made it), the findings, and where each expect_same value came from.
// What compares targets with each other — every check's aggregated result,
// and the expect_same verdicts across render targets — is recomputed from
// those on every run, as for the targets evaluated afresh (and as plumb
// merge recomputes it from shards).

// cachedTarget is one execution target's outcome read from the cache.
type cachedTarget struct {
	id       string
	pairs    []cachedPair
	findings []finding.Finding
	sames    []cachedSame
}

type cachedPair struct {
	checkID  string
	excluded bool
	agent    packedAgent
}

// cachedSame is where an expect_same value of a check came from.
type cachedSame struct {
	checkID, expectation string
	place                place
}

// targetCacher collects, while the execution runs, the encoded outcome of
// every execution target of the render targets that were not found in the
// cache, and stores each render target's as soon as all of its are in (so
// that the encoded parts do not pile up until the execution ends).
type targetCacher struct {
	c     analyzer.TargetCache
	fb    *findingBuilder
	mu    sync.Mutex
	parts map[*Target][]byte
	// owner is the render target of each execution target to store.
	owner map[*Target]*ownedTargets
}

// attach gives the execution targets of a render target their cached
// outcome when the cache has one for each of them, in order (and for no
// other), or marks them to be stored.
func (tc *targetCacher) attach(name string, targets []*Target) {
	if len(targets) == 0 {
		return
	}
	if cached, ok := loadTarget(tc.c, name); ok && len(cached) == len(targets) {
		all := true
		for i, t := range targets {
			all = all && cached[i].id == t.ID
		}
		if all {
			for i, t := range targets {
				t.cached = cached[i]
			}
			return
		}
	}
	o := &ownedTargets{name: name, targets: slices.Clone(targets), left: len(targets)}
	for _, t := range targets {
		tc.owner[t] = o
	}
}

// ownedTargets are a render target's execution targets, in the order the
// analyzer made them, and how many are not recorded yet.
type ownedTargets struct {
	name    string
	targets []*Target
	left    int
}

// loadTarget reads a render target's outcome: its execution targets'
// outcomes in order. false when it is not cached or does not decode.
func loadTarget(c analyzer.TargetCache, name string) ([]*cachedTarget, bool) {
	if c == nil {
		return nil, false
	}
	payload, ok := c.Load((*Analyzer)(nil).Name(), name)
	if !ok {
		return nil, false
	}
	d := cache.NewDecoder(payload)
	n := d.Len(4)
	out := make([]*cachedTarget, n)
	for i := range out {
		id := d.String()
		out[i] = decodeCachedTarget(d, id)
		out[i].id = id
	}
	if d.Done() != nil {
		return nil, false
	}
	return out, true
}

// record encodes an execution target's outcome (called by the execution,
// concurrently, once the target is evaluated), and stores its render
// target's once it is the last of them.
func (tc *targetCacher) record(t *Target, pairs []pairResult, findings []finding.Finding) {
	o, ok := tc.owner[t]
	if !ok {
		return
	}
	e := &cache.Encoder{}
	e.String(t.ID)
	if !encodeCachedTarget(e, t, pairs, findings, tc.fb.samesOf(t)) {
		e = nil
	}
	tc.mu.Lock()
	if e == nil {
		tc.parts[t] = nil
	} else {
		tc.parts[t] = e.Bytes()
	}
	o.left--
	var payload []byte
	if o.left == 0 {
		payload = tc.assemble(o)
	}
	tc.mu.Unlock()
	if payload != nil {
		tc.c.Store((*Analyzer)(nil).Name(), o.name, payload)
	}
}

// assemble joins a render target's parts, in order, and lets them go; nil
// when one did not encode. Called with tc.mu held.
func (tc *targetCacher) assemble(o *ownedTargets) []byte {
	e := &cache.Encoder{}
	e.Uint(uint64(len(o.targets)))
	buf := e.Bytes()
	complete := true
	for _, t := range o.targets {
		part := tc.parts[t]
		complete = complete && part != nil
		if complete {
			buf = append(buf, part...)
		}
		delete(tc.parts, t)
	}
	if !complete {
		return nil
	}
	return buf
}

// samesOf returns where the target's expect_same values came from.
func (fb *findingBuilder) samesOf(t *Target) []cachedSame {
	fb.mu.Lock()
	defer fb.mu.Unlock()
	var out []cachedSame
	for _, c := range t.Checks {
		st := fb.same[c][t.ID]
		if st == nil {
			continue
		}
		for _, e := range c.Expectations {
			if p, ok := st.places[e.Name]; ok {
				out = append(out, cachedSame{c.ID, e.Name, p})
			}
		}
	}
	return out
}

// restoreSames gives the finding builder the expect_same origins of a
// target taken from the cache.
func (fb *findingBuilder) restoreSames(t *Target, sames []cachedSame) {
	for _, s := range sames {
		i := slices.IndexFunc(t.Checks, func(c *Check) bool { return c.ID == s.checkID })
		if i < 0 {
			continue
		}
		c := t.Checks[i]
		fb.mu.Lock()
		byTarget := fb.same[c]
		if byTarget == nil {
			byTarget = map[string]*sameTarget{}
			fb.same[c] = byTarget
		}
		st := byTarget[t.ID]
		if st == nil {
			st = &sameTarget{rec: &Record{Check: c, Target: t}, places: map[string]place{}}
			byTarget[t.ID] = st
		}
		st.places[s.expectation] = s.place
		fb.mu.Unlock()
	}
}

// replay is the outcome of a target taken from the cache, as runTarget
// would have made it; false when a check it names is not the target's.
func (t *Target) replay() (targetResult, bool) {
	out := targetResult{findings: t.cached.findings}
	for _, p := range t.cached.pairs {
		i := slices.IndexFunc(t.Checks, func(c *Check) bool { return c.ID == p.checkID })
		if i < 0 {
			return targetResult{}, false
		}
		out.pairs = append(out.pairs, pairResult{check: t.Checks[i], agent: p.agent, excluded: p.excluded})
	}
	return out, true
}

func encodeCachedTarget(e *cache.Encoder, t *Target, pairs []pairResult, findings []finding.Finding, sames []cachedSame) bool {
	e.Uint(uint64(len(pairs)))
	for _, p := range pairs {
		e.String(p.check.ID)
		e.Bool(p.excluded)
		if p.agent.live != nil {
			return false // a value the codec cannot write
		}
		e.Raw(p.agent.data)
	}
	if finding.EncodeFindings(e, findings) != nil {
		return false
	}
	e.Uint(uint64(len(sames)))
	for _, s := range sames {
		e.String(s.checkID)
		e.String(s.expectation)
		finding.EncodeLocation(e, s.place.loc)
		finding.EncodePath(e, s.place.path)
		e.Bool(s.place.related != nil)
		e.Uint(uint64(len(s.place.related)))
		for _, r := range s.place.related {
			finding.EncodeLocation(e, r.Location)
			e.String(r.Message)
		}
	}
	return true
}

// decodeCachedTarget reads the outcome of the target id. Its results stay
// packed, in one buffer of their own (the payload they are read from is
// let go); each is decoded once here to check it.
func decodeCachedTarget(d *cache.Decoder, id string) *cachedTarget {
	ct := &cachedTarget{}
	n := d.Len(3)
	views := make([][]byte, 0, n)
	check := cache.NewDecoder(nil)
	for range n {
		p := cachedPair{checkID: d.String(), excluded: d.Bool()}
		view := d.RawView()
		check.Reset(view)
		skipAgent(check) // that it decodes; it is kept encoded
		if err := check.Done(); err != nil {
			d.Fail("a target result that does not decode")
		}
		views = append(views, view)
		ct.pairs = append(ct.pairs, p)
	}
	buf := make([]byte, 0, sumLen(views))
	for i, v := range views {
		start := len(buf)
		buf = append(buf, v...)
		ct.pairs[i].agent = packedAgent{id: id, data: buf[start:len(buf):len(buf)]}
	}
	ct.findings = finding.DecodeFindings(d)
	n = d.Len(4)
	for range n {
		s := cachedSame{checkID: d.String(), expectation: d.String()}
		s.place.loc = finding.DecodeLocation(d)
		s.place.path = finding.DecodePath(d)
		hasRelated := d.Bool()
		if m := d.Len(2); m > 0 || hasRelated {
			s.place.related = make([]finding.Related, m)
			for i := range s.place.related {
				s.place.related[i] = finding.Related{Location: finding.DecodeLocation(d), Message: d.String()}
			}
		}
		ct.sames = append(ct.sames, s)
	}
	return ct
}

// sumLen is the total length of byte slices.
func sumLen(bs [][]byte) int {
	n := 0
	for _, b := range bs {
		n += len(b)
	}
	return n
}
