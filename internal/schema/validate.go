package schema

import (
	"encoding/base64"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// problem is one schema violation in an object, before it is located.
type problem struct {
	rule string
	path manifest.Path
	// message says what is wrong and what to write instead.
	message string
	// atParent: the field is missing, so the finding points at the object
	// that should hold it.
	atParent bool
	// fix, when set, is the one edit that resolves the problem (fix.go).
	fix *finding.Fix
}

// maxProblems bounds the problems reported for one object: an object
// written against another kind's schema would otherwise list every field.
const maxProblems = 50

// walker validates one object's content against the built-in schema.
type walker struct {
	problems []problem
	path     manifest.Path
	// secret reports whether a path holds a secret value, which messages
	// must not quote.
	secret func(manifest.Path) bool
}

func (w *walker) report(rule string, atParent bool, format string, args ...any) {
	w.reportFix(nil, rule, atParent, format, args...)
}

// reportFix reports a problem that fx resolves (nil: none).
func (w *walker) reportFix(fx *finding.Fix, rule string, atParent bool, format string, args ...any) {
	if len(w.problems) >= maxProblems {
		return
	}
	w.problems = append(w.problems, problem{rule: rule, path: slices.Clone(w.path), message: fmt.Sprintf(format, args...), atParent: atParent, fix: fx})
}

// validateBuiltin checks an object's content against its kind's type. The
// status is not checked: the API server ignores it on create and apply.
func validateBuiltin(content map[string]any, root *apiType, secret func(manifest.Path) bool) []problem {
	w := &walker{secret: secret, path: make(manifest.Path, 0, 16)}
	w.object(content, root, true)
	return w.problems
}

// value checks v against t; f is the property that holds it (nil for list
// items and map values), for its enum.
func (w *walker) value(v any, t *apiType, enum *enumRule) {
	if v == nil || isPlaceholder(v) {
		// null: the field is left at its default, as the API decodes it.
		// A placeholder is a template's (a chart's, a file filled by a
		// script): what replaces it is not known.
		return
	}
	switch t.kind {
	case kindObject:
		m, ok := v.(map[string]any)
		if !ok {
			w.wrongType(v, "an object (a mapping of fields)")
			return
		}
		w.object(m, t, false)
	case kindFreeObject:
		if _, ok := v.(map[string]any); !ok {
			w.wrongType(v, "an object (a mapping)")
		}
	case kindMap:
		m, ok := v.(map[string]any)
		if !ok {
			w.wrongType(v, "a mapping")
			return
		}
		for _, k := range sortedKeys(m) {
			w.path = append(w.path, manifest.Key(k))
			w.value(m[k], t.elem, nil)
			w.path = w.path[:len(w.path)-1]
		}
	case kindArray:
		l, ok := v.([]any)
		if !ok {
			w.wrongType(v, "a list")
			return
		}
		var itemEnum *enumRule
		if enum != nil && enum.items {
			itemEnum = enum
		}
		for i, item := range l {
			w.path = append(w.path, manifest.Index(i))
			w.value(item, t.elem, itemEnum)
			w.path = w.path[:len(w.path)-1]
		}
	case kindString:
		s, ok := v.(string)
		if !ok {
			w.wrongType(v, "a string")
			return
		}
		if enum != nil && !enum.allows(s) {
			w.badEnum(s, enum)
		}
	case kindBytes:
		s, ok := v.(string)
		if !ok {
			w.wrongType(v, "a base64-encoded string")
			return
		}
		if _, err := base64.StdEncoding.DecodeString(strings.NewReplacer("\n", "", "\r", "").Replace(s)); err != nil {
			w.report(RuleInvalidValue, false, "%s is not base64-encoded: encode it (base64), or move it to stringData, which takes plain text", w.label())
		}
	case kindInteger:
		w.integer(v, false)
	case kindNumber:
		switch v.(type) {
		case int64, float64:
		default:
			w.wrongType(v, "a number")
		}
	case kindBoolean:
		if _, ok := v.(bool); !ok {
			w.wrongType(v, "true or false")
		}
	case kindIntOrString:
		w.integer(v, true)
	case kindQuantity:
		switch q := v.(type) {
		case int64, float64:
		case string:
			if _, err := resource.ParseQuantity(q); err != nil {
				w.badQuantity(q)
			}
		default:
			w.wrongType(v, "a quantity (a number, or a string such as 500m, 1.5, 256Mi)")
		}
	}
}

// integer checks that v is a whole number (2.0 is, as kubectl converts YAML
// to JSON) or, for int-or-string fields, a string.
func (w *walker) integer(v any, orString bool) {
	also := ""
	if orString {
		also = " or a string"
	}
	switch n := v.(type) {
	case int64:
		return
	case string:
		if orString {
			return
		}
	case float64:
		if n != math.Trunc(n) {
			w.wrongType(v, "a whole number"+also)
		}
		return
	}
	w.wrongType(v, "an integer"+also)
}

// isPlaceholder reports whether v is a template expression that a tool
// replaces before the object is applied: a string holding a {{ ... }}
// expression (Helm, Go templates) or a ${NAME} or ${{NAME}} variable
// (envsubst, OpenShift Template parameters), or a $NAME one. (An unquoted
// {{ ... }} does not get here: YAML reads it as a mapping key, and the
// loader reports the document.)
func isPlaceholder(v any) bool {
	s, ok := v.(string)
	return ok && isTemplateString(s)
}

// isTemplateString reports whether s holds a {{ ... }} expression or a
// ${NAME} variable, or is a $NAME variable.
func isTemplateString(s string) bool {
	if i := strings.Index(s, "{{"); i >= 0 && strings.Contains(s[i:], "}}") {
		return true
	}
	if strings.HasPrefix(s, "$") && isVariableName(s[1:]) {
		return true
	}
	for rest := s; ; {
		i := strings.Index(rest, "${")
		if i < 0 {
			return false
		}
		rest = rest[i+2:]
		end := strings.IndexByte(rest, '}')
		if end < 0 {
			return false
		}
		if isSubstitution(strings.Trim(rest[:end], "{")) {
			return true
		}
	}
}

// isSubstitution reports whether s, the text between "${" and "}", is a
// variable with an optional default or check: NAME, NAME:-default,
// NAME:=default, NAME-default, NAME:+alt, NAME:?message (the shell's forms,
// which Flux's post-build substitution and clusterctl's also read).
func isSubstitution(s string) bool {
	name, op := s, ""
	if i := strings.IndexAny(s, ":-=+?"); i >= 0 {
		name, op = s[:i], s[i:]
	}
	if !isVariableName(name) {
		return false
	}
	if op == "" {
		return true
	}
	op = strings.TrimPrefix(op, ":")
	return op != "" && strings.ContainsRune("-=+?", rune(op[0]))
}

// isVariableName reports whether s is a shell or Template parameter name.
func isVariableName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// object checks the fields of an object: each known one against its type,
// unknown ones (with the nearest known name), and required ones missing.
func (w *walker) object(m map[string]any, t *apiType, root bool) {
	var meant []string // the fields unknown ones were taken for
	for _, k := range sortedKeys(m) {
		if root && k == "status" {
			continue
		}
		w.path = append(w.path, manifest.Key(k))
		if f := t.props[k]; f != nil {
			w.value(m[k], f.typ, f.enum)
		} else if !t.preserveUnknown {
			meant = append(meant, w.unknownField(k, t, m))
		}
		w.path = w.path[:len(w.path)-1]
	}
	for _, r := range t.required {
		if _, ok := m[r]; !ok && !slices.Contains(meant, r) {
			w.path = append(w.path, manifest.Key(r))
			w.report(RuleRequired, true, "%s is missing the required field %q", typeLabel(t, w.path[:len(w.path)-1]), r)
			w.path = w.path[:len(w.path)-1]
		}
	}
}

// unknownField reports a field the type does not define (in m) and
// returns the field it was probably meant to be ("" when none is close): a
// required field it stands for is not reported missing as well.
func (w *walker) unknownField(k string, t *apiType, m map[string]any) string {
	owner := typeLabel(t, w.path[:len(w.path)-1])
	if s := suggest(k, t.propNames); s != "" {
		w.reportFix(renameFix(w.path, s, m), RuleUnknownField, false, "%s has no field %q: did you mean %q?", owner, k, s)
		return s
	}
	w.report(RuleUnknownField, false, "%s has no field %q: kubectl rejects unknown fields (other clients drop them silently); remove it or correct its name", owner, k)
	return ""
}

func (w *walker) wrongType(v any, want string) {
	label := w.label()
	got := describeValue(v)
	if s, ok := v.(string); ok && !w.secret(w.path) {
		switch {
		case strings.HasPrefix(want, "an integer") || strings.HasPrefix(want, "a whole number") || want == "a number":
			if fx := unquoteFix(w.path, s, want == "a number"); fx != nil {
				w.reportFix(fx, RuleWrongType, false, "%s must be %s, not the string %q: write %s without quotes", label, want, s, s)
				return
			}
		case want == "true or false":
			if s == "true" || s == "false" {
				w.reportFix(setFix(w.path, s == "true", "write "+s+" without quotes"), RuleWrongType, false, "%s must be %s, not the string %q: write %s without quotes", label, want, s, s)
				return
			}
		}
	}
	if want == "a string" {
		switch v.(type) {
		case int64, float64, bool:
			w.report(RuleWrongType, false, "%s must be a string, not %s: quote the value", label, got)
			return
		}
	}
	w.report(RuleWrongType, false, "%s must be %s, not %s", label, want, got)
}

func (w *walker) badEnum(s string, r *enumRule) {
	label := w.label()
	if w.secret(w.path) {
		w.report(RuleEnum, false, "%s must be one of %s", label, strings.Join(r.values, ", "))
		return
	}
	if c := r.caseMatch(s); c != "" {
		w.reportFix(setFix(w.path, c, "write "+c), RuleEnum, false, "%s %q is not accepted: did you mean %q? (values are case-sensitive)", label, s, c)
		return
	}
	if c := suggest(s, r.values); c != "" {
		w.report(RuleEnum, false, "%s %q is not accepted: did you mean %q? (one of %s)", label, s, c, strings.Join(r.values, ", "))
		return
	}
	w.report(RuleEnum, false, "%s %q is not accepted: use one of %s", label, s, strings.Join(r.values, ", "))
}

func (w *walker) badQuantity(q string) {
	label := w.label()
	if w.secret(w.path) {
		w.report(RuleInvalidQuantity, false, "%s is not a quantity (a number with an optional suffix such as m, k, M, Gi)", label)
		return
	}
	if hint := quantityHint(q); hint != "" {
		w.report(RuleInvalidQuantity, false, "%s %q is not a quantity: %s", label, q, hint)
		return
	}
	w.report(RuleInvalidQuantity, false, "%s %q is not a quantity: write a number with an optional suffix (m, k, M, G, T, Ki, Mi, Gi, Ti), e.g. 500m, 2, 1.5Gi", label, q)
}

// quantityHint suggests the quantity meant by a common mistake: a unit
// written the way people write bytes (1GB, 512mb), or with a space.
func quantityHint(q string) string {
	t := strings.ReplaceAll(strings.TrimSpace(q), " ", "")
	if _, err := resource.ParseQuantity(t); err == nil && t != q {
		return fmt.Sprintf("write %q without spaces", t)
	}
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return ""
	}
	num, unit := t[:i], t[i:]
	decimal := map[string]string{"kb": "k", "mb": "M", "gb": "G", "tb": "T", "pb": "P", "eb": "E"}
	binary := map[string]string{"kib": "Ki", "mib": "Mi", "gib": "Gi", "tib": "Ti", "pib": "Pi", "eib": "Ei", "ki": "Ki", "mi": "Mi", "gi": "Gi", "ti": "Ti", "pi": "Pi", "ei": "Ei"}
	lower := strings.ToLower(unit)
	if d, ok := decimal[lower]; ok {
		return fmt.Sprintf("did you mean %s%s (10^%d bytes) or %s%si (2^%d bytes)?", num, d, decimalPower(d), num, strings.ToUpper(d[:1]), binaryPower(d))
	}
	if b, ok := binary[lower]; ok {
		return fmt.Sprintf("did you mean %s%s?", num, b)
	}
	return ""
}

func decimalPower(unit string) int {
	return 3 * (strings.Index("kMGTPE", unit) + 1)
}

func binaryPower(unit string) int {
	return 10 * (strings.Index("KMGTPE", strings.ToUpper(unit)) + 1)
}

// label names the field at the walker's path for messages: its key, or
// its list's key and index.
func (w *walker) label() string {
	return fieldLabel(w.path)
}

func fieldLabel(p manifest.Path) string {
	if len(p) == 0 {
		return "the object"
	}
	last := p[len(p)-1]
	if !last.IsIndex {
		return last.Key
	}
	return fieldLabel(p[:len(p)-1]) + "[" + strconv.Itoa(last.Index) + "]"
}

// typeLabel names an object type for messages: the Go type's name for
// named types (Container, ServicePort), else the field that holds it.
func typeLabel(t *apiType, at manifest.Path) string {
	if t.name != "" {
		return t.name[strings.LastIndexByte(t.name, '.')+1:]
	}
	return fieldLabel(at)
}

// describeValue says what kind of value v is, for messages.
func describeValue(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("%T", v)
}

// sortedKeys lists m's keys in order, in a slice allocated once.
func sortedKeys(m map[string]any) []string {
	keys := slices.AppendSeq(make([]string, 0, len(m)), maps.Keys(m))
	slices.Sort(keys)
	return keys
}
