// Package policy evaluates the cluster's own admission policies on the
// rendered objects, as the API server would on create (and, in
// pull-request mode, on update): ValidatingAdmissionPolicy objects with
// their bindings and params, found among the rendered objects or given
// with --policies, compiled and evaluated with k8s.io/apiserver's
// admission policy library and CEL environment. What the library reads
// from a live cluster (namespaces, params) is built in the process from
// the render (cluster.go).
package policy

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/parallel"
	"github.com/plumb-ci/plumb/internal/render"
)

// Analyzer is the admission policy engine.
type Analyzer struct {
	// WorkflowPolicies are the policies and bindings the workflow gives
	// (--policies, policies: of a configuration file outside the
	// repository): for one name they win over the repository's.
	WorkflowPolicies []*manifest.Object
	// Policies are those the repository's configuration names
	// (.plumb.yaml policies:), used after the rendered ones.
	Policies []*manifest.Object
	// Workers bounds parallel evaluation (default GOMAXPROCS).
	Workers int
}

// Name implements analyzer.Analyzer.
func (*Analyzer) Name() string { return "policy" }

// item is one rendered object to evaluate.
type item struct {
	target int
	obj    *manifest.Object
}

// Analyze implements analyzer.Analyzer.
func (a *Analyzer) Analyze(ctx context.Context, in *analyzer.Input) (*analyzer.Output, error) {
	set := collectPolicies(in.Targets, a.WorkflowPolicies, a.Policies)
	out := &analyzer.Output{Findings: set.findings, Rules: set.rules}
	if len(set.policies) == 0 {
		return out, nil
	}
	w := newWorld(in.Targets, set)
	var items []item
	for ti, t := range in.Targets {
		for _, o := range t.Objects {
			if !excludedGroup(o.ID.Group()) {
				items = append(items, item{target: ti, obj: o})
			}
		}
	}
	old := baseObjects(in.Base)
	results := make([][]finding.Finding, len(items))
	parallel.ForEach(a.Workers, len(items), func(i int) {
		if ctx.Err() != nil {
			return
		}
		it := items[i]
		req := w.newRequest(it.target, it.obj, old[revisionKey(in.Targets[it.target].Name, it.obj)])
		for _, d := range w.evaluate(ctx, set, req) {
			results[i] = append(results[i], decisionFindings(req, d)...)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, fs := range results {
		out.Findings = append(out.Findings, fs...)
	}
	w.notes.Range(func(_, v any) bool {
		out.Findings = append(out.Findings, v.(finding.Finding))
		return true
	})
	finding.Sort(out.Findings)
	return out, nil
}

// objectKey pairs an object of the head with the base's: the render
// target, group, kind, namespace and name (the API version may change
// between revisions: the API server reads the stored object in the
// version of the request).
type objectKey struct {
	target, group, kind, namespace, name string
}

func revisionKey(target string, o *manifest.Object) objectKey {
	return objectKey{target, o.ID.Group(), o.ID.Kind, o.ID.Namespace, o.ID.Name}
}

// baseObjects indexes the base revision's objects (pull-request mode):
// an object the base has is evaluated as an update, with the base's as
// oldObject; the first of duplicates wins.
func baseObjects(targets []*render.Target) map[objectKey]*manifest.Object {
	out := map[objectKey]*manifest.Object{}
	for _, t := range targets {
		for _, o := range t.Objects {
			if k := revisionKey(t.Name, o); out[k] == nil {
				out[k] = o
			}
		}
	}
	return out
}

// decisionFindings turns a denying decision into findings on the object:
// one at each field the failing validation is about (field.go), else one
// at the object.
func decisionFindings(req *request, d decision) []finding.Finding {
	var paths []manifest.Path
	if d.index >= 0 && d.Evaluation == validating.EvalDeny {
		if a := d.policy.c.validations[d.index]; a != nil {
			paths = d.policy.c.fields.offendingFields(a.Expr(), req.obj.Content, d.probe)
		}
	}
	if len(paths) == 0 {
		return []finding.Finding{decisionFinding(req, d, nil)}
	}
	out := make([]finding.Finding, len(paths))
	for i, p := range paths {
		out[i] = decisionFinding(req, d, p)
	}
	return out
}

// decisionFinding is a denying decision as a finding at a field of the
// object (nil: the object), at the binding's level, with the policy's
// message; the validation (or the policy) and the binding are related
// locations.
func decisionFinding(req *request, d decision, at manifest.Path) finding.Finding {
	p := d.policy
	f := finding.Finding{
		Source: finding.SourcePolicy, RuleID: ruleID(p.name), Level: d.binding.level,
		Title:   decisionTitle(d),
		Message: d.Message, Object: req.obj.ID, Path: at,
		Key: decisionKey(d),
	}
	if d.Evaluation == validating.EvalError {
		// An expression that fails to evaluate denies the request under
		// failurePolicy Fail: the API server's message says which.
		f.Message = fmt.Sprintf("%s could not be evaluated, and its failurePolicy is Fail: %s", p.label(), d.Message)
	}
	f.Location = locate(req.obj, f.Path)
	defAt := manifest.Path{manifest.Key("spec")}
	what := "the policy"
	if d.index >= 0 {
		defAt = defAt.Child(manifest.Key("validations"), manifest.Index(d.index), manifest.Key("expression"))
		what = fmt.Sprintf("validation %d of %s", d.index, p.label())
	}
	f.Related = append(f.Related, finding.Related{Location: locate(p.obj, defAt), Message: what + " is defined here"})
	if d.binding.obj != nil {
		f.Related = append(f.Related, finding.Related{Location: locate(d.binding.obj, nil),
			Message: fmt.Sprintf("ValidatingAdmissionPolicyBinding %s binds it (%s)", d.binding.b.Name, actionsText(d))})
	}
	f.SetFingerprint()
	return f
}

// decisionTitle names the policy and what applies it: the binding, or
// for Kyverno's policies their validation actions (and the pod
// controllers of an autogenerated variant).
func decisionTitle(d decision) string {
	p := d.policy
	if !p.kyverno {
		return fmt.Sprintf("%s (binding %s)", p.label(), d.binding.b.Name)
	}
	t := fmt.Sprintf("%s (%s)", p.label(), actionsText(d))
	if len(p.autogen) > 0 {
		t += ", autogenerated for " + strings.Join(p.autogen, ", ")
	}
	return t
}

// decisionKey tells apart the findings of one object and policy: the
// binding, the validation and the param.
func decisionKey(d decision) string {
	parts := []string{d.binding.b.Name, fmt.Sprint(d.index)}
	if d.param != nil {
		if acc, err := meta.Accessor(d.param); err == nil {
			parts = append(parts, acc.GetNamespace()+"/"+acc.GetName())
		}
	}
	return strings.Join(parts, "\x00")
}

func actionsText(d decision) string {
	var s []string
	for _, a := range d.binding.b.Spec.ValidationActions {
		s = append(s, string(a))
	}
	return "validationActions: " + strings.Join(s, ", ")
}
