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

// RuleFluxSubstitute is the rule of a Flux Kustomization's post-build
// substitution that the controller refuses, or that plumb cannot apply.
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
			derived, unset, p := substituted(src, fmt.Sprintf("%s[Kustomization %s in %s]", src.Name, o.ID.Name, t.Name), vars, o, limits)
			if p != nil {
				problems.add(*p)
				continue
			}
			problems.add(unset...)
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
	return ownFirst(targets, own, func(t *Target) *manifest.Object { return findObject(t, "ConfigMap", name, ns) })
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
// values as written. Keys are not substituted. unset are warnings at the
// values that use a variable the Kustomization does not give, without a
// default: the controller writes an empty string there.
func substituted(src *Target, name string, vars map[string]string, def *manifest.Object, limits manifest.Limits) (out *Target, unset []manifest.Problem, p *manifest.Problem) {
	// A variable's value may be written in every string of every
	// resource: what substitution adds is bounded by the target's size
	// budget, as a build's output is.
	sub := &substituter{vars: vars, left: limits.MaxTargetBytes}
	if sub.left <= 0 {
		sub.left = manifest.DefaultLimits.MaxTargetBytes
	}
	out = &Target{Name: name, Kind: src.Kind, Objects: make([]*manifest.Object, 0, len(src.Objects))}
	for _, o := range src.Objects {
		c := *o
		sub.unset = nil
		if o.Labels()[substituteKey] != "disabled" && o.Annotations()[substituteKey] != "disabled" {
			content, err := sub.tree(o.Content, nil)
			if err != nil {
				return nil, nil, fluxProblem(def, pathOf("spec", "postBuild"), "error", "Kustomization %s: %s %s: the variables cannot be substituted: %v; kustomize-controller refuses the Kustomization", def.ID.Name, o.ID.Kind, o.ID.Name, err)
			}
			c.Content = content.(map[string]any)
			c.Node = nil // the printed form follows Content
		}
		c.ID = manifest.IDOf(c.Content, name)
		unset = append(unset, unsetProblems(&c, def, sub.unset)...)
		out.Objects = append(out.Objects, &c)
	}
	return out, unset, nil
}

// unsetUse is a variable used without a default and not given, at a path.
type unsetUse struct {
	at   manifest.Path
	name string
}

func unsetProblems(o, def *manifest.Object, uses []unsetUse) []manifest.Problem {
	out := make([]manifest.Problem, 0, len(uses))
	for _, u := range uses {
		loc, _ := o.Locate(u.at)
		out = append(out, manifest.Problem{Rule: RuleFluxSubstitute, Level: "warning", Location: loc, Object: o.ID, Path: u.at,
			Key: o.ID.Key() + "|" + u.at.String() + "|" + u.name,
			Message: fmt.Sprintf("Kustomization %s substitutes ${%s} here, but gives no variable %s and the expression no default: kustomize-controller writes an empty string (give the variable, a default as ${%s:=value}, or write $$ for a literal $)",
				def.ID.Name, u.name, u.name, u.name)})
	}
	return out
}

// substituter substitutes a Kustomization's variables in value trees.
type substituter struct {
	vars map[string]string
	// left is what substitution may still add to the target, in bytes.
	left  int64
	unset []unsetUse
}

// bareVar finds variables used without an operator: ${name} and $name
// (after $$ escapes are removed).
var bareVar = regexp.MustCompile(`\$(?:\{([_[:alpha:]][_[:alpha:][:digit:]]*)\}|([_[:alpha:]][_[:alpha:][:digit:]]*))`)

// tree copies v with every string that holds a "$" substituted.
func (s *substituter) tree(v any, at manifest.Path) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			x, err := s.tree(e, at.Child(manifest.Key(k)))
			if err != nil {
				return nil, err
			}
			out[k] = x
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			x, err := s.tree(e, at.Child(manifest.Index(i)))
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case string:
		if !strings.Contains(t, "$") {
			return t, nil
		}
		return s.value(t, at)
	}
	return v, nil
}

// value substitutes one string.
func (s *substituter) value(t string, at manifest.Path) (any, error) {
	out, err := envsubst.Eval(t, func(name string) string { return s.vars[name] })
	if err != nil {
		return nil, err
	}
	if s.left -= int64(len(out) - len(t)); s.left < 0 {
		return nil, errSubstituteBudget
	}
	for _, m := range bareVar.FindAllStringSubmatch(strings.ReplaceAll(t, "$$", ""), -1) {
		name := m[1] + m[2]
		if _, ok := s.vars[name]; !ok {
			s.unset = append(s.unset, unsetUse{at: slices.Clone(at), name: name})
		}
	}
	if out == t || strings.Contains(out, "\n") {
		return out, nil
	}
	if typed, ok := manifest.PlainScalar(out); ok {
		return typed, nil
	}
	return out, nil
}

var errSubstituteBudget = errors.New("the substituted values exceed the render target's size budget")
