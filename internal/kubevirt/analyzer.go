// Package kubevirt checks VirtualMachines against their KubeVirt template
// validation rules (the vm.kubevirt.io/validations annotation), as the
// template validator's admission webhook would when they are applied:
// rule sources in the validator's order, evaluation with the validator's
// semantics (package validation), and findings at the field to edit.
package kubevirt

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/kubevirt/validation"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/parallel"
)

// Analyzer is the KubeVirt validations engine.
type Analyzer struct {
	// Templates are Templates read from --kubevirt-templates directories,
	// looked up (after the rendered ones) as parents of VMs.
	Templates []*manifest.Object
	// Workers bounds parallel evaluation (default GOMAXPROCS).
	Workers int
}

// Name implements analyzer.Analyzer.
func (*Analyzer) Name() string { return "kubevirt" }

// vmItem is one VirtualMachine to check.
type vmItem struct {
	obj *manifest.Object
	// origin is the Template whose objects[] produced the VM.
	origin *manifest.Object
	src    ruleSource
	parsed *parsedAnnotation
}

// parsedAnnotation is an annotation text decoded and linted once, however
// many VMs carry it.
type parsedAnnotation struct {
	ann      *validation.Annotation
	problems []validation.Problem
}

func parseAnnotation(text string) *parsedAnnotation {
	ann := validation.ParseAnnotation(text)
	p := &parsedAnnotation{ann: ann}
	p.problems = append(append(p.problems, ann.Problems...), validation.Lint(ann.Rules)...)
	slices.SortStableFunc(p.problems, func(a, b validation.Problem) int { return a.Offset - b.Offset })
	return p
}

// annotationCache parses each annotation text once, whichever worker
// meets it first.
type annotationCache struct {
	m sync.Map // text → *onceParsed
}

type onceParsed struct {
	once sync.Once
	p    *parsedAnnotation
}

func (c *annotationCache) get(text string) *parsedAnnotation {
	v, ok := c.m.Load(text)
	if !ok {
		v, _ = c.m.LoadOrStore(text, &onceParsed{})
	}
	op := v.(*onceParsed)
	op.once.Do(func() { op.p = parseAnnotation(text) })
	return op.p
}

// vmOutcome is what checking one VM produced.
type vmOutcome struct {
	findings []finding.Finding
	report   VMReport
	// evaluated lists the rules evaluated, for the rule descriptors.
	evaluated []*validation.Rule
}

// Analyze implements analyzer.Analyzer.
func (a *Analyzer) Analyze(ctx context.Context, in *analyzer.Input) (*analyzer.Output, error) {
	templates := newTemplateIndex()
	rendered := renderedTemplates(in.Targets)
	for _, o := range rendered {
		templates.add(o)
	}
	for _, o := range a.Templates {
		templates.add(o)
	}

	out := &analyzer.Output{}
	// Each annotation text is parsed once, by whichever goroutine meets it
	// first.
	cache := &annotationCache{}

	// A Template's legacy annotation is linted once, where it is written:
	// every rendered Template, and each --kubevirt-templates one a VM uses.
	linted := map[*manifest.Object]bool{}
	// unevaluated are the Templates linted whose rules no VM was checked
	// against (their annotation text).
	unevaluated := map[*manifest.Object]string{}
	helps := &helpCache{}
	lintTemplate := func(o *manifest.Object) {
		if linted[o] {
			return
		}
		linted[o] = true
		raw, ok := rawAnnotation(o, TemplateAnnotationValidations)
		if !ok || raw == nil {
			return
		}
		src := ruleSource{Kind: SourceTemplate, Holder: o, Key: TemplateAnnotationValidations}
		text, isString := raw.(string)
		if !isString {
			out.Findings = append(out.Findings, notStringFinding(src))
			return
		}
		if text == "" {
			return
		}
		out.Findings = append(out.Findings, configFindings(src, text, cache.get(text).problems)...)
		unevaluated[o] = text
	}
	for _, o := range rendered {
		lintTemplate(o)
	}
	// The VMs of Templates that were not processed are linted where they
	// are written; they are evaluated once the render stage processes
	// their parameters.
	for _, vm := range unprocessedTemplateVMs(in.Targets) {
		src := resolveSource(vm, templates)
		if src.Kind != SourceVM {
			continue
		}
		if src.Invalid {
			out.Findings = append(out.Findings, notStringFinding(src))
			continue
		}
		p := cache.get(src.Text)
		out.Findings = append(out.Findings, configFindings(src, src.Text, p.problems)...)
		out.Findings = append(out.Findings, staticFindings(src, p.ann.Rules, helps)...)
	}

	items := collectVMs(in)
	for _, it := range items {
		it.src = resolveSource(it.obj, templates)
		if it.src.Holder == it.obj && it.origin != nil {
			it.src.Doc = it.origin.Doc
		}
		if it.src.Kind == SourceTemplate {
			lintTemplate(it.src.Holder)
		}
	}

	outcomes, err := a.checkAll(ctx, items, cache, helps)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if it.src.Kind == SourceTemplate {
			delete(unevaluated, it.src.Holder)
		}
	}
	for _, o := range rendered {
		if text, ok := unevaluated[o]; ok {
			src := ruleSource{Kind: SourceTemplate, Holder: o, Key: TemplateAnnotationValidations, Text: text}
			out.Findings = append(out.Findings, staticFindings(src, cache.get(text).ann.Rules, helps)...)
		}
	}
	section := &Section{VirtualMachines: make([]VMReport, 0, len(outcomes)), Summary: Summary{Outcomes: map[string]int{}}}
	n := len(out.Findings)
	for _, o := range outcomes {
		n += len(o.findings)
	}
	out.Findings = slices.Grow(out.Findings, n-len(out.Findings))
	var evaluated []*validation.Rule
	seenRules := map[*validation.Rule]bool{}
	for _, o := range outcomes {
		out.Findings = append(out.Findings, o.findings...)
		section.VirtualMachines = append(section.VirtualMachines, o.report)
		if len(o.evaluated) > 0 && !seenRules[o.evaluated[0]] {
			seenRules[o.evaluated[0]] = true
			evaluated = append(evaluated, o.evaluated...)
		}
		section.Summary.count(&o.report)
	}
	out.Section = section
	out.Rules = ruleDescriptors(evaluated)
	return out, nil
}

func (s *Summary) count(r *VMReport) {
	s.VirtualMachines++
	if len(r.Rules) == 0 && r.Allowed {
		return
	}
	s.WithRules++
	if r.Allowed {
		s.Allowed++
	} else {
		s.Rejected++
	}
	for _, rr := range r.Rules {
		s.Outcomes[rr.Outcome]++
	}
}

// collectVMs lists the VirtualMachines of every target in order, with the
// Template each processed one came from.
func collectVMs(in *analyzer.Input) []*vmItem {
	var items []*vmItem
	seen := map[*manifest.Object]*vmItem{}
	add := func(o, origin *manifest.Object) {
		if !isVirtualMachine(o) {
			return
		}
		if it := seen[o]; it != nil {
			if it.origin == nil {
				it.origin = origin
			}
			return
		}
		it := &vmItem{obj: o, origin: origin}
		seen[o] = it
		items = append(items, it)
	}
	for _, t := range in.Targets {
		for _, o := range t.Objects {
			add(o, nil)
		}
		for _, tm := range t.Templates {
			for _, o := range tm.Objects {
				add(o, tm.Object)
			}
		}
	}
	return items
}

// checkAll checks the VMs on all cores; outcomes keep the input order.
func (a *Analyzer) checkAll(ctx context.Context, items []*vmItem, cache *annotationCache, helps *helpCache) ([]vmOutcome, error) {
	outcomes := make([]vmOutcome, len(items))
	parallel.ForEach(a.Workers, len(items), func(i int) {
		if ctx.Err() != nil {
			return
		}
		it := items[i]
		if it.src.Text != "" {
			it.parsed = cache.get(it.src.Text)
		}
		outcomes[i] = checkVM(it, helps)
	})
	return outcomes, ctx.Err()
}

// checkVM applies the validator to one VM.
func checkVM(it *vmItem, helps *helpCache) (res vmOutcome) {
	o := it.obj
	loc, _ := o.Locate(nil)
	rep := VMReport{Object: o.ID, File: loc.File, Line: loc.Line, RuleSource: it.src.Kind, SourceTemplate: it.src.Template, Allowed: true}
	if it.origin != nil {
		rep.Template = objectKey(it.origin.ID)
	}
	// The report is final only when the function returns.
	defer func() { res.report = rep }()

	switch it.src.Kind {
	case SourceTemplateNotFound:
		res.findings = append(res.findings, templateNotFound(o, it.src.Template))
		return res
	case SourceNone, SourceSkip, SourceDeleting:
		return res
	}
	if it.src.Invalid {
		if it.src.Kind == SourceVM {
			res.findings = append(res.findings, notStringFinding(it.src))
		}
		rep.Allowed = false
		rep.Message = it.src.Key + " is not a string"
		return res
	}
	p := it.parsed
	if p == nil {
		return res // an empty or absent Template annotation: no rules
	}
	if it.src.Kind == SourceVM {
		res.findings = append(res.findings, configFindings(it.src, it.src.Text, p.problems)...)
	}
	reports := make([]indexedReport, 0, len(p.ann.Rules)+len(p.ann.Problems))
	for _, prob := range p.ann.Problems {
		if prob.Rule >= 0 {
			reports = append(reports, indexedReport{prob.Rule, RuleReport{Name: prob.Name, Outcome: "invalid", Detail: prob.Message}})
		}
	}
	if p.ann.Err != nil {
		rep.Allowed = false
		rep.Message = p.ann.Err.Error()
	}
	defer func() { rep.Rules = sortedReports(reports) }()
	if len(p.ann.Rules) == 0 {
		return res
	}

	vm, derr := decodeVM(o)
	if derr == nil && vm.Spec.Template == nil {
		derr = &decodeError{Path: manifest.Path{manifest.Key("spec")}, Message: "spec.template is missing: a VirtualMachine needs one, and the template validator's webhook crashes on a VM without it"}
	}
	if derr != nil {
		res.findings = append(res.findings, invalidVM(o, derr))
		rep.Allowed = false
		rep.Message = derr.Message
		return res
	}
	validation.DefaultCPU(vm)
	result := validation.Evaluate(p.ann.Rules, vm)
	if p.ann.Err == nil {
		rep.Allowed = result.Allowed
		rep.Message = result.Message()
	}
	c := &vmCheck{obj: o, src: it.src, vm: vm, helps: helps}
	res.evaluated = p.ann.Rules // shared by the VMs with this annotation
	for i := range result.Rules {
		rr := &result.Rules[i]
		reports = append(reports, indexedReport{rr.Rule.Index, ruleReport(rr)})
		if f := c.resultFinding(rr); f != nil {
			res.findings = append(res.findings, *f)
		}
	}
	return res
}

type indexedReport struct {
	index  int
	report RuleReport
}

func sortedReports(rs []indexedReport) []RuleReport {
	slices.SortStableFunc(rs, func(a, b indexedReport) int { return a.index - b.index })
	out := make([]RuleReport, len(rs))
	for i, r := range rs {
		out[i] = r.report
	}
	return out
}

func ruleReport(rr *validation.RuleResult) RuleReport {
	r := rr.Rule
	rep := RuleReport{Name: r.Name, Rule: r.Rule, Path: r.Path.Expr(), JustWarning: r.JustWarning, Outcome: string(rr.Outcome), Detail: rr.Detail}
	if rr.Err != nil {
		rep.Detail = rr.Err.Error()
	}
	return rep
}

func objectKey(id manifest.ObjectID) string {
	if id.Namespace == "" {
		return id.Name
	}
	return id.Namespace + "/" + id.Name
}

// templateNotFound notes that a parent Template's rules were not checked.
func templateNotFound(o *manifest.Object, ref string) finding.Finding {
	path := manifest.Path{manifest.Key("metadata"), manifest.Key("labels"), manifest.Key(KeyTemplate)}
	if _, ok := o.Labels()[KeyTemplate]; !ok {
		path = annotationPath(KeyTemplate)
	}
	loc, _ := o.Locate(path)
	f := finding.Finding{
		Source:   finding.SourceKubeVirt,
		RuleID:   RuleTemplateNotFound,
		Level:    finding.Note,
		Title:    "Parent Template not found",
		Message:  fmt.Sprintf("parent Template %s is not among the inputs, so its validation rules were not checked (the validator admits the VM in that case)", ref),
		Help:     "Add the Template to the checked paths, or pass the directory that holds it with `--kubevirt-templates DIR` (or `kubevirt.templates` in `.plumb.yaml`). A VM's own `vm.kubevirt.io/validations` annotation, when present, is used instead of its Template's rules.",
		Object:   o.ID,
		Path:     path,
		Location: loc,
	}
	f.SetFingerprint()
	return f
}

// invalidVM reports a VM that cannot be decoded.
func invalidVM(o *manifest.Object, d *decodeError) finding.Finding {
	loc, _ := o.Locate(d.Path)
	f := finding.Finding{
		Source:     finding.SourceKubeVirt,
		RuleID:     RuleInvalidVM,
		Level:      finding.Error,
		Title:      "Not a valid VirtualMachine",
		Message:    "cannot check the KubeVirt validation rules: " + d.Message,
		Help:       "The VirtualMachine must match the kubevirt.io/v1 schema for its validation rules to be checked; the API server refuses it as written.",
		Object:     o.ID,
		Path:       d.Path,
		Location:   loc,
		InputError: true,
	}
	f.SetFingerprint()
	return f
}

// ruleDescriptors describes every rule that was evaluated, by id: a
// warning when every definition of that name is justWarning.
func ruleDescriptors(evaluated []*validation.Rule) []finding.Rule {
	type agg struct {
		name        string
		justWarning bool
	}
	byID := map[string]*agg{}
	for _, r := range evaluated {
		id := ruleID(r)
		a := byID[id]
		if a == nil {
			a = &agg{name: r.Name, justWarning: true}
			byID[id] = a
		}
		a.justWarning = a.justWarning && r.JustWarning
	}
	out := []finding.Rule{
		{ID: RuleInvalidValidations, Name: "Invalid KubeVirt validation rules", Short: "A validations annotation or one of its rules does not parse or lint", Help: helpInvalidValidations, Level: finding.Error, Tags: []string{"kubevirt", "configuration"}},
		{ID: RuleInvalidVM, Name: "Not a valid VirtualMachine", Short: "A VirtualMachine with validation rules does not match the kubevirt.io/v1 schema", Level: finding.Error, Tags: []string{"kubevirt"}},
		{ID: RuleTemplateNotFound, Name: "Parent Template not found", Short: "The Template a VirtualMachine names is not among the inputs", Level: finding.Note, Tags: []string{"kubevirt"}},
	}
	for id, a := range byID {
		level := finding.Error
		if a.justWarning {
			level = finding.Warning
		}
		name := a.name
		if name == "" {
			name = id
		}
		out = append(out, finding.Rule{
			ID:    id,
			Name:  "KubeVirt validation " + name,
			Short: fmt.Sprintf("The VirtualMachine breaks the vm.kubevirt.io/validations rule %q", name),
			Full:  "A KubeVirt template validation rule (vm.kubevirt.io/validations on the VM, or the legacy validations annotation of its parent Template) that the template validator's admission webhook enforces.",
			Level: level,
			Tags:  []string{"kubevirt"},
		})
	}
	return finding.SortRules(out)
}
