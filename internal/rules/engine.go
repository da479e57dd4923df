package rules

import (
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/parallel"
	"github.com/plumb-ci/plumb/internal/render"
)

// DefaultScopeAnnotation is the annotation that gives an object its scope.
const DefaultScopeAnnotation = "plumb-ci.github.io/scope"

// InspectionScopeAnnotation is the scope key of the inspection-rules
// mapping for manifests (research/inspection-rules.md §10.3), honoured when
// the object does not carry plumb's own (configured) key: rules written for
// other tools of that mapping scope objects the same way here.
const InspectionScopeAnnotation = "inspection.ci/scope"

// DefaultMaxLoopItems is the most items a loop may run over: far more than
// any real object has containers, ports or volumes, and few enough that a
// rule over a list blown up by mistake (or on purpose) stays fast.
const DefaultMaxLoopItems = 10_000

// Options configure an Engine (the rules: section of .plumb.yaml).
type Options struct {
	// Mask is mask_secrets (default always).
	Mask MaskMode
	// MaskKeys are mapping keys masked in addition to DefaultMaskedKeys.
	MaskKeys []string
	// DefaultScope is given to user rules without a scope (never to
	// built-in rules), as Ironic's [inspection_rules]default_scope.
	DefaultScope string
	// ObjectScope is the scope of objects without the scope annotation.
	ObjectScope string
	// ScopeAnnotation names the annotation holding an object's scope
	// (default DefaultScopeAnnotation).
	ScopeAnnotation string
	// Explain records, per object, every rule's condition results and
	// action arguments (plumb check --explain).
	Explain bool
	// Workers bounds parallelism (default GOMAXPROCS).
	Workers int
	// MaxLoopItems bounds the iterations of one loop (default
	// DefaultMaxLoopItems); a longer loop is a rule error.
	MaxLoopItems int
	// Env is the environment the checks are given by the user (--env,
	// checks.env), which rules read as inventory[env]: a rule that derives
	// a value can leave one the user set alone.
	Env map[string]any
	// Environments are doublestar patterns of render target names that
	// the configuration declares to be environments (checks.environments):
	// inventory[target][declared_environment] is true for them, and the
	// built-in rules name their environment and application whatever
	// their directory names are.
	Environments []string
}

// Engine runs a validated rule set.
type Engine struct {
	opts   Options
	set    *Set
	phases map[Phase][]*Rule
	masker *masker
}

// NewEngine prepares the rules of set: phases sorted by priority (higher
// first), then user rules before built-in ones, then load order.
func NewEngine(set *Set, opts Options) *Engine {
	if opts.Mask == "" {
		opts.Mask = MaskAlways
	}
	if opts.ScopeAnnotation == "" {
		opts.ScopeAnnotation = DefaultScopeAnnotation
	}
	if opts.MaxLoopItems <= 0 {
		opts.MaxLoopItems = DefaultMaxLoopItems
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	e := &Engine{opts: opts, set: set, phases: map[Phase][]*Rule{}, masker: newMasker(opts.MaskKeys)}
	for _, r := range set.Rules {
		e.phases[r.Phase] = append(e.phases[r.Phase], r)
	}
	for _, rules := range e.phases {
		slices.SortStableFunc(rules, compareRules)
	}
	return e
}

// compareRules is the running order (research §1.3, §10.2).
func compareRules(a, b *Rule) int {
	if a.Priority != b.Priority {
		return b.Priority - a.Priority
	}
	if a.BuiltIn != b.BuiltIn {
		if a.BuiltIn {
			return 1
		}
		return -1
	}
	return a.order - b.order
}

// Rules returns the rules of one phase in running order.
func (e *Engine) Rules(p Phase) []*Rule { return e.phases[p] }

// Set returns the engine's rule set.
func (e *Engine) Set() *Set { return e.set }

// ScopeOf is a rule's effective scope: its own, or default_scope for user
// rules.
func (e *Engine) ScopeOf(r *Rule) string {
	if r.Scope == "" && !r.BuiltIn {
		return e.opts.DefaultScope
	}
	return r.Scope
}

// objectScope reads the scope annotation of content (plumb's key, else
// the research's inspection.ci/scope), or the default.
func (e *Engine) objectScope(content map[string]any) string {
	md, _ := content["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	if s, ok := ann[e.opts.ScopeAnnotation].(string); ok && s != "" {
		return s
	}
	if s, ok := ann[InspectionScopeAnnotation].(string); ok && s != "" {
		return s
	}
	return e.opts.ObjectScope
}

// inScope: a rule without scope applies to everything; a scoped rule only
// to subjects of exactly that scope (Inspector's semantics).
func (e *Engine) inScope(r *Rule, s *subject) bool {
	rs := e.ScopeOf(r)
	return rs == "" || rs == s.scope
}

// Run is one run of the engine over one repository: the early phase on its
// source documents, then preprocess and main on its rendered objects.
type Run struct {
	e        *Engine
	docs     map[*manifest.Document]*subject
	docOrder []*subject
	// byFile finds the document an object without Doc (kustomize output)
	// was read from.
	byFile map[string][]*manifest.Document
	// objOrder are the subjects of the rendered objects, target by
	// target.
	objOrder []*subject
	targets  []*targetFacts
	// conflicts are plugin-data conflicts found when building the checks'
	// environment.
	conflicts []conflict
	env       map[string]map[string]any
	redact    *redactor
	redactMu  sync.Mutex
	ranPhases map[Phase]bool
	// budget counts what the run's actions write (budget.go).
	budget runBudget
	// mainFindings are the analyzers' findings while the main phase runs
	// (inventory[findings]), mainFindingIndex each object's among them
	// (read-only while the phase runs).
	mainFindings     []finding.Finding
	mainFindingIndex map[*subject][]int32
	// sealedMatches count the matches of the rules sealed (sealRules).
	sealedMatches matchCounts
	// finished is the report section Finish built; the records it was
	// built from are gone.
	finished *Section
}

// NewRun starts a run.
func (e *Engine) NewRun() *Run {
	return &Run{e: e, docs: map[*manifest.Document]*subject{}, byFile: map[string][]*manifest.Document{},
		ranPhases: map[Phase]bool{}}
}

// Engine returns the run's engine.
func (r *Run) Engine() *Engine { return r.e }

// Early runs the early rules on every source document. Documents are
// inspected whether or not early rules exist, so that later phases know
// each object's source.
func (r *Run) Early(docs []*manifest.Document) {
	r.ranPhases[PhaseEarly] = true
	for _, d := range docs {
		s := r.docSubject(d)
		r.docOrder = append(r.docOrder, s)
		r.byFile[d.File] = append(r.byFile[d.File], d)
	}
	rules := r.e.phases[PhaseEarly]
	if len(rules) == 0 {
		return
	}
	r.parallel(len(r.docOrder), func(i int) { r.e.runPhase(r.docOrder[i], PhaseEarly, rules) })
}

func (r *Run) docSubject(d *manifest.Document) *subject {
	if s := r.docs[d]; s != nil {
		return s
	}
	content, _ := d.Value.(map[string]any)
	s := &subject{run: r, doc: d, facts: &sourceFacts{doc: d}, pluginData: map[string]any{}}
	if content != nil {
		s.id = manifest.IDOf(content, "")
		s.scope = r.e.objectScope(content)
	} else {
		s.scope = r.e.opts.ObjectScope
	}
	r.docs[d] = s
	return s
}

// Preprocess runs the preprocess rules on every rendered object. An object
// a rule changes is replaced, in its target (and Template), by a new object
// with the changed content (the original and its content are left as they
// are: objects of one base are shared). Call it once, after Early.
func (r *Run) Preprocess(targets []*render.Target) {
	r.ranPhases[PhasePreprocess] = true
	r.collectObjects(targets)
	rules := r.e.phases[PhasePreprocess]
	if len(rules) > 0 {
		r.parallel(len(r.objOrder), func(i int) { r.e.runPhase(r.objOrder[i], PhasePreprocess, rules) })
	}
	r.replaceChanged()
	r.resetRedactor()
	r.buildEnv()
	r.sealRules()
	r.sharePluginData()
}

// collectObjects creates the subjects of the rendered objects.
func (r *Run) collectObjects(targets []*render.Target) {
	if r.objOrder != nil {
		return
	}
	for _, t := range targets {
		tf := newTargetFacts(t, r.e.declaredEnvironment(t.Name))
		r.targets = append(r.targets, tf)
		for i, o := range t.Objects {
			s := r.objectSubject(o, tf)
			s.index = int32(i)
			r.objOrder = append(r.objOrder, s)
		}
	}
}

func (r *Run) objectSubject(o *manifest.Object, tf *targetFacts) *subject {
	src := r.sourceOf(o)
	s := &subject{run: r, obj: o, doc: src.doc, target: tf, content: o.Content, id: o.ID,
		secret: manifest.IsSecret(o.Content), scope: r.e.objectScope(o.Content), facts: src.facts,
		rendered: &renderedFacts{run: r, obj: o}}
	// Plugin data and a stop set in the early phase carry over to every
	// object rendered from the document.
	s.pluginData, _ = deepCopy(src.pluginData).(map[string]any)
	if s.pluginData == nil {
		s.pluginData = map[string]any{}
	}
	s.stopped, s.stoppedBy = src.stopped, src.stoppedBy
	return s
}

// sourceOf finds the early-phase subject of an object's source document:
// the object's Doc, or the document of its file that starts at or before
// the object's position (kustomize output has no Doc).
func (r *Run) sourceOf(o *manifest.Object) *subject {
	if o.Doc != nil {
		if s := r.docs[o.Doc]; s != nil {
			return s
		}
		return r.docSubject(o.Doc)
	}
	loc, _ := o.Locate(nil)
	var best *manifest.Document
	for _, d := range r.byFile[loc.File] {
		if start := d.Start().Line; start <= loc.Line && (best == nil || start >= best.Start().Line) {
			best = d
		}
	}
	if best != nil {
		return r.docs[best]
	}
	return &subject{run: r, facts: &sourceFacts{loc: loc}, pluginData: map[string]any{}}
}

// replaceChanged swaps objects whose content a rule changed for new ones.
func (r *Run) replaceChanged() {
	replaced := map[*manifest.Object]*manifest.Object{}
	for _, s := range r.objOrder {
		if !s.owned || s.obj == nil {
			continue
		}
		old := s.obj
		nobj := &manifest.Object{
			ID:      manifest.IDOf(s.content, old.ID.Target),
			Content: s.content,
			Origin:  newRuleProvenance(old.Origin, s.setPaths()),
			Doc:     old.Doc,
			// Copies of Secret values stay secret where the rule left
			// them.
			SecretFields: old.SecretFields,
		}
		// A rule may rename the object; its name in the source stays.
		if w := old.WrittenName(); w != nobj.ID.Name {
			nobj.SourceName = w
		}
		s.obj, s.id = nobj, nobj.ID
		s.disown() // later writes (main phase) copy again
		replaced[old] = nobj
		s.target.t.Objects[s.index] = nobj
	}
	if len(replaced) == 0 {
		return
	}
	for _, tf := range r.targets {
		for _, tpl := range tf.t.Templates {
			if n, ok := replaced[tpl.Object]; ok {
				tpl.Object = n
			}
			for i, o := range tpl.Objects {
				if n, ok := replaced[o]; ok {
					tpl.Objects[i] = n
				}
			}
		}
	}
}

// parallel runs fn(0..n-1) on the engine's workers.
func (r *Run) parallel(n int, fn func(i int)) { parallel.ForEach(r.e.opts.Workers, n, fn) }

// runPhase runs a phase's rules on one subject, in order, until a fail or a
// rule error stops the subject.
func (e *Engine) runPhase(s *subject, phase Phase, rules []*Rule) {
	s.phase = phase
	// One evaluation context serves every rule of the phase: rules run one
	// after the other, and reusing it saves an allocation per rule.
	x := evalCtxPool.Get().(*evalCtx)
	x.e, x.s = e, s
	x.scratch = phaseScratch{maskedTrees: x.scratch.maskedTrees[:0]}
	s.scratch = &x.scratch
	defer func() {
		// The memo's buffer stays with the context, emptied.
		clear(x.scratch.maskedTrees)
		s.scratch, x.scratch = nil, phaseScratch{maskedTrees: x.scratch.maskedTrees[:0]}
		if s.maskedCopy {
			s.dropMasked()
		}
		// The scratch buffers stay with the context; nothing that refers
		// to the subject does.
		x.e, x.s, x.rule, x.item, x.lines = nil, nil, nil, nil, nil
		clear(x.argBuf[:cap(x.argBuf)])
		clear(x.listBuf[:cap(x.listBuf)])
		clear(x.lists[:cap(x.lists)])
		x.call = condCall{}
		evalCtxPool.Put(x)
	}()
	for _, rule := range rules {
		if s.stopped {
			if e.opts.Explain {
				s.explainf(0, "[STOPPED] %s phase: the remaining rules were not run (%s)", phase, s.stoppedBy)
			}
			return
		}
		e.runRule(x, rule, phase)
	}
}

// evalCtxPool reuses evaluation contexts and their scratch buffers from one
// subject to the next.
var evalCtxPool = sync.Pool{New: func() any { return new(evalCtx) }}

// runRule evaluates one rule's conditions and, when they all hold, runs its
// actions (Ironic: check, then apply, rule by rule).
func (e *Engine) runRule(x *evalCtx, r *Rule, phase Phase) {
	s := x.s
	explain := e.opts.Explain
	hidden := explain && r.Sensitive
	if !e.inScope(r, s) {
		if explain {
			s.explainf(0, "[SKIP] %s: scope %q does not apply to scope %q", e.ruleHeader(r, phase), e.ScopeOf(r), s.scope)
		}
		return
	}
	x.reset(r)
	if explain {
		x.explain = !r.Sensitive
		x.recording = true
	}
	for i, c := range r.Conditions {
		ok, err := x.condition(c, i)
		if err != nil {
			if explain {
				s.explainRule(e.ruleHeader(r, phase), "ERROR", hidden, x.lines)
			}
			s.ruleError(r, "condition", i, c.OpString(), c.Location, err)
			return
		}
		if !ok {
			if explain {
				s.explainRule(e.ruleHeader(r, phase), "SKIP", hidden, x.lines)
			}
			return
		}
	}
	s.matched(r, phase)
	for i, a := range r.Actions {
		err := x.action(a, i)
		if err == errStop {
			if explain {
				s.explainRule(e.ruleHeader(r, phase), "MATCH, FAIL", hidden, x.lines)
			}
			return
		}
		if err != nil {
			if explain {
				s.explainRule(e.ruleHeader(r, phase), "MATCH, ERROR", hidden, x.lines)
			}
			s.ruleError(r, "action", i, a.Op, a.Location, err)
			return
		}
	}
	x.reportUnresolved()
	if explain {
		s.explainRule(e.ruleHeader(r, phase), "MATCH", hidden, x.lines)
	}
}

func (e *Engine) ruleHeader(r *Rule, phase Phase) string {
	var b strings.Builder
	b.WriteString("rule ")
	b.WriteString(r.UUID)
	if r.Description != "" {
		b.WriteString(" \"")
		b.WriteString(r.Description)
		b.WriteString("\"")
	}
	b.WriteString(" (")
	b.WriteString(string(phase))
	b.WriteString(", priority ")
	b.WriteString(itoa(r.Priority))
	if r.BuiltIn {
		b.WriteString(", built-in")
	} else {
		b.WriteString(", ")
		b.WriteString(manifest.FormatLocation(r.Source))
	}
	b.WriteString(")")
	return b.String()
}
