package kubevirt

import (
	"errors"
	"fmt"
	"reflect"
	"regexp/syntax"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/plumb-ci/plumb/internal/finding"
	v1 "github.com/plumb-ci/plumb/internal/kubevirt/api/v1"
	"github.com/plumb-ci/plumb/internal/kubevirt/validation"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/re2"
)

// Rule ids of findings that are not about one validation rule.
const (
	// RuleInvalidValidations: an annotation or a rule in it that does not
	// decode (an error finding about the repository's content), or a rule
	// without a name (a warning). Rules the validator fails when it
	// evaluates them are kubevirt/<name> findings instead.
	RuleInvalidValidations = "kubevirt/invalid-validations"
	// RuleInvalidVM: a VirtualMachine that cannot be read as one (a field
	// of the wrong type, no spec.template): an input error.
	RuleInvalidVM = "kubevirt/invalid-virtualmachine"
	// RuleTemplateNotFound: the parent Template named by the VM is not
	// among the inputs, so its rules were not checked (a note).
	RuleTemplateNotFound = "kubevirt/template-not-found"
)

// ruleID is kubevirt/<rule name>; a rule without a name is known by its
// position (kubevirt/rule-2).
func ruleID(r *validation.Rule) string {
	if r.Name == "" {
		return fmt.Sprintf("kubevirt/rule-%d", r.Index+1)
	}
	return "kubevirt/" + r.Name
}

// ruleLabel names a rule in messages: rule 2 ("name").
func ruleLabel(index int, name string) string {
	if name == "" {
		return fmt.Sprintf("rule %d", index+1)
	}
	return fmt.Sprintf("rule %d (%q)", index+1, name)
}

// configFinding reports a problem with an annotation's text.
func configFinding(src ruleSource, text string, p validation.Problem) finding.Finding {
	what := src.Key
	var msg string
	if p.Rule < 0 {
		msg = fmt.Sprintf("%s is not a valid JSON list of rules: %s", what, p.Message)
	} else {
		msg = fmt.Sprintf("%s %s: %s", what, ruleLabel(p.Rule, p.Name), p.Message)
	}
	key := p.Kind
	if p.Rule >= 0 {
		key = fmt.Sprintf("%s:%d:%s", p.Kind, p.Rule, p.Name)
	}
	path := annotationPath(src.Key)
	f := finding.Finding{
		Source:     finding.SourceKubeVirt,
		RuleID:     RuleInvalidValidations,
		Level:      finding.Error,
		Title:      "Invalid KubeVirt validation rules",
		Message:    msg,
		Help:       helpInvalidValidations,
		Object:     src.Holder.ID,
		Path:       path,
		Location:   textLocation(src.Holder, src.Doc, path, text, p.Offset),
		InputError: true,
		Key:        key,
	}
	if p.Warning {
		f.Level, f.InputError = finding.Warning, false
	}
	f.SetFingerprint()
	return f
}

// configFindings reports an annotation's problems that are not the
// validator's own rule failures (those are reported per rule).
func configFindings(src ruleSource, text string, problems []validation.Problem) []finding.Finding {
	var out []finding.Finding
	for _, p := range problems {
		if !p.Evaluated() {
			out = append(out, configFinding(src, text, p))
		}
	}
	return out
}

// staticFindings reports, for rules that are not evaluated on any VM, the
// rules the validator fails whatever the VM holds: as it would fail them
// on every VM, as kubevirt/<name> errors at their definition.
func staticFindings(src ruleSource, rules []*validation.Rule, helps *helpCache) []finding.Finding {
	c := &vmCheck{obj: src.Holder, src: src, helps: helps}
	var out []finding.Finding
	for _, rr := range validation.StaticFailures(rules) {
		if f := c.resultFinding(&rr); f != nil {
			out = append(out, *f)
		}
	}
	return out
}

// notStringFinding reports an annotation that is not a string.
func notStringFinding(src ruleSource) finding.Finding {
	path := annotationPath(src.Key)
	loc, _ := src.Holder.Locate(path)
	f := finding.Finding{
		Source:     finding.SourceKubeVirt,
		RuleID:     RuleInvalidValidations,
		Level:      finding.Error,
		Title:      "Invalid KubeVirt validation rules",
		Message:    fmt.Sprintf("%s must be a string holding a JSON list of rules (write it as a `|` block); annotations are strings", src.Key),
		Help:       helpInvalidValidations,
		Object:     src.Holder.ID,
		Path:       path,
		Location:   loc,
		InputError: true,
		Key:        "not-a-string",
	}
	f.SetFingerprint()
	return f
}

// vmCheck holds what building the findings of one VM needs.
type vmCheck struct {
	obj   *manifest.Object
	src   ruleSource
	vm    *v1.VirtualMachine
	helps *helpCache
}

// ruleLocation is where a rule is defined.
func (c *vmCheck) ruleLocation(r *validation.Rule) manifest.Location {
	return textLocation(c.src.Holder, c.src.Doc, annotationPath(c.src.Key), c.src.Text, r.Offset)
}

// resultFinding turns a failed or unsatisfied rule into a finding; nil for
// a rule that passed, was skipped, or whose problem a configuration finding
// already reports.
func (c *vmCheck) resultFinding(rr *validation.RuleResult) *finding.Finding {
	r := rr.Rule
	switch rr.Outcome {
	case validation.Satisfied, validation.Skipped:
		return nil
	}
	level := finding.Error
	if rr.Outcome == validation.Unsatisfied && r.JustWarning {
		level = finding.Warning
	}
	defLoc := c.ruleLocation(r)
	f := &finding.Finding{
		Source:  finding.SourceKubeVirt,
		RuleID:  ruleID(r),
		Level:   level,
		Title:   "KubeVirt validation " + strings.TrimPrefix(ruleID(r), "kubevirt/"),
		Message: rr.Cause(),
		Object:  c.obj.ID,
	}
	offending := c.offendingPaths(rr)
	switch {
	case len(offending) > 0:
		f.Path = offending[0]
		f.Location, _ = c.obj.Locate(f.Path)
		for _, p := range offending[1:] {
			loc, _ := c.obj.Locate(p)
			f.Related = append(f.Related, finding.Related{Location: loc, Message: fmt.Sprintf("%s also breaks the rule", p)})
		}
	case rr.Stage == validation.StageCheck && !r.Path.IsSet():
		f.Path = annotationPath(c.src.Key)
		f.Location = defLoc
	case rr.Stage == validation.StageCheck || rr.Stage == validation.StageSpecialize || errors.Is(rr.Err, validation.ErrInvalidJSONPath):
		// The rule itself is at fault (its name, type, message or regex,
		// or a path that resolves nowhere): point at its definition.
		f.Path = staticPath(r.Path.Expr())
		f.Location = defLoc
	default:
		f.Path = staticPath(r.Path.Expr())
		f.Location, _ = c.obj.Locate(f.Path)
	}
	f.Related = append([]finding.Related{{Location: defLoc, Message: fmt.Sprintf("%s is defined in %s", ruleLabel(r.Index, r.Name), c.src.describe())}}, f.Related...)
	f.Help = c.help(rr)
	f.SetFingerprint()
	return f
}

// offendingPaths are the field paths of the values that broke the rule
// (for a type error, of the first value that does not convert). Values the
// VM does not have (taken from the reference VM) are reported at the path
// the rule names.
func (c *vmCheck) offendingPaths(rr *validation.RuleResult) []manifest.Path {
	var vals []reflect.Value
	switch {
	case rr.Outcome == validation.Unsatisfied:
		vals = rr.FailingValues()
	case rr.Stage == validation.StageApply && rr.Err != nil && len(rr.Values.List) > 0:
		for _, v := range rr.Values.List {
			if _, err := validation.ToInt64(v); err != nil {
				vals = append(vals, v)
				break
			}
		}
	}
	if len(vals) == 0 {
		return nil
	}
	if rr.Values.FromReference {
		return []manifest.Path{staticPath(rr.Rule.Path.Expr())}
	}
	var out []manifest.Path
	seen := map[string]bool{}
	for _, p := range fieldPaths(c.vm, vals, staticPath(rr.Rule.Path.Expr())) {
		if p == nil {
			p = staticPath(rr.Rule.Path.Expr())
		}
		if k := p.String(); !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

// helpCache caches help texts by rule, source and outcome for one run: VMs
// that share an annotation share its parsed rules, and the text depends on
// nothing else.
type helpCache struct{ m sync.Map } // helpKey → string

type helpKey struct {
	rule                *validation.Rule
	source, template    string
	outcome             validation.Outcome
	fromRef, quantities bool
}

// help explains the finding: where the rule is defined, what it asks, and
// what the validator does with it.
func (c *vmCheck) help(rr *validation.RuleResult) string {
	quantities := false
	if len(rr.Values.List) > 0 {
		t := rr.Values.List[0].Type()
		quantities = t == quantityType || t == quantityPtrType
	}
	k := helpKey{rr.Rule, c.src.Kind, c.src.Template, rr.Outcome, rr.Values.FromReference, quantities}
	if h, ok := c.helps.m.Load(k); ok {
		return h.(string)
	}
	h := c.buildHelp(rr, quantities)
	c.helps.m.Store(k, h)
	return h
}

func (c *vmCheck) buildHelp(rr *validation.RuleResult, quantities bool) string {
	r := rr.Rule
	var b strings.Builder
	fmt.Fprintf(&b, "The KubeVirt template validator checks this VM against rule `%s` from %s: ", r.Name, c.src.describe())
	fmt.Fprintf(&b, "rule type `%s` on `%s`", r.Rule, r.Path.Expr())
	if args := ruleArguments(r); args != "" {
		b.WriteString(" with " + args)
	}
	b.WriteString(" (paths are rooted at the VM's `spec.template`).\n\n")
	switch {
	case rr.Outcome == validation.Unsatisfied && r.JustWarning:
		b.WriteString("The rule is `justWarning`: the webhook admits the VM and only logs the violation.")
	case rr.Outcome == validation.Unsatisfied:
		b.WriteString("The cluster's admission webhook rejects the VM until the value satisfies the rule.")
	default:
		b.WriteString("The rule cannot be evaluated on this VM, and the webhook rejects a VM whose rule errors, even a `justWarning` one.")
		if hint := failureHint(rr); hint != "" {
			b.WriteString("\n\n" + hint)
		}
	}
	if rr.Values.FromReference {
		b.WriteString("\n\nThe VM does not set this field; the validator then reads the field's zero value.")
	}
	if hint := bytesHint(r, quantities); hint != "" {
		b.WriteString("\n\n" + hint)
	}
	return b.String()
}

func ruleArguments(r *validation.Rule) string {
	var parts []string
	for _, a := range []struct {
		name string
		v    *validation.IntOrPath
	}{{"min", r.Min}, {"max", r.Max}, {"minLength", r.MinLength}, {"maxLength", r.MaxLength}} {
		if a.v != nil {
			parts = append(parts, fmt.Sprintf("`%s: %s`", a.name, a.v))
		}
	}
	if r.Rule == validation.TypeEnum {
		vals := make([]string, len(r.Values))
		for i := range r.Values {
			vals[i] = r.Values[i].String()
		}
		parts = append(parts, fmt.Sprintf("`values: [%s]`", strings.Join(vals, ", ")))
	}
	if r.Rule == validation.TypeRegex {
		parts = append(parts, fmt.Sprintf("`regex: %s`", r.Regex))
	}
	return strings.Join(parts, ", ")
}

var quantityPtrType = reflect.TypeOf(&resource.Quantity{})

// bytesHint restates integer bounds on quantities in binary units.
func bytesHint(r *validation.Rule, quantities bool) string {
	if r.Rule != validation.TypeInteger || !quantities {
		return ""
	}
	var parts []string
	if r.Min != nil && r.Min.Path == nil {
		parts = append(parts, fmt.Sprintf("at least %d bytes (%s)", r.Min.Int, humanBytes(r.Min.Int)))
	}
	if r.Max != nil && r.Max.Path == nil {
		parts = append(parts, fmt.Sprintf("at most %d bytes (%s)", r.Max.Int, humanBytes(r.Max.Int)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "The rule wants " + strings.Join(parts, " and ") + "."
}

// humanBytes writes a byte count with the largest binary suffix that keeps
// it exact to one decimal (1610612736 is 1.5Gi).
func humanBytes(n int64) string {
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"Ti", 1 << 40}, {"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}} {
		if n >= u.size && (n*10)%u.size == 0 {
			if n%u.size == 0 {
				return fmt.Sprintf("%d%s", n/u.size, u.suffix)
			}
			return fmt.Sprintf("%d.%d%s", n/u.size, (n%u.size)*10/u.size, u.suffix)
		}
	}
	return fmt.Sprintf("%d", n)
}

const helpInvalidValidations = "The `vm.kubevirt.io/validations` annotation (and a Template's legacy `validations` annotation) " +
	"must hold a JSON list of rules, each with `name`, `rule` (integer, string, enum or regex), `path` " +
	"(`jsonpath::` followed by a Kubernetes JSONPath rooted at the VM's `spec.template`) and `message`; " +
	"`min`, `max`, `minLength`, `maxLength` are numbers or `jsonpath::` paths, `values` a list of strings, " +
	"`regex` a Go RE2 expression, `justWarning` a boolean. The template validator rejects every VM " +
	"whose rules do not decode, and fails rules with a duplicate name, an unknown type or no message."

// failureHint says how to fix a rule the validator fails before it looks
// at the VM.
func failureHint(rr *validation.RuleResult) string {
	r := rr.Rule
	var re *syntax.Error
	switch {
	case errors.Is(rr.Err, validation.ErrDuplicateName):
		return fmt.Sprintf("Another rule before it is named `%s`: names must be unique in the annotation (the first rule of that name is evaluated, every later one fails).", r.Name)
	case errors.Is(rr.Err, validation.ErrUnrecognizedRule) && r.Rule == "":
		return "The rule has no `rule` key: give its type, `integer`, `string`, `enum` or `regex`."
	case errors.Is(rr.Err, validation.ErrUnrecognizedRule):
		return fmt.Sprintf("`rule: %s` is not a type the validator knows: use `integer`, `string`, `enum` or `regex` (exact case). The validator fails the rule; it does not ignore it as the spec says.", r.Rule)
	case errors.Is(rr.Err, validation.ErrMissingRequiredKey) && r.Message == "":
		return "The rule has no `message`: the validator fails a rule without one."
	case errors.Is(rr.Err, validation.ErrMissingRequiredKey):
		return "The rule has no `path` (`jsonpath::` followed by a path rooted at the VM's `spec.template`): the validator's webhook crashes on it, so the cluster rejects the VM with \"failed calling webhook\"."
	case r.Rule == validation.TypeRegex && errors.As(rr.Err, &re):
		return fmt.Sprintf("The regex does not compile with Go's RE2 (the validator's engine, not PCRE).%s", re2.Hint(r.Regex))
	}
	return ""
}
