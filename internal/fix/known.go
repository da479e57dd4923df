package fix

import (
	"fmt"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/internal/report"
)

// RuleRequestAboveLimit is the default catalog's check that a container's
// request is not above its limit.
const RuleRequestAboveLimit = "check/A10004"

// Known gives the open findings whose correction follows from the object
// itself a fix, where the rule cannot declare it (its value is the
// object's own): a request above its limit is lowered to the limit, as
// the limit is written ("1", 512Mi). Findings that have a fix keep it.
// Resolve then turns it into edits like any other.
func Known(fs []finding.Finding, targets []*render.Target) {
	var objects objectIndex
	for i := range fs {
		f := &fs[i]
		if f.Fix != nil || f.RuleID != RuleRequestAboveLimit || !report.IsOpen(f) || len(f.Path) < 3 {
			continue
		}
		if objects == nil {
			objects = newObjectIndex(targets)
		}
		obj := objects.find(f)
		if obj == nil {
			continue
		}
		if fx := requestToLimit(obj, f.Path); fx != nil {
			f.Fix = fx
		}
	}
}

// requestToLimit is the fix of a request (…resources.requests.<name>)
// above the limit beside it: the request set to the limit.
func requestToLimit(obj *manifest.Object, p manifest.Path) *finding.Fix {
	n := len(p)
	name, requests := p[n-1], p[n-2]
	if name.IsIndex || requests.IsIndex || requests.Key != "requests" || p[n-3].Key != "resources" {
		return nil
	}
	limitPath := p[:n-2:n-2].Child(manifest.Key("limits"), name)
	limit, ok := obj.Get(limitPath)
	if !ok {
		return nil
	}
	switch limit.(type) {
	case string, int64, float64:
	default:
		return nil
	}
	return &finding.Fix{
		Description: fmt.Sprintf("lower requests.%s to the limit, %v", name.Key, limit),
		Changes:     []finding.Change{{Op: finding.ChangeSet, Path: p, Value: limit}},
		ObjectValue: true,
	}
}
