package checks

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// In Wanda an execution covers one group (a cluster), and expect_same
// compares the targets of that execution: the nodes of one cluster. plumb
// runs one execution over a whole repository, whose render targets are the
// environments of possibly many applications (apps/web/overlays/{dev,prod}
// and apps/api/overlays/{dev,prod}). Comparing api's workloads with web's
// would flag every environment of a monorepo, so a check over render
// targets (target_type: group) compares its expect_same values within each
// application separately: the targets whose env.application is the same
// (set per render target by the built-in rule
// plumb-application-from-overlay, by a user's preprocess rule, or by
// --env / checks.env). Targets without an application form one
// application of their own, as every target did before applications
// existed. The execution, and so the Result, stays one: an expect_same
// expectation fails when the values differ within any application.

// applicationOf is a target's application: env.application, "" when it
// has none (or an empty one). A value that is not a string is compared as
// it prints.
func applicationOf(env map[string]any) string {
	switch v := env["application"].(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		return display(v)
	}
}

// comparedWithin reports whether a check compares its expect_same values
// within each application: checks over render targets do.
func (c *Check) comparedWithin() bool { return c.TargetType == TargetGroup }

// sameOutcome is how one expect_same expectation of a check came out,
// application by application.
type sameOutcome struct {
	// differing are the applications whose targets returned more than one
	// value.
	differing map[string]bool
	// partitioned is set when some target had an application.
	partitioned bool
}

// passed reports whether the expectation passed for the targets of an
// application. A nil outcome is an expectation that an error or a target
// without a value made false for every target (Wanda's rule).
func (o *sameOutcome) passed(application string) bool {
	return o != nil && !o.differing[application]
}

// compareSame decides an expect_same expectation over the evaluations of
// the targets that returned a value; apps[i] is the application of evs[i]
// ("" for every target of a check that does not compare within
// applications).
func compareSame(evs []*Evaluation, apps []string) *sameOutcome {
	out := &sameOutcome{}
	first := map[string]string{}
	for i, ev := range evs {
		k := ev.sameKey()
		out.partitioned = out.partitioned || apps[i] != ""
		if f, seen := first[apps[i]]; !seen {
			first[apps[i]] = k
		} else if f != k {
			if out.differing == nil {
				out.differing = map[string]bool{}
			}
			out.differing[apps[i]] = true
		}
	}
	return out
}

// samePassed reports whether a target's value of an expect_same
// expectation passed: nothing forced the expectation false and the
// target's application agreed. Unknown (false) before aggregation.
func (cr *CheckResult) samePassed(a *AgentResult, expectation string) bool {
	if cr == nil {
		return false
	}
	return cr.same[expectation].passed(a.application)
}

// sameVerdictsByApplication is sameVerdicts within each application, the
// applications in name order (values without one first).
func sameVerdictsByApplication(e *Expectation, values []sameValue) []sameVerdict {
	byApp := map[string][]sameValue{}
	for _, v := range values {
		byApp[v.application] = append(byApp[v.application], v)
	}
	apps := make([]string, 0, len(byApp))
	for a := range byApp {
		apps = append(apps, a)
	}
	slices.Sort(apps)
	var out []sameVerdict
	for _, a := range apps {
		out = append(out, sameVerdicts(e, byApp[a], a)...)
	}
	return out
}

// inApplication ends a message about the environments of an application;
// a repository whose overlays sit at its root (application ".") has only
// one, which needs no name.
func inApplication(application string) string {
	if application == "" || application == "." {
		return ""
	}
	return " in application " + strconv.Quote(application)
}

// writeDiffering names, under an expect_same expectation of `plumb checks
// eval --format text`, the applications whose targets differ, when the
// targets have applications at all.
func writeDiffering(b *strings.Builder, o *sameOutcome) {
	if o == nil || len(o.differing) == 0 || len(o.differing) == 1 && o.differing[""] && !o.partitioned {
		return
	}
	apps := make([]string, 0, len(o.differing))
	for a := range o.differing {
		apps = append(apps, a)
	}
	slices.Sort(apps)
	for _, a := range apps {
		if a == "" {
			b.WriteString("    differ among the targets without an application\n")
		} else {
			fmt.Fprintf(b, "    differ within application %s\n", strconv.Quote(a))
		}
	}
}
