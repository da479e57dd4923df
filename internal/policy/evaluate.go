package policy

import (
	"context"
	"fmt"
	"sync"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	corev1listers "k8s.io/client-go/listers/core/v1"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// world is the in-process stand-in for the cluster the policies of one
// run are evaluated against: per render target, the namespaces and the
// params, looked up in the target first and then in the others (a policy
// repository and an application repository are often separate targets of
// one cluster).
type world struct {
	kinds   *kinds
	oi      admission.ObjectInterfaces
	targets []*targetWorld
	// paramKinds are the param kinds some policy uses, with every rendered
	// object of each.
	paramObjs map[string][]*manifest.Object
	// notes collects the one-off findings evaluation meets (a binding whose
	// params are not in the render), by key.
	notes sync.Map
}

// targetWorld is what evaluating the objects of one target reads.
type targetWorld struct {
	namespaces corev1listers.NamespaceLister
	matcher    generic.PolicyMatcher
	params     map[string]params // by paramKey
	paramScope map[string]meta.RESTScope
}

func newWorld(targets []*render.Target, set *policySet) *world {
	var all []*manifest.Object
	for _, t := range targets {
		all = append(all, t.Objects...)
	}
	w := &world{kinds: newKinds(all), oi: admission.NewObjectInterfacesFromScheme(runtime.NewScheme()), paramObjs: map[string][]*manifest.Object{}}
	wanted := map[string]*admissionv1.ParamKind{}
	for _, p := range set.policies {
		if pk := p.vap.Spec.ParamKind; pk != nil {
			wanted[paramKey(pk.APIVersion, pk.Kind)] = pk
		}
	}
	var allNamespaces []*manifest.Object
	used := map[string]bool{defaultNamespace: true}
	for _, o := range all {
		if isNamespace(o) {
			allNamespaces = append(allNamespaces, o)
		}
		if o.ID.Namespace != "" {
			used[o.ID.Namespace] = true
		}
		if _, ok := wanted[objectParamKey(o)]; ok {
			w.paramObjs[objectParamKey(o)] = append(w.paramObjs[objectParamKey(o)], o)
		}
	}
	usedNames := make([]string, 0, len(used))
	for n := range used {
		usedNames = append(usedNames, n)
	}
	for _, t := range targets {
		var own []*manifest.Object
		byKind := map[string][]*manifest.Object{}
		for _, o := range t.Objects {
			if isNamespace(o) {
				own = append(own, o)
			}
			if _, ok := wanted[objectParamKey(o)]; ok {
				byKind[objectParamKey(o)] = append(byKind[objectParamKey(o)], o)
			}
		}
		tw := &targetWorld{namespaces: namespaces(own, allNamespaces, usedNames), params: map[string]params{}, paramScope: map[string]meta.RESTScope{}}
		tw.matcher = generic.NewPolicyMatcher(matching.NewMatcher(tw.namespaces, nil))
		for key, pk := range wanted {
			gvk := schema.FromAPIVersionAndKind(pk.APIVersion, pk.Kind)
			gvr, namespaced := w.kinds.resource(gvk)
			tw.params[key] = newParams(gvr, byKind[key], w.paramObjs[key])
			tw.paramScope[key] = meta.RESTScopeRoot
			if namespaced {
				tw.paramScope[key] = meta.RESTScopeNamespace
			}
		}
		w.targets = append(w.targets, tw)
	}
	return w
}

func isNamespace(o *manifest.Object) bool { return o.ID.APIVersion == "v1" && o.ID.Kind == "Namespace" }

func metaName(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Labels: map[string]string{nameLabel: name}}
}

// request is one object as an admission request: create, or update when
// the base revision has the object.
type request struct {
	obj, old  *manifest.Object
	target    int
	attr      admission.Attributes
	namespace string
}

func (w *world) newRequest(target int, obj, old *manifest.Object) *request {
	gvk := schema.FromAPIVersionAndKind(obj.ID.APIVersion, obj.ID.Kind)
	gvr, namespaced := w.kinds.resource(gvk)
	ns := ""
	if namespaced {
		ns = obj.ID.Namespace
		if ns == "" {
			ns = defaultNamespace
		}
	}
	var oldObj runtime.Object
	op, opts := admission.Create, runtime.Object(&metav1.CreateOptions{})
	if old != nil {
		oldObj = &unstructured.Unstructured{Object: old.Content}
		op, opts = admission.Update, &metav1.UpdateOptions{}
	}
	attr := admission.NewAttributesRecord(&unstructured.Unstructured{Object: obj.Content}, oldObj, gvk, ns, obj.ID.Name, gvr, "", op, opts, false, &user.DefaultInfo{})
	return &request{obj: obj, old: old, target: target, attr: attr, namespace: ns}
}

// decision is one validation's verdict with what located it.
type decision struct {
	policy  *policyEntry
	binding *bindingEntry
	param   runtime.Object
	// index is the validation the decision is about (-1: the policy as a
	// whole, as for a matchConditions error).
	index int
	validating.PolicyDecision
	// probe evaluates the same validation again on another version of
	// the object (set when index is).
	probe prober
}

// evaluate runs every policy on one request as the API server's
// ValidatingAdmissionPolicy dispatcher does (validating.dispatcher.Dispatch:
// the policy's match constraints, each binding's match resources, its
// params, the validator), and returns the denying decisions.
func (w *world) evaluate(ctx context.Context, set *policySet, req *request) []decision {
	tw := w.targets[req.target]
	var out []decision
	for _, p := range set.policies {
		out = append(out, w.evaluatePolicy(ctx, tw, p, req)...)
	}
	return out
}

func (w *world) evaluatePolicy(ctx context.Context, tw *targetWorld, p *policyEntry, req *request) []decision {
	if p.namespace != "" && req.namespace != p.namespace {
		return nil // a NamespacedValidatingPolicy applies in its namespace only
	}
	if p.kyverno && kyvernoFiltered(req.obj.ID.Kind, req.namespace) {
		return nil
	}
	var out []decision
	configError := func(b *bindingEntry, err error) {
		if *p.vap.Spec.FailurePolicy == admissionv1.Ignore {
			return
		}
		what := "policy"
		if b != nil {
			what = "binding"
		}
		out = append(out, decision{policy: p, binding: b, index: -1, PolicyDecision: validating.PolicyDecision{
			Action: validating.ActionDeny, Evaluation: validating.EvalError, Message: fmt.Sprintf("failed to configure %s: %v", what, err)}})
	}
	matches, gvr, gvk, err := tw.matcher.DefinitionMatches(req.attr, w.oi, validating.NewValidatingAdmissionPolicyAccessor(p.vap))
	if err != nil {
		configError(nil, err)
		return out
	}
	if !matches {
		return nil
	}
	var versioned *admission.VersionedAttributes
	for _, b := range p.bindings {
		matches, err := tw.matcher.BindingMatches(req.attr, w.oi, validating.NewValidatingAdmissionPolicyBindingAccessor(b.b))
		if err != nil {
			configError(b, err)
			continue
		}
		if !matches {
			continue
		}
		ps, err := w.collectParams(tw, p, b, req.namespace)
		if err != nil {
			configError(b, err)
			continue
		}
		if ps == nil {
			continue
		}
		if versioned == nil {
			versioned, err = admission.NewVersionedAttributes(req.attr, gvk, w.oi)
			if err != nil {
				configError(b, fmt.Errorf("failed to convert object version: %w", err))
				continue
			}
		}
		var nsObj *corev1.Namespace
		if req.namespace != "" && !isNamespace(req.obj) {
			if nsObj, err = tw.matcher.GetNamespace(ctx, req.namespace); err != nil {
				configError(b, err)
				continue
			}
		}
		for _, param := range ps {
			res := p.c.validator.Validate(ctx, gvr, versioned, param, nsObj, celconfig.RuntimeCELCostBudget, nil)
			ds := denials(p, b, param, res)
			for i := range ds {
				if ds[i].index >= 0 {
					ds[i].probe = w.prober(ctx, p, req, gvr, gvk, param, nsObj, ds[i].index)
				}
			}
			out = append(out, ds...)
		}
	}
	return out
}

// prober evaluates validation index of the policy again, with the same
// binding, param and namespace, on another version of the request's
// object.
func (w *world) prober(ctx context.Context, p *policyEntry, req *request, gvr schema.GroupVersionResource, gvk schema.GroupVersionKind,
	param runtime.Object, nsObj *corev1.Namespace, index int) prober {
	return func(content map[string]any) bool {
		probe := *req
		probe.obj = &manifest.Object{ID: req.obj.ID, Content: content}
		attr := w.newRequest(req.target, probe.obj, req.old).attr
		versioned, err := admission.NewVersionedAttributes(attr, gvk, w.oi)
		if err != nil {
			return false
		}
		res := p.c.validator.Validate(ctx, gvr, versioned, param, nsObj, celconfig.RuntimeCELCostBudget, nil)
		return len(res.Decisions) == len(p.vap.Spec.Validations) && res.Decisions[index].Action == validating.ActionDeny
	}
}

// collectParams returns the params a binding evaluates the policy with, as
// generic.CollectParams finds them ([nil] when the policy takes none). nil
// with no error means the binding is not evaluated: its params are of a
// kind the render has none of, so they live only in the cluster (a note
// says so, once per binding).
func (w *world) collectParams(tw *targetWorld, p *policyEntry, b *bindingEntry, namespace string) ([]runtime.Object, error) {
	pk, ref := p.vap.Spec.ParamKind, b.b.Spec.ParamRef
	if pk == nil || ref == nil {
		return generic.CollectParams(pk, nil, nil, ref, namespace, nil, nil)
	}
	key := paramKey(pk.APIVersion, pk.Kind)
	if len(w.paramObjs[key]) == 0 {
		w.notes.LoadOrStore("params\x00"+b.b.Name, paramsNote(p, b))
		return nil, nil
	}
	informer := tw.params[key]
	return generic.CollectParams(pk, informer, tw.paramScope[key], ref, namespace, nil, nil)
}

// denials are the decisions of one evaluation that deny, each with the
// validation it is about when the validator reached the validations (one
// decision per validation, in order).
func denials(p *policyEntry, b *bindingEntry, param runtime.Object, res validating.ValidateResult) []decision {
	var out []decision
	perValidation := len(res.Decisions) == len(p.vap.Spec.Validations)
	for i, d := range res.Decisions {
		if d.Action != validating.ActionDeny {
			continue
		}
		index := -1
		if perValidation {
			index = i
		}
		out = append(out, decision{policy: p, binding: b, param: param, index: index, PolicyDecision: d})
	}
	for _, a := range res.AuditAnnotations {
		if a.Action == validating.AuditAnnotationActionError {
			out = append(out, decision{policy: p, binding: b, param: param, index: -1, PolicyDecision: validating.PolicyDecision{
				Action: validating.ActionDeny, Evaluation: validating.EvalError, Message: a.Error}})
		}
	}
	return out
}

// paramsNote says that a binding was not evaluated for want of params.
func paramsNote(p *policyEntry, b *bindingEntry) finding.Finding {
	pk := p.vap.Spec.ParamKind
	f := finding.Finding{
		Source: finding.SourcePolicy, RuleID: ruleID(p.name), Level: finding.Note,
		Title: p.label(),
		Message: fmt.Sprintf("ValidatingAdmissionPolicyBinding %s takes its params from %s %s, and the render has none: the binding is not evaluated (its params live in the cluster)",
			b.b.Name, pk.APIVersion, pk.Kind),
		Object: b.obj.ID, Path: manifest.Path{manifest.Key("spec"), manifest.Key("paramRef")}, Key: "params",
	}
	f.Location = locate(b.obj, f.Path)
	f.SetFingerprint()
	return f
}
