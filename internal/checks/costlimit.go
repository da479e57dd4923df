package checks

import (
	"fmt"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// RuleCostLimit is an expression of a check that stopped at CostLimit.
const RuleCostLimit = "checks/cost-limit"

const costLimitHelp = "Every evaluation of a check's CEL expression is bounded by a cost limit " +
	"(5,000,000 units: roughly one per operation and per list element a comprehension visits), " +
	"so that a catalog from a pull request cannot stall the run. An expression that reaches it is " +
	"stopped; its result on that target means nothing, and the catalog must change. Nested " +
	"comprehensions multiply: `a.all(x, b.exists(y, ...))` costs size(a) × size(b). Bound them " +
	"(filter first, compare sizes, use `in` on a map), or split the expectation."

// eachExpr calls f for every expression of the check with its path in the
// check file, in the order lint reports them.
func (c *Check) eachExpr(f func(e *Expr, at string)) {
	if c.When != nil {
		f(c.When, "when")
	}
	if c.Exclude != nil {
		f(c.Exclude, "exclude")
	}
	for i, v := range c.Values {
		for j, cond := range v.Conditions {
			if cond.When != nil {
				f(cond.When, fmt.Sprintf("values[%d].conditions[%d].when", i, j))
			}
		}
	}
	for i, e := range c.Expectations {
		at := fmt.Sprintf("expectations[%d]", i)
		if e.Expr != nil {
			f(e.Expr, at+"."+string(e.Type))
		}
		for _, m := range []struct {
			msg  *Message
			name string
		}{{e.FailureMessage, "failure_message"}, {e.WarningMessage, "warning_message"}} {
			if m.msg == nil {
				continue
			}
			for _, p := range m.msg.parts {
				if p.expr != nil {
					f(p.expr, at+"."+m.name)
				}
			}
		}
	}
}

// costLimitFindings reports, once each and at its line in the catalog,
// every expression that stopped at CostLimit during a run. They are input
// errors (exit 2): the catalog must change. The targets it stopped on keep
// their own findings (the expectation could not be evaluated), and the
// checks section records too_many_operations for each.
func costLimitFindings(checks []*Check, plan *costPlan) []finding.Finding {
	if plan == nil {
		return nil
	}
	var out []finding.Finding
	for _, c := range checks {
		c.eachExpr(func(e *Expr, at string) {
			if !plan.wasStopped(e) {
				return
			}
			pos := e.text.at(e.Source, 0)
			f := finding.Finding{
				Source: finding.SourceCheck,
				RuleID: RuleCostLimit,
				Level:  finding.Error,
				Title:  "Check expression over its cost limit",
				Message: fmt.Sprintf("check %s: %s: the expression was stopped at the CEL cost limit of %d units per evaluation: "+
					"bound its comprehensions (each nested all/exists/map/filter over a list multiplies the cost) or split it",
					c.ID, at, CostLimit),
				Help:        costLimitHelp,
				Location:    manifest.Location{File: c.File, Line: pos.Line, Column: pos.Column},
				InputError:  true,
				ConfigError: true,
				Key:         c.ID + "|" + at,
			}
			f.SetFingerprint()
			out = append(out, f)
		})
	}
	return out
}
