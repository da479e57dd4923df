package policy

import (
	"fmt"
	"sort"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// policyEntry is one ValidatingAdmissionPolicy of the run, compiled, with
// the bindings that name it.
type policyEntry struct {
	obj      *manifest.Object
	vap      *admissionv1.ValidatingAdmissionPolicy
	c        *compiled
	bindings []*bindingEntry
	// given is set for policies read from --policies or .plumb.yaml
	// policies: (plumb's input): problems with them are configuration
	// errors.
	given bool
}

// bindingEntry is one ValidatingAdmissionPolicyBinding.
type bindingEntry struct {
	obj   *manifest.Object
	b     *admissionv1.ValidatingAdmissionPolicyBinding
	level finding.Level
}

// policySet is every policy of a run that can be evaluated, in name order,
// and the findings about the policies themselves.
type policySet struct {
	policies []*policyEntry
	findings []finding.Finding
	rules    []finding.Rule
}

// candidate is a policy or binding object and where it came from.
type candidate struct {
	obj   *manifest.Object
	given bool
}

// collectPolicies gathers the policies and bindings: the workflow's first,
// then the rendered ones, then those the repository's configuration names
// (the order CRDs are taken in); for one name the first wins, as the API
// server holds one object per name.
func collectPolicies(targets []*render.Target, workflow, configured []*manifest.Object) *policySet {
	var cands []candidate
	for _, o := range workflow {
		cands = append(cands, candidate{o, true})
	}
	for _, t := range targets {
		for _, o := range t.Objects {
			if isPolicyObject(o) {
				cands = append(cands, candidate{o, false})
			}
		}
	}
	for _, o := range configured {
		cands = append(cands, candidate{o, true})
	}
	set := &policySet{}
	byName := map[string]*policyEntry{}
	seenBinding := map[string]bool{}
	var bindings []candidate
	for _, c := range cands {
		switch c.obj.ID.Kind {
		case kindPolicy:
			if _, dup := byName[c.obj.ID.Name]; dup {
				continue
			}
			p := &admissionv1.ValidatingAdmissionPolicy{}
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(c.obj.Content, p); err != nil {
				// The schema analyzer reports a policy that does not decode.
				continue
			}
			byName[p.Name] = &policyEntry{obj: c.obj, vap: p, given: c.given}
		case kindBinding:
			if !seenBinding[c.obj.ID.Name] {
				seenBinding[c.obj.ID.Name] = true
				bindings = append(bindings, c)
			}
		}
	}
	for _, c := range bindings {
		b := &admissionv1.ValidatingAdmissionPolicyBinding{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(c.obj.Content, b); err != nil {
			continue
		}
		p := byName[b.Spec.PolicyName]
		if p == nil {
			// The API server keeps a binding to a missing policy and
			// applies nothing with it.
			continue
		}
		level, ok := actionsLevel(b.Spec.ValidationActions)
		if !ok {
			continue // refused by the API server: validationActions is required
		}
		applyBindingDefaults(b)
		p.bindings = append(p.bindings, &bindingEntry{obj: c.obj, b: b, level: level})
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := byName[n]
		set.rules = append(set.rules, ruleFor(p))
		if !set.prepare(p) {
			continue
		}
		if len(p.bindings) > 0 {
			set.policies = append(set.policies, p)
		}
	}
	return set
}

// prepare compiles a policy and reports what keeps it from being
// evaluated; false when it cannot be.
func (s *policySet) prepare(p *policyEntry) bool {
	if p.vap.Spec.MatchConstraints == nil {
		s.findings = append(s.findings, s.policyFinding(p, manifest.Path{manifest.Key("spec")}, finding.Error,
			fmt.Sprintf("ValidatingAdmissionPolicy %s has no spec.matchConstraints: the API server refuses it (a required field)", p.vap.Name), "matchConstraints"))
		return false
	}
	applyPolicyDefaults(p.vap)
	p.c = compilePolicy(p.vap)
	for _, prob := range p.c.problems {
		s.findings = append(s.findings, s.policyFinding(p, prob.path, finding.Error, describeProblem(p.vap.Name, prob), prob.path.String()))
	}
	if len(p.c.problems) > 0 {
		return false
	}
	if p.c.clusterOnly != "" {
		s.findings = append(s.findings, s.policyFinding(p, nil, finding.Note,
			fmt.Sprintf("ValidatingAdmissionPolicy %s reads %s, which only a live API server has: it is not evaluated", p.vap.Name, p.c.clusterOnly), "cluster"))
		return false
	}
	return true
}

// policyFinding is a finding about the policy object itself.
func (s *policySet) policyFinding(p *policyEntry, at manifest.Path, level finding.Level, msg, key string) finding.Finding {
	f := finding.Finding{
		Source: finding.SourcePolicy, RuleID: ruleID(p.vap.Name), Level: level,
		Title:   "ValidatingAdmissionPolicy " + p.vap.Name,
		Message: msg, Object: p.obj.ID, Path: at, Key: key,
		InputError: level == finding.Error, ConfigError: p.given && level == finding.Error,
	}
	f.Location = locate(p.obj, at)
	f.SetFingerprint()
	return f
}

// ruleID is the rule of a policy's findings.
func ruleID(policy string) string { return "policy/" + policy }

// ruleFor describes a policy's rule for SARIF and help texts.
func ruleFor(p *policyEntry) finding.Rule {
	short := "ValidatingAdmissionPolicy " + p.vap.Name
	return finding.Rule{ID: ruleID(p.vap.Name), Name: p.vap.Name, Short: short,
		Full: "The admission policy " + p.vap.Name + " that the API server enforces on create and update.", Level: finding.Error}
}

// actionsLevel maps a binding's validation actions to the level of its
// findings: Deny is an error, Warn a warning, Audit a note; the most severe
// wins. false when there are none the API server knows.
func actionsLevel(actions []admissionv1.ValidationAction) (finding.Level, bool) {
	level, ok := finding.Note, false
	for _, a := range actions {
		var l finding.Level
		switch a {
		case admissionv1.Deny:
			l = finding.Error
		case admissionv1.Warn:
			l = finding.Warning
		case admissionv1.Audit:
			l = finding.Note
		default:
			continue
		}
		if !ok || l < level {
			level, ok = l, true
		}
	}
	return level, ok
}

// locate resolves a path of an object to its source position (the
// provenance falls back to the nearest ancestor the source has).
func locate(o *manifest.Object, p manifest.Path) manifest.Location {
	if loc, _ := o.Locate(p); !loc.IsZero() {
		return loc
	}
	if o.Doc != nil {
		return o.Doc.Start()
	}
	return manifest.Location{}
}
