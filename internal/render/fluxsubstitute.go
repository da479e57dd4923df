package render

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/drone/envsubst"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// A Flux Kustomization whose postBuild substitutes variables deploys its
// spec.path as kustomize-controller applies it: built, then every
// resource's variables (${var}, ${var:=default}, ${var:-default}, $var)
// replaced from spec.postBuild.substitute and substituteFrom's
// ConfigMaps, by the envsubst library the controller uses. Such a
// Kustomization is a render target of its own,
// "DIR[Kustomization NAME in TARGET]", beside the directory's own build,
// which still shows the placeholders as written.

// RuleFluxSubstitute: a Flux Kustomization's post-build substitution that
// the controller refuses, or that plumb cannot apply.
const RuleFluxSubstitute = "render/flux-substitute"

// substituteKey disables substitution on a resource (label or annotation).
const substituteKey = "kustomize.toolkit.fluxcd.io/substitute"

// fluxVarName is the controller's check of a variable's name.
var fluxVarName = regexp.MustCompile(`^[_[:alpha:]][_[:alpha:][:digit:]]*$`)

// fluxTargets are the post-build renders of the repository's Flux
// Kustomizations over the targets already rendered.
func fluxTargets(targets []*Target, limits manifest.Limits, problems *problemSet) []*Target {
	byName := make(map[string]*Target, len(targets))
	for _, t := range targets {
		byName[t.Name] = t
	}
	var out []*Target
	for _, t := range targets {
		for _, o := range t.Objects {
			if o.ID.Kind != "Kustomization" || !strings.HasPrefix(o.ID.APIVersion, "kustomize.toolkit.fluxcd.io/") {
				continue
			}
			if _, ok := specMap(o.Content)["postBuild"].(map[string]any); !ok {
				continue
			}
			src := byName[fluxPath(str(o.Content, "spec", "path"))]
			if src == nil {
				continue // another source's path, or nothing here to render
			}
			vars, p := fluxVars(targets, t, o)
			if p != nil {
				problems.add(*p)
				continue
			}
			if len(vars) == 0 {
				continue // the controller substitutes nothing
			}
			derived, p := substituted(src, fmt.Sprintf("%s[Kustomization %s in %s]", src.Name, o.ID.Name, t.Name), vars, o, limits)
			if p != nil {
				problems.add(*p)
				continue
			}
			out = append(out, derived)
		}
	}
	return out
}

// fluxPath is spec.path as a target name: relative to the source's root,
// "./" or "" the root.
func fluxPath(p string) string {
	p = path.Clean("/" + strings.TrimSpace(p))
	if p == "/" {
		return "."
	}
	return strings.TrimPrefix(p, "/")
}

// fluxVars are the variables of o's post-build: each substituteFrom
// ConfigMap's data in order, then substitute over them, as the controller
// merges them. A Secret is not read (its values would reach reports); a
// problem says the Kustomization is not rendered for it.
func fluxVars(targets []*Target, own *Target, o *manifest.Object) (map[string]string, *manifest.Problem) {
	vars := map[string]string{}
	from := pathOf("spec", "postBuild", "substituteFrom")
	for i, ref := range listOf(o.Content, "spec", "postBuild", "substituteFrom") {
		rm, _ := ref.(map[string]any)
		kind, _ := rm["kind"].(string)
		name, _ := rm["name"].(string)
		optional, _ := rm["optional"].(bool)
		at := from.Child(manifest.Index(i))
		if kind == "Secret" {
			if optional {
				continue
			}
			return nil, fluxProblem(o, at, "note", "Kustomization %s: its variables come from Secret %s, which plumb does not read (its values would reach the reports), so the post-build render is not checked", o.ID.Name, name)
		}
		cm := findConfigMap(targets, own, name, o.ID.Namespace)
		if cm == nil {
			if optional {
				continue
			}
			return nil, fluxProblem(o, at, "note", "Kustomization %s: its variables come from ConfigMap %s, which is not among the repository's objects, so the post-build render is not checked", o.ID.Name, name)
		}
		data, _ := cm.Content["data"].(map[string]any)
		for k, v := range data {
			s, _ := v.(string)
			vars[k] = s
		}
	}
	sub, _ := manifest.Lookup(o.Content, pathOf("spec", "postBuild", "substitute"))
	sm, _ := sub.(map[string]any)
	for k, v := range sm {
		vars[k] = fmt.Sprint(v)
	}
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		if !fluxVarName.MatchString(k) {
			at := pathOf("spec", "postBuild", "substitute", k)
			if _, ok := sm[k]; !ok {
				at = from
			}
			return nil, fluxProblem(o, at, "error", "Kustomization %s: variable name %q is invalid (it must match %s); kustomize-controller refuses the Kustomization", o.ID.Name, k, fluxVarName)
		}
	}
	return vars, nil
}

// findConfigMap is the ConfigMap named name in namespace ns: in the
// Kustomization's own target first, then in any target (another
// Kustomization may apply it).
func findConfigMap(targets []*Target, own *Target, name, ns string) *manifest.Object {
	if o := findObject(own, "ConfigMap", name, ns); o != nil {
		return o
	}
	for _, t := range targets {
		if o := findObject(t, "ConfigMap", name, ns); o != nil {
			return o
		}
	}
	return nil
}

func fluxProblem(o *manifest.Object, at manifest.Path, level, format string, args ...any) *manifest.Problem {
	loc, _ := o.Locate(at)
	return &manifest.Problem{Rule: RuleFluxSubstitute, Level: level, Location: loc, Object: o.ID, Path: at,
		Key: o.ID.Key() + "|" + at.String(), Message: fmt.Sprintf(format, args...)}
}

// substituted is src's objects with the variables replaced: each string
// value through envsubst, typed again as a plain YAML scalar (the
// controller substitutes the YAML text and parses it again, so
// `replicas: ${replicas}` becomes a number). Positions stay those of the
// values as written. Keys are not substituted.
func substituted(src *Target, name string, vars map[string]string, def *manifest.Object, limits manifest.Limits) (*Target, *manifest.Problem) {
	lookup := func(s string) string { return vars[s] }
	// A variable's value may be written in every string of every
	// resource: what substitution adds is bounded by the target's size
	// budget, as a build's output is.
	budget := &substituteBudget{left: limits.MaxTargetBytes}
	if budget.left <= 0 {
		budget.left = manifest.DefaultLimits.MaxTargetBytes
	}
	out := &Target{Name: name, Kind: src.Kind, Objects: make([]*manifest.Object, 0, len(src.Objects))}
	for _, o := range src.Objects {
		c := *o
		if o.Labels()[substituteKey] != "disabled" && o.Annotations()[substituteKey] != "disabled" {
			content, err := substituteTree(o.Content, lookup, budget)
			if err != nil {
				return nil, fluxProblem(def, pathOf("spec", "postBuild"), "error", "Kustomization %s: %s %s: the variables cannot be substituted: %v; kustomize-controller refuses the Kustomization", def.ID.Name, o.ID.Kind, o.ID.Name, err)
			}
			c.Content = content.(map[string]any)
			c.Node = nil // the printed form follows Content
		}
		c.ID = manifest.IDOf(c.Content, name)
		out.Objects = append(out.Objects, &c)
	}
	return out, nil
}

// substituteTree copies v with every string that holds a "$" substituted.
func substituteTree(v any, lookup func(string) string, budget *substituteBudget) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			s, err := substituteTree(e, lookup, budget)
			if err != nil {
				return nil, err
			}
			out[k] = s
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			s, err := substituteTree(e, lookup, budget)
			if err != nil {
				return nil, err
			}
			out[i] = s
		}
		return out, nil
	case string:
		if !strings.Contains(t, "$") {
			return t, nil
		}
		s, err := envsubst.Eval(t, lookup)
		if err != nil {
			return nil, err
		}
		if budget.left -= int64(len(s) - len(t)); budget.left < 0 {
			return nil, errSubstituteBudget
		}
		if s == t || strings.ContainsAny(s, "\n") {
			return s, nil
		}
		if typed, ok := manifest.PlainScalar(s); ok {
			return typed, nil
		}
		return s, nil
	}
	return v, nil
}

// substituteBudget is what substitution may still add to a target, in
// bytes.
type substituteBudget struct{ left int64 }

var errSubstituteBudget = errors.New("the substituted values exceed the render target's size budget")
