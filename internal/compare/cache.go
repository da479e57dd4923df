package compare

import (
	"encoding/json"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/finding"
)

// A render target's comparison depends on its objects and the reference
// alone (each target is compared on its own), so its findings and its
// report are kept in the run's target cache and taken from it when the
// target and the reference are unchanged. A comparison in which a template
// failed is not kept: a template stopped by its time limit may not fail
// next time.

// loadCached returns a target's comparison from the cache.
func (a *Analyzer) loadCached(c analyzer.TargetCache, target string) (findings []finding.Finding, report *Output, ok bool) {
	if c == nil {
		return nil, nil, false
	}
	payload, ok := c.Load(a.Name(), target)
	if !ok {
		return nil, nil, false
	}
	d := cache.NewDecoder(payload)
	findings = finding.DecodeFindings(d)
	raw := d.Raw()
	if d.Done() != nil {
		return nil, nil, false
	}
	report = &Output{}
	if err := json.Unmarshal(raw, report); err != nil {
		return nil, nil, false
	}
	return findings, report, true
}

// storeCached keeps a target's comparison.
func (a *Analyzer) storeCached(c analyzer.TargetCache, target string, res *Result, findings []finding.Finding, report *Output) {
	if c == nil || len(res.Errors) > 0 {
		return
	}
	raw, err := json.Marshal(report)
	if err != nil {
		return
	}
	e := &cache.Encoder{}
	if finding.EncodeFindings(e, findings) != nil {
		return
	}
	e.Raw(raw)
	c.Store(a.Name(), target, e.Bytes())
}
