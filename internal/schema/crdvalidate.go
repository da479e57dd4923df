package schema

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// metaFields are the fields of every object's root (and of embedded
// resources) that the schema does not describe.
var metaFields = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// celRunner evaluates an object's CEL rules within their time budget; it
// returns nothing when the budget did not let them finish (the budget
// reports that).
type celRunner func(eval func(context.Context) field.ErrorList) field.ErrorList

// validate checks a custom resource as the API server does on create:
// defaults applied, unknown fields (pruning), metadata, the OpenAPI schema,
// embedded resources, list sets and maps, then the CEL rules (with the
// API server's cost budget, through run).
func (cv *crdVersion) validate(ctx context.Context, o *manifest.Object, secret func(manifest.Path) bool, run celRunner) []problem {
	if cv.structural == nil {
		return nil
	}
	if err := cv.compile(); err != nil {
		return []problem{{rule: RuleInvalidCRD, message: fmt.Sprintf("the schema of %s cannot be compiled: %v", cv.entry.name, err)}}
	}
	obj := runtime.DeepCopyJSON(o.Content)
	delete(obj, "status")
	// A null where the schema is not nullable is dropped, as the API
	// server's defaulter does before anything is validated: null means
	// unset.
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, cv.structural)
	w := &walker{secret: secret, path: make(manifest.Path, 0, 16)}
	if b, err := loadBuiltin(); err == nil && b.objectMeta != nil {
		if md, ok := obj["metadata"]; ok {
			w.path = append(w.path, manifest.Key("metadata"))
			w.value(md, b.objectMeta, nil)
			w.path = w.path[:0]
		}
	}
	if !cv.entry.preserveUnknown {
		w.unknownFields(obj, cv.structural, true)
	}
	if len(w.problems) > 0 && hasRule(w.problems, RuleWrongType) {
		return w.problems // the API server cannot decode it: nothing more to say
	}
	structuraldefaulting.Default(obj, cv.structural)
	if !cv.entry.preserveUnknown {
		pruning.Prune(obj, cv.structural, true)
	}

	errs := apiservervalidation.ValidateCustomResource(nil, obj, cv.validator)
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, obj, cv.structural, false)...)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, cv.structural, obj)...)
	if cv.cel != nil && len(errs) == 0 {
		celErrs := run(func(ctx context.Context) field.ErrorList {
			errs, _ := cv.cel.Validate(ctx, nil, cv.structural, obj, nil, celconfig.RuntimeCELCostBudget)
			return errs
		})
		for _, e := range celErrs {
			w.addUnlessPlaceholder(o.Content, celProblem(o.Content, e))
		}
	}
	for _, e := range objectLevelRepeats(errs) {
		w.addUnlessPlaceholder(o.Content, fieldProblem(o.Content, e))
	}
	redactSecrets(w.problems, o.Content)
	return w.problems
}

// checkedValueRE is kube-openapi's object-level report of a value's type
// or format, which names the field at its end: "Checked value must be of
// type integer (default format) in spec.replicas".
var checkedValueRE = regexp.MustCompile(`^Checked value must be of type .* in (\S+)$`)

// objectLevelRepeats drops the validator's own reports at the object's
// root (no field, shown at 1:1) that repeat an error already reported at a
// field — "Checked value must be of type integer … in spec.x" beside
// "spec.x must be of type integer", "\"spec.x\" must validate at least one
// schema (anyOf)" — and moves a "Checked value" report that stands alone
// to the field it names.
func objectLevelRepeats(errs field.ErrorList) field.ErrorList {
	atField := false
	for _, e := range errs {
		if !isRootField(e.Field) {
			atField = true
			break
		}
	}
	out := errs[:0:0]
	for _, e := range errs {
		if !isRootField(e.Field) {
			out = append(out, e)
			continue
		}
		m := checkedValueRE.FindStringSubmatch(e.Detail)
		switch {
		case m != nil && atField:
			continue
		case m != nil:
			moved := *e
			moved.Field = m[1]
			out = append(out, &moved)
		case atField && strings.Contains(e.Detail, " must validate "):
			continue
		default:
			out = append(out, e)
		}
	}
	return out
}

func isRootField(f string) bool { return f == "" || f == "<nil>" }

// redactSecrets hides in the messages of the API server's validation (which
// may quote a value, and a CEL rule's messageExpression any value) the
// values plumb never prints: those of manifest.SecretPaths and of keys
// that name a credential (spec.password), at any depth.
func redactSecrets(ps []problem, content map[string]any) {
	if len(ps) == 0 {
		return
	}
	values := manifest.CredentialValues(content)
	for _, p := range manifest.SecretPaths(content) {
		if v, ok := manifest.Lookup(content, p); ok {
			if s, ok := v.(string); ok {
				values = append(values, s)
			}
		}
	}
	// Longest first, so that a value is hidden whole before a shorter one
	// inside it; values of one or two characters would only garble the
	// message.
	slices.SortFunc(values, func(a, b string) int { return len(b) - len(a) })
	var pairs []string
	for _, v := range values {
		if len(v) > 2 {
			pairs = append(pairs, v, manifest.Redacted)
		}
	}
	if len(pairs) == 0 {
		return
	}
	r := strings.NewReplacer(pairs...)
	for i := range ps {
		ps[i].message = r.Replace(ps[i].message)
	}
}

// addUnlessPlaceholder adds p unless the value it is about is a template
// placeholder, which a tool replaces before the object is applied (as for
// built-in kinds).
func (w *walker) addUnlessPlaceholder(content map[string]any, p problem) {
	if !p.atParent {
		if v, ok := manifest.Lookup(content, p.path); ok && isPlaceholder(v) {
			return
		}
	}
	w.problems = append(w.problems, p)
}

func hasRule(ps []problem, rule string) bool {
	for _, p := range ps {
		if p.rule == rule {
			return true
		}
	}
	return false
}

// unknownFields reports the fields the structural schema does not define,
// as pruning would drop them (strict field validation rejects them).
func (w *walker) unknownFields(x any, s *structuralschema.Structural, root bool) {
	if s == nil {
		return
	}
	switch v := x.(type) {
	case map[string]any:
		names := make([]string, 0, len(s.Properties))
		for k := range s.Properties {
			names = append(names, k)
		}
		for _, k := range sortedKeys(v) {
			if (root || s.XEmbeddedResource) && metaFields[k] {
				continue
			}
			w.path = append(w.path, manifest.Key(k))
			if p, ok := s.Properties[k]; ok {
				w.unknownFields(v[k], &p, false)
			} else if s.AdditionalProperties != nil {
				w.unknownFields(v[k], s.AdditionalProperties.Structural, false)
			} else if !s.XPreserveUnknownFields {
				if sug := suggest(k, names); sug != "" {
					w.reportFix(renameFix(w.path, sug, v), RuleUnknownField, false, "%s has no field %q: did you mean %q?", fieldLabel(w.path[:len(w.path)-1]), k, sug)
				} else {
					w.report(RuleUnknownField, false, "%s has no field %q in the CustomResourceDefinition's schema: remove it or correct its name", fieldLabel(w.path[:len(w.path)-1]), k)
				}
			}
			w.path = w.path[:len(w.path)-1]
		}
	case []any:
		for i, item := range v {
			w.path = append(w.path, manifest.Index(i))
			w.unknownFields(item, s.Items, false)
			w.path = w.path[:len(w.path)-1]
		}
	}
}

// fieldProblem turns an error of the API server's validation into a
// problem at the field it names.
func fieldProblem(content map[string]any, e *field.Error) problem {
	p := resolveFieldPath(content, e.Field)
	label := fieldLabel(p)
	detail := cleanDetail(e.Detail, e.Field)
	switch e.Type {
	case field.ErrorTypeRequired:
		owner := fieldLabel(p.Parent())
		return problem{rule: RuleRequired, path: p, atParent: true,
			message: fmt.Sprintf("%s is missing the required field %q", owner, label)}
	case field.ErrorTypeNotSupported:
		return problem{rule: RuleEnum, path: p, message: fmt.Sprintf("%s: %s", label, notSupportedDetail(e))}
	case field.ErrorTypeTypeInvalid:
		want := detail
		if i := strings.Index(detail, "must be of type "); i >= 0 {
			want = strings.TrimSpace(strings.SplitN(detail[i+len("must be of type "):], ":", 2)[0])
		}
		v, _ := manifest.Lookup(content, p)
		return problem{rule: RuleWrongType, path: p, message: fmt.Sprintf("%s must be of type %s, not %s", label, want, describeValue(v))}
	}
	if detail == "" {
		detail = e.Type.String()
	}
	return problem{rule: RuleInvalidValue, path: p, message: fmt.Sprintf("%s: %s", label, detail)}
}

// celProblem is a failed x-kubernetes-validations rule: its message, at
// the field the rule (or its fieldPath) names.
func celProblem(content map[string]any, e *field.Error) problem {
	p := resolveFieldPath(content, e.Field)
	msg := e.Detail
	if msg == "" {
		msg = e.Error()
	}
	rule := RuleValidationRule
	if e.Type == field.ErrorTypeRequired {
		rule = RuleRequired
	}
	return problem{rule: rule, path: p, message: fmt.Sprintf("%s: %s", fieldLabel(p), msg)}
}

func notSupportedDetail(e *field.Error) string {
	body := e.ErrorBody()
	if s, ok := e.BadValue.(string); ok {
		return fmt.Sprintf("%q is not accepted%s", s, strings.TrimPrefix(body, fmt.Sprintf("Unsupported value: %q", s)))
	}
	return body
}

// cleanDetail drops the field path that kube-openapi's messages repeat
// ("spec.replicas in body should be ...").
func cleanDetail(detail, fieldPath string) string {
	for _, prefix := range []string{fieldPath + " in body ", strings.TrimPrefix(fieldPath, ".") + " in body ", "in body "} {
		if strings.HasPrefix(detail, prefix) {
			return strings.TrimPrefix(detail, prefix)
		}
	}
	return detail
}

// resolveFieldPath reads a field path as the API server prints it
// (spec.items[0].name, kube-openapi's spec.items.0.name, map keys in
// brackets, keys that contain dots) against the object's content.
func resolveFieldPath(content map[string]any, s string) manifest.Path {
	tokens := splitFieldPath(s)
	var p manifest.Path
	var cur any = content
	for i := 0; i < len(tokens); i++ {
		t := tokens[i]
		switch v := cur.(type) {
		case []any:
			if n, err := strconv.Atoi(t.text); err == nil && n >= 0 {
				p = append(p, manifest.Index(n))
				if n < len(v) {
					cur = v[n]
				} else {
					cur = nil
				}
				continue
			}
		case map[string]any:
			if !t.bracket {
				// The longest run of dotted tokens that is a key wins.
				key, used := t.text, 1
				for j := i + 1; j < len(tokens) && !tokens[j].bracket; j++ {
					if cand := joinTokens(tokens[i : j+1]); v[cand] != nil {
						key, used = cand, j-i+1
					}
				}
				p = append(p, manifest.Key(key))
				cur = v[key]
				i += used - 1
				continue
			}
			p = append(p, manifest.Key(t.text))
			cur = v[t.text]
			continue
		}
		p = append(p, manifest.Key(t.text))
		cur = nil
	}
	return p
}

type pathToken struct {
	text    string
	bracket bool
}

func joinTokens(ts []pathToken) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.text
	}
	return strings.Join(parts, ".")
}

func splitFieldPath(s string) []pathToken {
	var out []pathToken
	s = strings.TrimPrefix(s, "<nil>")
	for s != "" {
		switch s[0] {
		case '.':
			s = s[1:]
		case '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				out = append(out, pathToken{text: s[1:], bracket: true})
				return out
			}
			out = append(out, pathToken{text: s[1:end], bracket: true})
			s = s[end+1:]
		default:
			end := strings.IndexAny(s, ".[")
			if end < 0 {
				end = len(s)
			}
			out = append(out, pathToken{text: s[:end]})
			s = s[end:]
		}
	}
	return out
}
