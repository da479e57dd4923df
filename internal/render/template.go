package render

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// OpenShift Template processing, as `oc process` does it (library-go
// pkg/template/templateprocessing): parameter values (supplied, declared,
// generated), ${NAME} substitution in every string (keys included),
// ${{NAME}} replacing a whole string with the parameter's JSON value,
// hard-coded namespaces stripped, the template's labels added to every
// object.

// TemplateParams are the parameter values given to templates: Global
// applies to every template that declares the name, PerTemplate (by
// template metadata.name) wins over it.
type TemplateParams struct {
	Global      map[string]string
	PerTemplate map[string]map[string]string
}

var (
	stringParamExp    = regexp.MustCompile(`\$\{([a-zA-Z0-9\_]+?)\}`)
	nonStringParamExp = regexp.MustCompile(`^\$\{\{([a-zA-Z0-9\_]+)\}\}$`)
	paramRefExp       = regexp.MustCompile(`\$\{([a-zA-Z0-9\_]+)\}`)
)

// IsTemplate reports whether content is an OpenShift Template.
func IsTemplate(content map[string]any) bool {
	kind, _ := content["kind"].(string)
	api, _ := content["apiVersion"].(string)
	return kind == "Template" && (api == "template.openshift.io/v1" || api == "v1")
}

type templateParam struct {
	index    int
	name     string
	value    string
	generate string
	from     string
	required bool
}

// processTemplate processes one Template object. seedScope makes the
// generated values of templates with the same name in different places
// differ (it is empty for the usual single definition).
func processTemplate(t *manifest.Object, params TemplateParams, target string) (*Template, []manifest.Problem) {
	tmpl := &Template{Object: t}
	name := t.ID.Name
	at := func(p string) manifest.Location { loc, _ := t.Locate(manifest.MustParsePath(p)); return loc }
	fail := func(p string, format string, args ...any) manifest.Problem {
		return manifest.Problem{Rule: RuleTemplate, Level: "error", Location: at(p), Object: t.ID, Input: true,
			Message: fmt.Sprintf("template %s: ", name) + fmt.Sprintf(format, args...)}
	}
	var problems, warnings []manifest.Problem

	declared := map[string]*templateParam{}
	var order []*templateParam
	rawParams, ok := t.Content["parameters"].([]any)
	if v, has := t.Content["parameters"]; has && v != nil && !ok {
		problems = append(problems, fail("parameters", "parameters must be a list of parameters (- name: ...), not %s", valueKind(v)))
	}
	if v, has := t.Content["objects"]; has && v != nil {
		if _, ok := v.([]any); !ok {
			problems = append(problems, fail("objects", "objects must be a list of objects, not %s", valueKind(v)))
		}
	}
	for i, rp := range rawParams {
		m, ok := rp.(map[string]any)
		if !ok {
			problems = append(problems, fail(fmt.Sprintf("parameters[%d]", i), "parameters[%d] is not a mapping", i))
			continue
		}
		p := &templateParam{index: i}
		p.name, _ = m["name"].(string)
		p.value = scalarString(m["value"])
		p.generate, _ = m["generate"].(string)
		p.from, _ = m["from"].(string)
		p.required, _ = m["required"].(bool)
		if p.name == "" {
			problems = append(problems, fail(fmt.Sprintf("parameters[%d]", i), "parameters[%d] has no name%s: every parameter needs one (name: MY_PARAM), which objects use as ${MY_PARAM}", i, unknownParamKeys(m)))
			continue
		}
		if first, dup := declared[p.name]; dup {
			// oc refuses a template that declares a parameter twice; which
			// value would win is anyone's guess.
			firstAt := at(fmt.Sprintf("parameters[%d].name", first.index))
			problems = append(problems, fail(fmt.Sprintf("parameters[%d].name", i), "parameter %s is declared twice (first at line %d)", p.name, firstAt.Line))
			continue
		}
		declared[p.name] = p
		order = append(order, p)
	}

	supplied := map[string]string{}
	for k, v := range params.Global {
		if _, ok := declared[k]; ok {
			supplied[k] = v
		}
	}
	own := params.PerTemplate[name]
	for _, k := range slices.Sorted(maps.Keys(own)) {
		if _, ok := declared[k]; !ok {
			problems = append(problems, fail("parameters", "unknown parameter %s (given in template_params); the template declares: %s", k, declaredNames(order)))
			continue
		}
		supplied[k] = own[k]
	}

	values := map[string]string{}
	for _, p := range order {
		v := p.value
		if s, ok := supplied[p.name]; ok {
			v = s
		}
		if v == "" && p.generate != "" {
			if p.generate != "expression" {
				problems = append(problems, fail(fmt.Sprintf("parameters[%d].generate", p.index), "unknown generator %q for parameter %s (only \"expression\" exists)", p.generate, p.name))
				continue
			}
			g, err := generateValue(p.from, name+"/"+p.name)
			if err != nil {
				problems = append(problems, fail(fmt.Sprintf("parameters[%d].from", p.index), "parameter %s: %v", p.name, err))
				continue
			}
			v = g
		}
		if v == "" && p.required {
			// oc refuses to process the template without a value; plumb
			// checks it with a placeholder so a template library checks
			// cleanly, and says once which value it made up.
			v = RequiredParamPlaceholder(p.name)
			warnings = append(warnings, manifest.Problem{Rule: RuleTemplatePlaceholder, Level: "warning", Location: at(fmt.Sprintf("parameters[%d]", p.index)), Object: t.ID,
				Key: "required:" + p.name,
				Message: fmt.Sprintf("template %s: parameter %s is required and has no value, so the template was checked with %q in its place: "+
					"pass --param %s=VALUE, or set it under params (or template_params.%s) in .plumb.yaml, to check it with a real value",
					name, p.name, v, p.name, name)})
		}
		values[p.name] = v
	}
	if len(problems) > 0 {
		return tmpl, problems
	}
	problems = warnings

	x := &expansion{values: values}
	labels := map[string]string{}
	labelKeys := map[string]string{} // processed key -> key as written
	if lm, ok := t.Content["labels"].(map[string]any); ok {
		for k, v := range lm {
			nk, _ := x.substitute(k)
			nv, _ := x.substitute(scalarString(v))
			labels[nk] = nv
			labelKeys[nk] = k
		}
	}

	objects, _ := t.Content["objects"].([]any)
	for i, raw := range objects {
		m, ok := raw.(map[string]any)
		if !ok {
			problems = append(problems, manifest.Problem{Rule: manifest.RuleNotAnObject, Level: "note", Location: at(fmt.Sprintf("objects[%d]", i)), Object: t.ID,
				Message: fmt.Sprintf("template %s: objects[%d] is not a mapping: not a Kubernetes object, skipped", name, i)})
			continue
		}
		m = deepCopyMap(m)
		stripNamespace(m)
		out := x.substituteValue(m).(map[string]any)
		if x.err != nil {
			// None of the objects: the template does not process.
			tmpl.Objects = nil
			return tmpl, append(problems, fail(fmt.Sprintf("objects[%d]", i), "%v", x.err))
		}
		addLabels(out, labels)
		origin := &templateOrigin{content: out, parent: t, index: i, labels: labels, labelKeys: labelKeys}
		_, hasAPI := out["apiVersion"]
		_, hasKind := out["kind"]
		if !hasAPI && !hasKind {
			problems = append(problems, manifest.Problem{Rule: manifest.RuleNotAnObject, Level: "note", Location: at(fmt.Sprintf("objects[%d]", i)), Object: t.ID,
				Message: fmt.Sprintf("template %s: objects[%d] has neither apiVersion nor kind: not a Kubernetes object, skipped", name, i)})
			continue
		}
		// The processed object is checked as a plain one is: a name that
		// a parameter leaves empty is as wrong as one never written.
		identity, ok := manifest.IdentityProblems(out, target, origin)
		problems = append(problems, identity...)
		if !ok {
			continue
		}
		obj := &manifest.Object{
			ID:      manifest.IDOf(out, target),
			Content: out,
			Origin:  origin,
		}
		tmpl.Objects = append(tmpl.Objects, obj)
	}
	return tmpl, problems
}

// RequiredParamPlaceholder is the value a required Template parameter
// without a value is checked with: "plumb-required-" and the parameter's
// name in lower case with dashes (SSO_URL → plumb-required-sso-url), a
// valid object name, label value and host name.
func RequiredParamPlaceholder(name string) string {
	return "plumb-required-" + strings.ToLower(strings.ReplaceAll(name, "_", "-"))
}

func declaredNames(ps []*templateParam) string {
	if len(ps) == 0 {
		return "(none)"
	}
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.name
	}
	return strings.Join(names, ", ")
}

// scalarString prints a parameter value as oc reads it (always a string).
func scalarString(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	}
	return fmt.Sprint(v)
}

// jsonCompatible turns encoding/json numbers into plumb's value types
// (whole numbers are int64).
func jsonCompatible(v any) any {
	switch t := v.(type) {
	case float64:
		if t == float64(int64(t)) && t >= -1<<53 && t <= 1<<53 {
			return int64(t)
		}
		return t
	case map[string]any:
		for k, x := range t {
			t[k] = jsonCompatible(x)
		}
	case []any:
		for i, x := range t {
			t[i] = jsonCompatible(x)
		}
	}
	return v
}

// stripNamespace drops a hard-coded metadata.namespace (one without a
// parameter reference): oc process creates the objects in the namespace it
// is asked to.
func stripNamespace(m map[string]any) {
	md, ok := m["metadata"].(map[string]any)
	if !ok {
		return
	}
	ns, has := md["namespace"]
	if !has {
		return
	}
	if s, ok := ns.(string); ok && paramRefExp.MatchString(s) {
		return
	}
	delete(md, "namespace")
}

// addLabels adds the template's labels to an object's metadata.labels,
// replacing existing values, as oc does.
func addLabels(m map[string]any, labels map[string]string) {
	if len(labels) == 0 {
		return
	}
	md, ok := m["metadata"].(map[string]any)
	if !ok {
		md = map[string]any{}
		m["metadata"] = md
	}
	ls, ok := md["labels"].(map[string]any)
	if !ok {
		ls = map[string]any{}
		md["labels"] = ls
	}
	for k, v := range labels {
		ls[k] = v
	}
}

func deepCopyMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = deepCopy(v)
	}
	return out
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return deepCopyMap(t)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}

// templateOrigin is the provenance of a processed template object: its
// fields are the template's objects[i] fields (where the ${NAME} reference
// is written), and labels the template added point at the template's
// labels.
type templateOrigin struct {
	content   map[string]any // the processed object
	parent    *manifest.Object
	index     int
	labels    map[string]string
	labelKeys map[string]string
}

// Locate implements manifest.Provenance. A field absent from the
// processed object (a stripped namespace) is located at its nearest present
// ancestor.
func (o *templateOrigin) Locate(p manifest.Path) (manifest.Location, bool) {
	q, _ := manifest.PresentPrefix(o.content, p)
	loc, exact := o.locate(q)
	return loc, exact && len(q) == len(p)
}

func (o *templateOrigin) locate(p manifest.Path) (manifest.Location, bool) {
	if len(p) == 3 && p[0] == manifest.Key("metadata") && p[1] == manifest.Key("labels") && !p[2].IsIndex {
		if written, ok := o.labelKeys[p[2].Key]; ok {
			return o.parent.Locate(manifest.Path{manifest.Key("labels"), manifest.Key(written)})
		}
	}
	return o.parent.Locate(manifest.Path{manifest.Key("objects"), manifest.Index(o.index)}.Child(p...))
}

// valueKind names what a value is, for messages about the shape of a
// template.
func valueKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		return "a string"
	}
	return fmt.Sprintf("%v", v)
}

// templateParamKeys are the keys of an OpenShift Template parameter.
var templateParamKeys = []string{"name", "displayName", "description", "value", "generate", "from", "required"}

// unknownParamKeys names the keys of a parameter that are not parameter
// keys (a misspelt name), or "".
func unknownParamKeys(m map[string]any) string {
	var unknown []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(templateParamKeys, k) {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	if len(unknown) == 0 {
		return ""
	}
	return " (it has " + strings.Join(unknown, ", ") + ", which a parameter does not have)"
}
