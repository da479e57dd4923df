// Package schema validates rendered objects as the Kubernetes API server
// would decode and validate them: built-in kinds against the API schema of
// a pinned Kubernetes release embedded in the binary (unknown fields,
// types, required fields, the fixed value sets the API enforces), custom
// resources against the CustomResourceDefinitions in the repository or
// given with --crds (with the apiextensions-apiserver's own validation,
// CEL rules included), and API versions that the configured Kubernetes
// version no longer serves.
package schema

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/parallel"
)

// Analyzer is the schema engine.
type Analyzer struct {
	// KubernetesMinor is the Kubernetes 1.x minor version objects are
	// checked for (removed and deprecated API versions).
	KubernetesMinor int
	// SkipKinds are patterns of kinds left alone: Kind, group/Kind or
	// apiVersion/Kind, with path.Match wildcards.
	SkipKinds []string
	// WorkflowCRDs are the CustomResourceDefinitions the workflow gives
	// (--crds, the action's crds input, schema.crds of a configuration
	// file outside the repository): for the versions they define they win
	// over the repository's.
	WorkflowCRDs []*manifest.Object
	// CRDs are the CustomResourceDefinitions the repository's
	// configuration names (schema.crds), used after the rendered ones.
	CRDs []*manifest.Object
	// RepositoryCRDs are the CustomResourceDefinitions of the whole
	// repository when only part of it is checked (plumb check charts/x):
	// its custom resources are validated as in a whole-repository run.
	// Used last, and silently — problems of a CRD outside the paths
	// checked are not findings of this run.
	RepositoryCRDs []*manifest.Object
	// MaxTargetTime is a render target's time budget, which also bounds
	// the time the CEL rules of its custom resources take (0: the
	// default, manifest.DefaultLimits.MaxTargetTime).
	MaxTargetTime time.Duration
	// Workers bounds parallel validation (default GOMAXPROCS).
	Workers int
}

// Name implements analyzer.Analyzer.
func (*Analyzer) Name() string { return "schema" }

// objectVerdict is what the analyzer decided to do with one object.
type objectVerdict struct {
	obj *manifest.Object
	// builtin is the object's built-in type, crd its CustomResourceDefinition
	// version (at most one is set).
	builtin *apiType
	crd     *crdVersion
	// findings decided without validating content (API versions).
	findings []finding.Finding
	// budget is the CEL time budget of the object's render target.
	budget *celBudget
}

// Analyze implements analyzer.Analyzer.
func (a *Analyzer) Analyze(ctx context.Context, in *analyzer.Input) (*analyzer.Output, error) {
	b, err := loadBuiltin()
	if err != nil {
		return nil, err
	}
	objects, budgets := a.collectObjects(in)
	crds := newCRDIndex(b)
	for _, o := range a.WorkflowCRDs {
		crds.add(o, true)
	}
	for _, o := range objects {
		if isCRD(o) {
			crds.add(o, false)
		}
	}
	for _, o := range a.CRDs {
		crds.add(o, false)
	}
	for _, o := range a.RepositoryCRDs {
		n := len(crds.problems)
		crds.add(o, false)
		crds.problems = crds.problems[:n]
	}
	out := &analyzer.Output{Rules: Rules()}
	out.Findings = append(out.Findings, crds.findings()...)

	minor := a.KubernetesMinor
	if minor == 0 {
		if _, err := fmt.Sscanf(EmbeddedKubernetesVersion, "1.%d", &minor); err != nil {
			panic("schema: EmbeddedKubernetesVersion is not 1.N: " + EmbeddedKubernetesVersion)
		}
	}
	verdicts := make([]objectVerdict, 0, len(objects))
	noSchema := map[string]bool{}
	for i, o := range objects {
		if o.ID.APIVersion == "" || o.ID.Kind == "" || a.skipped(o.ID) {
			continue
		}
		v := objectVerdict{obj: o, budget: budgets[i]}
		group, _ := splitGroupVersion(o.ID.APIVersion)
		if cv, known := crds.lookup(o.ID.APIVersion, o.ID.Kind); known {
			at := manifest.Path{manifest.Key("apiVersion")}
			switch {
			case cv == nil:
				v.findings = append(v.findings, newFinding(o, RuleRemovedAPI, at, crds.notServedMessage(o.ID.APIVersion, o.ID.Kind), false))
			case cv.deprecated:
				msg := fmt.Sprintf("%s %s is deprecated by its CustomResourceDefinition %s", o.ID.APIVersion, o.ID.Kind, cv.entry.name)
				if cv.deprecationWarning != "" {
					msg += ": " + cv.deprecationWarning
				}
				v.findings = append(v.findings, newFinding(o, RuleDeprecatedAPI, at, msg, false))
			}
			v.crd = cv
			verdicts = append(verdicts, v)
			continue
		}
		if row := lifecycleOf(o.ID.APIVersion, o.ID.Kind); row != nil {
			if f, removed := lifecycleFinding(o, row, minor); f != nil {
				v.findings = append(v.findings, *f)
				if removed {
					verdicts = append(verdicts, v)
					continue
				}
			}
		}
		switch t := b.lookup(o.ID.APIVersion, o.ID.Kind); {
		case t != nil:
			v.builtin = t
		case b.isBuiltinGroup(group) || isRemovedGroup(group):
			if lifecycleOf(o.ID.APIVersion, o.ID.Kind) == nil {
				v.findings = append(v.findings, newFinding(o, RuleUnknownKind, manifest.Path{manifest.Key("kind")}, b.unknownKindMessage(o.ID.APIVersion, o.ID.Kind), false))
			}
		case leftToKubeVirt(o.ID), crds.refused[group+"/"+o.ID.Kind]:
		default:
			key := o.ID.APIVersion + " " + o.ID.Kind
			if !noSchema[key] {
				noSchema[key] = true
				out.Findings = append(out.Findings, noSchemaFinding(o))
			}
		}
		if v.builtin != nil || len(v.findings) > 0 {
			verdicts = append(verdicts, v)
		}
	}
	results := a.validateAll(ctx, verdicts)
	for i := range verdicts {
		out.Findings = append(out.Findings, verdicts[i].findings...)
		out.Findings = append(out.Findings, results[i]...)
	}
	for _, b := range slices.Compact(slices.Clone(budgets)) {
		if f := b.finding(); f != nil {
			out.Findings = append(out.Findings, *f)
		}
	}
	return out, ctx.Err()
}

// collectObjects lists every rendered object once, in target order, with
// the CEL time budget of the first target that holds it.
func (a *Analyzer) collectObjects(in *analyzer.Input) ([]*manifest.Object, []*celBudget) {
	limit := a.MaxTargetTime
	if limit <= 0 {
		limit = manifest.DefaultLimits.MaxTargetTime
	}
	var out []*manifest.Object
	var budgets []*celBudget
	seen := map[*manifest.Object]bool{}
	for _, t := range in.Targets {
		b := newCELBudget(t.Name, limit)
		for _, o := range t.Objects {
			if !seen[o] {
				seen[o] = true
				out = append(out, o)
				budgets = append(budgets, b)
			}
		}
	}
	return out, budgets
}

// skipped reports whether the configuration leaves the object's kind alone.
func (a *Analyzer) skipped(id manifest.ObjectID) bool {
	group, _ := splitGroupVersion(id.APIVersion)
	forms := []string{id.Kind, group + "/" + id.Kind, id.APIVersion + "/" + id.Kind}
	for _, pattern := range a.SkipKinds {
		for _, f := range forms {
			if ok, _ := path.Match(pattern, f); ok {
				return true
			}
		}
	}
	return false
}

// leftToKubeVirt: VirtualMachines without a CRD are the KubeVirt engine's,
// which decodes them into KubeVirt's own types.
func leftToKubeVirt(id manifest.ObjectID) bool {
	group, _ := splitGroupVersion(id.APIVersion)
	return group == "kubevirt.io" && id.Kind == "VirtualMachine"
}

// validateAll validates the objects' content on all cores; results keep
// the input order.
func (a *Analyzer) validateAll(ctx context.Context, verdicts []objectVerdict) [][]finding.Finding {
	results := make([][]finding.Finding, len(verdicts))
	parallel.ForEach(a.Workers, len(verdicts), func(i int) {
		if (verdicts[i].builtin != nil || verdicts[i].crd != nil) && ctx.Err() == nil {
			results[i] = validateObject(ctx, &verdicts[i], i)
		}
	})
	return results
}

// validateObject validates one object's content (the i-th verdict) and
// locates the problems.
func validateObject(ctx context.Context, v *objectVerdict, i int) []finding.Finding {
	o := v.obj
	var secretPaths []manifest.Path
	var once sync.Once
	secret := func(p manifest.Path) bool {
		once.Do(func() { secretPaths = manifest.SecretPaths(o.Content) })
		for _, sp := range secretPaths {
			if p.HasPrefix(sp) {
				return true
			}
		}
		return false
	}
	var problems []problem
	switch {
	case v.builtin != nil:
		problems = validateBuiltin(o.Content, v.builtin, secret)
	case v.crd != nil:
		problems = v.crd.validate(ctx, o, secret, func(eval func(context.Context) field.ErrorList) field.ErrorList {
			return v.budget.evaluate(ctx, o, i, eval)
		})
		if leftToKubeVirt(o.ID) {
			// The KubeVirt engine reports what does not decode into its
			// types; one finding per problem.
			problems = slices.DeleteFunc(problems, func(p problem) bool { return p.rule == RuleWrongType })
		}
	}
	out := make([]finding.Finding, 0, len(problems))
	for _, p := range problems {
		f := newFinding(o, p.rule, p.path, p.message, p.atParent)
		f.Fix = p.fix
		out = append(out, f)
	}
	return out
}

// newFinding makes a finding at the field p of o (at the object that
// should hold it when the field is missing).
func newFinding(o *manifest.Object, rule string, p manifest.Path, message string, missing bool) finding.Finding {
	info := ruleInfos[rule]
	at := p
	if missing {
		at = p.Parent()
	}
	loc, _ := o.Locate(at)
	if missing {
		// A field a kustomize patch removed: the line that removed it.
		if r, ok := o.PatchedAt(p); ok {
			loc = r
		}
	}
	f := finding.Finding{Source: finding.SourceSchema, RuleID: rule, Level: info.level, Title: info.name,
		Message: message, Help: info.help, Object: o.ID, Path: slices.Clone(p), Location: loc}
	f.SetFingerprint()
	return f
}

// noSchemaFinding is the one note about a custom kind no CRD describes,
// at its first object. Its fingerprint names the kind only, so that it
// does not change with the object it is reported at.
func noSchemaFinding(o *manifest.Object) finding.Finding {
	f := newFinding(o, RuleNoSchema, manifest.Path{manifest.Key("apiVersion")},
		fmt.Sprintf("no schema for %s %s: its objects were not validated; give its CustomResourceDefinition with --crds (or schema.crds in .plumb.yaml), or list the kind in schema.skip_kinds", o.ID.APIVersion, o.ID.Kind), false)
	f.Fingerprint = finding.Fingerprint(RuleNoSchema, manifest.ObjectID{APIVersion: o.ID.APIVersion, Kind: o.ID.Kind}, nil, "", "")
	return f
}

// lifecycleFinding reports an API version removed in or before the
// configured version (an error; removed is true) or deprecated in it (a
// warning).
func lifecycleFinding(o *manifest.Object, r *apiLifecycle, minor int) (f *finding.Finding, removed bool) {
	at := manifest.Path{manifest.Key("apiVersion")}
	what := o.ID.APIVersion + " " + o.ID.Kind
	var b strings.Builder
	switch {
	case r.removed > 0 && minor >= r.removed:
		fmt.Fprintf(&b, "%s was removed in Kubernetes 1.%d (checking for 1.%d)", what, r.removed, minor)
		removed = true
	case r.deprecated > 0 && minor >= r.deprecated:
		fmt.Fprintf(&b, "%s is deprecated since Kubernetes 1.%d and is removed in 1.%d", what, r.deprecated, r.removed)
	default:
		return nil, false
	}
	if r.replacement != "" {
		fmt.Fprintf(&b, ": use %s", r.replacement)
	}
	if r.migration != "" {
		if r.replacement != "" {
			b.WriteString(" (" + r.migration + ")")
		} else {
			b.WriteString(": " + r.migration)
		}
	}
	rule := RuleDeprecatedAPI
	if removed {
		rule = RuleRemovedAPI
	}
	nf := newFinding(o, rule, at, b.String(), false)
	if r.replacement != "" && r.migration == "" {
		// The move needs no field change that is known: the apiVersion
		// alone (the next run validates the object against it).
		nf.Fix = setFix(at, r.replacement, "use apiVersion "+r.replacement)
	}
	return &nf, removed
}

// isRemovedGroup reports whether group is a Kubernetes API group that no
// longer exists (extensions).
func isRemovedGroup(group string) bool {
	for _, r := range removedAPIs {
		if r.group == group {
			return true
		}
	}
	return false
}

// openShiftLegacy maps the kinds OpenShift 3 served in the group-less v1
// API to the groups OpenShift 4 serves them in.
var openShiftLegacy = map[string]string{
	"Template": "template.openshift.io/v1", "DeploymentConfig": "apps.openshift.io/v1",
	"ImageStream": "image.openshift.io/v1", "ImageStreamTag": "image.openshift.io/v1",
	"BuildConfig": "build.openshift.io/v1", "Build": "build.openshift.io/v1",
	"Route": "route.openshift.io/v1", "Project": "project.openshift.io/v1",
	"RoleBindingRestriction": "authorization.openshift.io/v1",
}

// unknownKindMessage explains an apiVersion/kind that Kubernetes does not
// serve in one of its own groups.
func (s *builtinSchema) unknownKindMessage(apiVersion, kind string) string {
	group, version := splitGroupVersion(apiVersion)
	if group == "" {
		if g, ok := openShiftLegacy[kind]; ok {
			return fmt.Sprintf("v1 %s is OpenShift 3's group-less legacy API, which OpenShift 4 does not serve: use apiVersion %s", kind, g)
		}
	}
	var elsewhere []string
	for key := range s.kinds {
		if strings.HasSuffix(key, "/"+kind) {
			elsewhere = append(elsewhere, strings.TrimSuffix(key, "/"+kind))
		}
	}
	slices.Sort(elsewhere)
	if len(elsewhere) > 0 {
		return fmt.Sprintf("Kubernetes %s serves %s as %s, not %s", EmbeddedKubernetesVersion, kind, strings.Join(elsewhere, " or "), apiVersion)
	}
	kinds := s.kindsOf[apiVersion]
	if !s.isBuiltinGroup(group) {
		return fmt.Sprintf("Kubernetes %s no longer serves the %s API group, and it never had a kind %s", EmbeddedKubernetesVersion, group, kind)
	}
	if len(kinds) == 0 {
		name := group
		if name == "" {
			name = "the core group"
		}
		return fmt.Sprintf("Kubernetes %s serves no API version %s of %s (versions: %s)", EmbeddedKubernetesVersion, version, name, strings.Join(s.versions[group], ", "))
	}
	if sug := suggest(kind, kinds); sug != "" {
		return fmt.Sprintf("Kubernetes %s has no kind %s in %s: did you mean %s?", EmbeddedKubernetesVersion, kind, apiVersion, sug)
	}
	return fmt.Sprintf("Kubernetes %s has no kind %s in %s", EmbeddedKubernetesVersion, kind, apiVersion)
}
