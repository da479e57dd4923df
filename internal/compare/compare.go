package compare

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/value"
	"github.com/plumb-ci/plumb/internal/workflowcmd"
)

// Options configure one comparison.
type Options struct {
	// UserConfig holds manual correlation pairs (nil for none).
	UserConfig *UserConfig
	// Overrides are the user overrides to apply (nil for none).
	Overrides *Overrides
	// ShowManagedFields keeps metadata.managedFields (kubectl's differ drops
	// it otherwise).
	ShowManagedFields bool
	// Workers bounds parallelism (default GOMAXPROCS).
	Workers int
}

// Result is a finished comparison.
type Result struct {
	Ref *Reference
	// Compared are the inputs compared with a template, in input order.
	Compared []*Compared
	// Unmatched are the inputs no template correlated with, and those whose
	// templates failed, in input order.
	Unmatched []*Unmatched
	// Errors are the template failures met while comparing.
	Errors Problems
	// Counts is, per template, how many inputs it was matched with
	// (including inferred matches).
	Counts map[*Template]int
	// Inferred are templates counted as matched because an input refers to
	// their object (owner reference, RBAC subject); contents not validated.
	Inferred []*Template
	// Issues are the part/component validation issues (missing templates
	// and the like), by part and component in reference order.
	Issues []*Issue

	NumMissing, NumDiffCRs, TotalCRs, PatchedCRs int

	overrides     *Overrides
	overridesFile string
}

// Compared is one input compared with its best template.
type Compared struct {
	Object   *manifest.Object
	ID       identity
	Template *Template
	// Reference is the final rendered reference and Live the input, both
	// after omission, as they were diffed (before Secret masking).
	Reference, Live map[string]any
	// HasDiff reports a difference; Lines is the line diff of the masked
	// YAML texts (nil when there is none).
	HasDiff bool
	Lines   []diffLine
	// RefText and LiveText are the masked YAML texts diffed.
	RefText, LiveText string
	// Overrides are the overrides applied to the winning template.
	Overrides []*Override
	// Secret are fields secret beyond what SecretPaths finds on either
	// side: the input's copies of Secret values (Object.SecretFields) and
	// the reference's fields that hold an input secret (secretflow.go).
	Secret []manifest.Path
}

// Identity is kube-compare's identity string of the input.
func (c *Compared) Identity() string { return c.ID.String() }

// DiffOutput is the unified diff, kube-compare style: reference lines are
// "-", input lines "+"; "" when there is no difference.
func (c *Compared) DiffOutput() string {
	if !c.HasDiff {
		return ""
	}
	slug := diffSlug(c.ID)
	header := fmt.Sprintf("diff -u -N MERGED/%[1]s LIVE/%[1]s\n--- MERGED/%[1]s\n+++ LIVE/%[1]s\n", slug)
	return unifiedDiff(c.Lines, header)
}

// diffSlug is the file name kubectl's differ gives an object: the identity
// lower-cased with '/' and '.' turned into '-'.
func diffSlug(id identity) string {
	return strings.NewReplacer("/", "-", ".", "-").Replace(strings.ToLower(id.String()))
}

// Unmatched is an input without a template.
type Unmatched struct {
	Object *manifest.Object
	ID     identity
	// Err is set when a template failed on the input.
	Err error
}

// Issue is a part/component validation issue.
type Issue struct {
	Part      *Part
	Component *Component
	Msg       string
	Templates []*Template
	// Count is what the issue adds to NumMissing.
	Count int
	// Descriptions says whether the listed templates' descriptions are
	// shown (v1 missing and v2 allOf only).
	Descriptions bool
}

// Compare correlates every input object with the reference and compares
// it. Objects are not modified. Inputs with the same identity as an earlier
// one are ignored (the first wins), as in kube-compare.
func (ref *Reference) Compare(ctx context.Context, objects []*manifest.Object, opts Options) *Result {
	r := newRun(ref, objects, opts)
	results := make([]crResult, len(r.inputs))
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(1, len(r.inputs)))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(r.inputs) || ctx.Err() != nil {
					return
				}
				results[i] = r.process(r.inputs[i])
			}
		}()
	}
	wg.Wait()
	return r.aggregate(results)
}

// run is one comparison: the templates cloned with lookup functions that
// see this run's inputs.
type run struct {
	ref    *Reference
	opts   Options
	inputs []*manifest.Object
	tmpls  []*boundedTemplate
	// regexps caches the inline regexps compiled during the run (the
	// rendered patterns are usually the same for every input).
	regexps regexpCache
}

func newRun(ref *Reference, objects []*manifest.Object, opts Options) *run {
	r := &run{ref: ref, opts: opts}
	seen := map[string]bool{}
	lookups := &lookupFuncs{}
	for _, o := range objects {
		if o == nil || o.Content == nil {
			continue
		}
		key := identityOf(o.Content).String()
		if seen[key] {
			continue
		}
		seen[key] = true
		r.inputs = append(r.inputs, o)
		lookups.inputs = append(lookups.inputs, o.Content)
	}
	var funcs template.FuncMap // the lookups over this run's inputs
	r.tmpls = make([]*boundedTemplate, len(ref.Templates))
	for i, t := range ref.Templates {
		if !t.lookups || t.run == nil {
			r.tmpls[i] = t.runExec // nil for a template that did not parse; process reports it
			continue
		}
		c, err := t.run.Clone()
		if err != nil {
			continue // cannot happen for a parsed template; process reports it
		}
		if funcs == nil {
			all := funcMap(lookups, false)
			funcs = template.FuncMap{"lookupCRs": all["lookupCRs"], "lookupCR": all["lookupCR"]}
		}
		r.tmpls[i] = bounded(c.Funcs(funcs))
	}
	return r
}

// crResult is what processing one input produced.
type crResult struct {
	compared  *Compared
	unmatched *Unmatched
	err       *Problem
}

// candidate is one template evaluated for an input.
type candidate struct {
	t         *Template
	rendered  map[string]any
	live      map[string]any
	equal     bool
	overrides []*Override
	refText   string
	liveText  string
	// secret: Compared.Secret.
	secret []manifest.Path
}

func (r *run) process(obj *manifest.Object) crResult {
	id := identityOf(obj.Content)
	var cands []*Template
	if r.opts.UserConfig != nil {
		if p, ok := r.opts.UserConfig.CorrelationPairs[id.String()]; ok {
			cands = []*Template{r.ref.byPath[p]}
		}
	}
	if cands == nil {
		for _, i := range r.ref.index.candidates(id) {
			cands = append(cands, r.ref.Templates[i])
		}
	}
	if len(cands) == 0 {
		return crResult{unmatched: &Unmatched{Object: obj, ID: id}}
	}
	overrides := r.opts.Overrides.forCR(id)
	var evaluated []*candidate
	for _, t := range cands {
		c, err := r.evaluate(obj, t, overrides)
		if err != nil {
			if _, skip := isDoNotMatch(err); skip {
				continue
			}
			p := r.templateProblem(obj, id, t, err)
			return crResult{unmatched: &Unmatched{Object: obj, ID: id, Err: p}, err: &p}
		}
		evaluated = append(evaluated, c)
	}
	if len(evaluated) == 0 {
		return crResult{} // every candidate declined with doNotMatch: skipped
	}
	best := r.best(evaluated)
	cmp := &Compared{Object: obj, ID: id, Template: best.t, Reference: best.rendered, Live: best.live, Overrides: best.overrides,
		Secret: best.secret}
	if !best.equal {
		if best.refText == "" && best.liveText == "" {
			best.refText, best.liveText = maskedTexts(best.rendered, best.live, best.secret)
		}
		if best.refText != best.liveText {
			cmp.HasDiff = true
			cmp.RefText, cmp.LiveText = best.refText, best.liveText
			cmp.Lines = lineDiff(best.refText, best.liveText)
		}
	}
	return crResult{compared: cmp}
}

// evaluate renders one template for an input and prepares both sides for
// the diff (kube-compare's per-pair pipeline, research §4.1).
func (r *run) evaluate(obj *manifest.Object, t *Template, overrides []*Override) (*candidate, error) {
	tmpl := r.tmpls[t.order]
	if tmpl == nil {
		return nil, fmt.Errorf("template %s could not be prepared", t.Path)
	}
	// live shares unchanged subtrees with the input: it is read-only from
	// here on (templates that could change their data get a copy).
	live := omitted(obj.Content, t.omit)
	if !r.opts.ShowManagedFields {
		live, _ = withoutPath(live, managedFieldsPath, false, false)
	}
	data := live
	if t.mutatesData {
		data = copyMap(live)
	}
	rendered, _, err := renderTemplate(tmpl, data, t.Path)
	if err != nil {
		return nil, redactInputSecrets(err, obj)
	}
	if t.Config.IgnoreUnspecifiedFields {
		rendered = mergeOnto(live, rendered)
	}
	c := &candidate{t: t, live: live, secret: slices.Clone(obj.SecretFields)}
	for _, ov := range overrides {
		if ov.TemplatePath != "" && ov.TemplatePath != t.Path {
			continue
		}
		if rendered, err = ov.apply(rendered, live); err != nil {
			return nil, fmt.Errorf("user override (%s line %d): %w", r.opts.Overrides.File, ov.Line, err)
		}
		c.overrides = append(c.overrides, ov)
	}
	if err := applyInline(t.perField, rendered, live, &r.regexps); err != nil {
		return nil, err
	}
	omitFields(rendered, t.omit)
	if !r.opts.ShowManagedFields {
		dropManagedFields(rendered)
	}
	c.rendered = rendered
	c.secret = append(c.secret, fieldsHoldingInputSecrets(rendered, obj)...)
	c.equal = value.Equal(rendered, live)
	return c, nil
}

var managedFieldsPath = []string{"metadata", "managedFields"}

func dropManagedFields(obj map[string]any) {
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
}

// best picks the candidate with the smallest character diff; ties go to
// the earliest in reference order.
func (r *run) best(cs []*candidate) *candidate {
	if len(cs) == 1 {
		return cs[0]
	}
	for _, c := range cs {
		if c.equal {
			return c
		}
	}
	best, bestScore := cs[0], -1
	for _, c := range cs {
		c.refText, c.liveText = maskedTexts(c.rendered, c.live, c.secret)
		if s := diffScore(c.refText, c.liveText); bestScore < 0 || s < bestScore {
			best, bestScore = c, s
		}
	}
	return best
}

// templateProblem describes a template failure on an input. The rendered
// text is shown only when the input holds no secret value.
func (r *run) templateProblem(obj *manifest.Object, id identity, t *Template, err error) Problem {
	msg := err.Error()
	if ny, ok := err.(*notYAMLError); ok && len(manifest.ObjectSecretPaths(obj)) == 0 {
		msg = ny.withOutput()
	}
	where := id.String()
	if l, _ := obj.Locate(nil); l.File != "" {
		where += " (" + manifest.FormatLocation(l) + ")"
	}
	return Problem{Location: loc(t.File, t.errorLine(err)),
		Message: fmt.Sprintf("template injection failed: %s on %s: %s", t.Path, where, msg)}
}

// maskedTexts prints both sides as YAML, with secret values masked.
func maskedTexts(reference, live map[string]any, extra []manifest.Path) (string, string) {
	if paths := append(secretPaths(reference, live), extra...); len(paths) > 0 {
		reference, live = maskSecrets(reference, live, paths)
	}
	ref, in := kubectlYAML(reference), kubectlYAML(live)
	if workflowcmd.HasCommandLine(ref) || workflowcmd.HasCommandLine(in) {
		// Both sides in the same layout, or every line would differ.
		safeRef, errRef := workflowcmd.SafeYAML(reference)
		safeIn, errIn := workflowcmd.SafeYAML(live)
		if errRef == nil && errIn == nil {
			return safeRef, safeIn
		}
	}
	return ref, in
}

// secretPaths are the fields whose values are secret on either side
// (manifest.SecretPaths: a Secret's values, a ConfigMap's credential keys,
// credential environment variables, the last-applied annotation).
func secretPaths(reference, live map[string]any) []manifest.Path {
	return append(manifest.SecretPaths(reference), manifest.SecretPaths(live)...)
}

// Secret masks, as kubectl's differ prints them.
const (
	maskSame   = "***"
	maskBefore = "*** (before)"
	maskAfter  = "*** (after)"
)

// maskSecrets replaces secret values as kubectl diff does: equal values
// become "***"; a field whose values differ becomes "*** (before)" on the
// input side and "*** (after)" on the reference side, so the diff shows
// that it changed but not how.
func maskSecrets(reference, live map[string]any, paths []manifest.Path) (map[string]any, map[string]any) {
	var same, changed []manifest.Path
	for _, p := range paths {
		rv, inRef := manifest.Lookup(reference, p)
		lv, inLive := manifest.Lookup(live, p)
		if inRef && inLive && !value.Equal(rv, lv) {
			changed = append(changed, p)
		} else {
			same = append(same, p)
		}
	}
	ref := manifest.MaskPaths(manifest.MaskPaths(reference, same, maskSame), changed, maskAfter)
	in := manifest.MaskPaths(manifest.MaskPaths(live, same, maskSame), changed, maskBefore)
	return ref, in
}
