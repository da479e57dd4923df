// Package pipeline runs plumb's stages in order — load, render, analyze,
// report — and decides the exit code. Data flows one way: each stage takes
// the previous stage's value and returns a new one.
package pipeline

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"time"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/checks"
	"github.com/plumb-ci/plumb/internal/compare"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/fix"
	"github.com/plumb-ci/plumb/internal/hygiene"
	"github.com/plumb-ci/plumb/internal/kubevirt"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/policy"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/internal/report"
	"github.com/plumb-ci/plumb/internal/rules"
	"github.com/plumb-ci/plumb/internal/schema"
	"github.com/plumb-ci/plumb/internal/source"
)

// Version is the program version, set by the linker in release builds.
var Version = "dev"

// Exit codes (DESIGN.md).
const (
	ExitOK       = 0
	ExitFindings = 1
	ExitError    = 2
)

// Rendered is the outcome of the load and render stages.
type Rendered struct {
	// fetcher fetched the remote charts of the render (nil: none may be).
	fetcher *source.Fetcher
	// FS is the repository the inputs were read from.
	FS     fs.FS
	Set    *manifest.Set
	Render *render.Result
	// Findings are the problems met while loading and rendering, and what
	// the early and preprocess inspection rules reported.
	Findings []finding.Finding
	// Rules is the inspection-rules run: early and preprocess are done.
	Rules *rules.Run
	// Warnings are problems of plumb's own that did not stop the run (a
	// cache directory that cannot be used).
	Warnings []string
	// store is the persistent cache the revision was rendered with (nil
	// when off); its analyses use it too.
	store *cache.Store
	// analysisKey is the run's analysisConfigKey, computed once (it reads
	// the rules files, catalogs and reference); nil when the cache is off
	// or the configuration cannot be keyed.
	analysisKey *cache.Key
	// revision is the key of the revision's findings in store
	// (revisionKey); zero when they are not cached.
	revision cache.Key
	// baseTargets are, for the head of a pull request, the base
	// revision's render targets (analyzer.Input.Base).
	baseTargets []*render.Target
	// reuseAnalysis takes the revision's findings from store when they
	// are there, instead of analysing it (a pull request's base).
	reuseAnalysis bool
}

// Skipped lists what the load and render stages did not read as objects.
func (r *Rendered) Skipped() []manifest.Skipped {
	out := append(slices.Clone(r.Set.Skipped), r.Render.Skipped...)
	manifest.SortSkipped(out)
	return out
}

// Load reads and renders the configured inputs from the working tree.
func Load(ctx context.Context, cfg *config.Config) (*Rendered, error) {
	defer runGC(1)()
	store, warning := openCache(cfg)
	out, err := load(ctx, cfg, store)
	if err != nil {
		closeCache(store) // what the run wrote stays usable
		return nil, err
	}
	out.Warnings = appendWarning(appendWarning(out.Warnings, warning), closeCache(store))
	return out, nil
}

// load reads and renders the working tree with the given cache.
func load(ctx context.Context, cfg *config.Config, store *cache.Store) (*Rendered, error) {
	fsys, err := repoFS(cfg.Root)
	if err != nil {
		return nil, err
	}
	engine, ruleProblems, err := RulesEngine(cfg)
	if err != nil {
		return nil, err
	}
	fetcher, warning := newFetcher(cfg, cfg.Remote.Hosts, store)
	out := loadFS(ctx, cfg, fsys, shared{store: store, fetcher: fetcher}, engine)
	out.fetcher = fetcher
	out.Warnings = appendWarning(out.Warnings, warning)
	out.analysisKey = runAnalysisKey(cfg, store)
	out.revision, _ = revisionKey(cfg, out, len(ruleProblems) == 0)
	out.Findings = append(out.Findings, ruleProblems...)
	return out, nil
}

// appendWarning adds a warning when there is one.
func appendWarning(ws []string, w string) []string {
	if w == "" {
		return ws
	}
	return append(ws, w)
}

// shared is the work two revisions' loads share in pull-request mode:
// files the pull request does not change are parsed once, and targets
// whose build reads only such files are built once. Empty otherwise, but
// for the persistent cache (every run's).
type shared struct {
	parses *manifest.ParseCache
	builds *render.BuildCache
	store  *cache.Store
	// fetcher fetches remote charts for both revisions, from one index
	// per repository, so both resolve a version constraint alike.
	fetcher *source.Fetcher
}

// loadFS reads and renders the configured inputs from fsys (the working
// tree, or a git revision in pull-request mode), sharing work with the
// other revision's load through share, and runs the early and preprocess
// inspection rules. With --shard, only the shard's render targets are
// rendered.
func loadFS(ctx context.Context, cfg *config.Config, fsys fs.FS, share shared, engine *rules.Engine) *Rendered {
	set := manifest.Load(fsys, cfg.Paths, manifest.LoadOptions{Limits: cfg.Limits, Exclude: cfg.Exclude, Include: cfg.Include, Cache: share.parses,
		Digests: share.store != nil})
	run := engine.NewRun()
	run.Early(set.Documents)
	opts := renderOptions(cfg)
	opts.Select = cfg.Shard.Owns
	opts.Builds = share.builds
	opts.Cache = share.store
	opts.Fetcher = share.fetcher
	if cfg.ChangedOnly {
		opts.Changed = map[string]bool{}
		for _, f := range cfg.Changed {
			opts.Changed[f] = true
		}
	}
	res := render.Render(ctx, fsys, set, opts)
	if cfg.Shard.Enabled() {
		res.Targets = slices.DeleteFunc(res.Targets, func(t *render.Target) bool { return !cfg.Shard.Owns(t.Name) })
	}
	if testHookRendered != nil {
		testHookRendered(res)
	}
	run.Preprocess(res.Targets)
	out := &Rendered{FS: fsys, Set: set, Render: res, Rules: run, store: share.store}
	for _, p := range set.Problems {
		if f := p.Location.File; res.Reads != nil && f != "" && !res.Reads[f] && !opts.Changed[f] {
			continue // --changed: a file neither changed nor read by an affected target
		}
		out.Findings = append(out.Findings, hygiene.FromProblem(p))
	}
	for _, p := range res.Problems {
		f := hygiene.FromProblem(p)
		render.Describe(&f)
		out.Findings = append(out.Findings, f)
	}
	out.Findings = append(out.Findings, run.TakeFindings(rules.PhaseEarly, rules.PhasePreprocess)...)
	return out
}

// testHookRendered, when set (by tests), sees every render's result before
// the preprocess rules run.
var testHookRendered func(*render.Result)

// renderOptions carries the rendering configuration to the render stage.
func renderOptions(cfg *config.Config) render.Options {
	opts := render.Options{
		Limits:      cfg.Limits,
		AllowRemote: cfg.Render.AllowRemote,
		Params:      render.TemplateParams{Global: cfg.Render.Params, PerTemplate: cfg.Render.TemplateParams},
	}
	if cfg.File != "" && (len(cfg.Render.TemplateParams) > 0 || len(cfg.Render.Targets) > 0 || len(cfg.Render.ParamLocations) > 0) {
		opts.ParamsAt = manifest.Location{File: cfg.File}
	}
	opts.ParamLocations, opts.TemplateParamLocations = cfg.Render.ParamLocations, cfg.Render.TemplateParamLocations
	for _, t := range cfg.Render.Targets {
		opts.Targets = append(opts.Targets, render.TargetSpec{Pattern: t.Pattern,
			At: manifest.Location{File: cfg.File, Line: t.Line, Column: t.Column}})
	}
	opts.Helm = helmOptions(cfg)
	return opts
}

// helmOptions carries the Helm configuration to the render stage.
func helmOptions(cfg *config.Config) render.HelmOptions {
	h := cfg.Helm
	o := render.HelmOptions{ValuesConvention: h.ValuesConvention, ValuesFiles: h.ValuesFiles, Set: h.Set, SetString: h.SetString,
		ReleaseName: h.ReleaseName, Namespace: h.Namespace, KubeVersion: cfg.KubernetesVersion.String()}
	// .Capabilities.APIVersions: what the embedded schema serves.
	if served, err := schema.APIVersions(); err == nil {
		o.ServedAPIVersions = served
	}
	for _, t := range h.Targets {
		ht := render.HelmTarget{Chart: t.Chart, Name: t.Name, ReleaseName: t.ReleaseName, Namespace: t.Namespace,
			Values: t.Values, Set: t.Set, SetString: t.SetString, APIVersions: t.APIVersions,
			At: manifest.Location{File: cfg.File, Line: t.Line, Column: t.Column}}
		if t.KubernetesVersion != "" {
			if v, err := config.ParseKubernetesVersion(t.KubernetesVersion); err == nil {
				ht.KubeVersion = v.String()
			}
		}
		o.Targets = append(o.Targets, ht)
	}
	return o
}

// repoFS opens the repository's content: no path, symlinks included, can
// lead outside the root or into .git (manifest.ContentFS).
func repoFS(root string) (fs.FS, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("opening the repository root: %w", err)
	}
	return manifest.ContentFS(r.FS()), nil
}

// Analyzers builds the engines configured for a run, in report order.
// Problems with an engine's own configuration (a catalog that does not lint,
// a reference that does not load) come back as ConfigError findings (exit
// 2); the other engines still run.
func Analyzers(_ context.Context, cfg *config.Config, fsys fs.FS) ([]analyzer.Analyzer, []finding.Finding) {
	engines := []analyzer.Analyzer{hygiene.Analyzer{}}
	var setup []finding.Finding
	templates, problems := kubevirt.LoadTemplates(cfg.KubeVirt.TemplateDirs, cfg.Limits)
	setup = append(setup, hygiene.FromProblems(problems)...)
	engines = append(engines, &kubevirt.Analyzer{Templates: templates})
	if cfg.Schema.Enabled {
		repoCRDs, problems := loadCRDs(cfg, false)
		setup = append(setup, problems...)
		workflowCRDs, problems := loadCRDs(cfg, true)
		setup = append(setup, problems...)
		engines = append(engines, &schema.Analyzer{KubernetesMinor: cfg.Schema.KubernetesVersion.Minor,
			SkipKinds: cfg.Schema.SkipKinds, CRDs: repoCRDs, WorkflowCRDs: workflowCRDs, MaxTargetTime: cfg.Limits.OrDefault().MaxTargetTime,
			RepositoryCRDs: repositoryCRDs(cfg, fsys)})
	}
	workflowPolicies, policyProblems := loadPolicies(cfg, true)
	setup = append(setup, policyProblems...)
	repoPolicies, policyProblems := loadPolicies(cfg, false)
	setup = append(setup, policyProblems...)
	engines = append(engines, &policy.Analyzer{WorkflowPolicies: workflowPolicies, Policies: repoPolicies})
	checksEngine, checkProblems := checks.New(cfg.Checks, cfg.File)
	setup = append(setup, checkProblems...)
	engines = append(engines, checksEngine)
	if r := cfg.Reference; r.Path != "" {
		a, fs := compare.NewAnalyzer(compare.Setup{Reference: r.Path, ReferenceDisplay: r.Display,
			DiffConfig: r.DiffConfig, DiffConfigDisplay: r.DiffConfigDisplay,
			Overrides: r.Overrides, OverridesDisplay: r.OverridesDisplay, Targets: r.Targets})
		setup = append(setup, fs...)
		engines = append(engines, a)
	}
	return engines, setup
}

// loadCRDs reads the CRD files and directories that the workflow names
// (workflow), or that the repository's configuration does: the schema
// analyzer lets the workflow's win.
func loadCRDs(cfg *config.Config, workflow bool) ([]*manifest.Object, []finding.Finding) {
	crds, problems := schema.LoadCRDs(inputSources(cfg.Schema.CRDs, workflow), cfg.Limits)
	return crds, hygiene.FromProblems(problems)
}

// inputSources are the paths the workflow names (workflow) or the
// repository's configuration does.
func inputSources(paths []config.InputPath, workflow bool) []manifest.Source {
	var out []manifest.Source
	for _, p := range paths {
		if p.Workflow == workflow {
			out = append(out, manifest.Source{Path: p.Path, Display: p.Display})
		}
	}
	return out
}

// loadPolicies reads the admission policy files and directories that the
// workflow names (workflow), or that the repository's configuration does:
// the policy analyzer lets the workflow's win.
func loadPolicies(cfg *config.Config, workflow bool) ([]*manifest.Object, []finding.Finding) {
	objs, problems := policy.Load(inputSources(cfg.Policies, workflow), cfg.Limits)
	return objs, hygiene.FromProblems(problems)
}

// Result is a finished run.
type Result struct {
	Report *report.Report
	// Errors are engine failures (an engine that could not run at all).
	Errors []error
	// Gate is the pull-request gate the exit code applies.
	Gate config.Gate
	// Rules is the finished inspection-rules run of the working tree (for
	// --explain).
	Rules *rules.Run

	// baseSections are the base revision's engine sections (pull-request
	// mode), for the shard sections that merging needs.
	baseSections map[string]any
	// baseCommit is the commit pull-request mode compared with ("" for a
	// single revision); shard reports record it so that only shards of one
	// run merge.
	baseCommit string
	// reusedBuilds is how many kustomize targets pull-request mode built
	// once for both revisions.
	reusedBuilds int
	// Warnings are problems of plumb's own that did not stop the run.
	Warnings []string
	// CacheStats count the persistent cache's hits and writes (zero when
	// the cache is off).
	CacheStats cache.Stats
}

// Check runs the whole pipeline: on the working tree, and in pull-request
// mode (--base-ref) on the base revision too (prmode.go).
func Check(ctx context.Context, cfg *config.Config) (*Result, error) {
	return check(ctx, cfg, Analyzers)
}

// engineFactory builds the engines of a run (Analyzers; tests add their own).
type engineFactory func(context.Context, *config.Config, fs.FS) ([]analyzer.Analyzer, []finding.Finding)

func check(ctx context.Context, cfg *config.Config, engines engineFactory) (*Result, error) {
	defer runGC(revisionsOf(cfg))()
	start := time.Now()
	store, warning := openCache(cfg)
	var res *Result
	if cfg.BaseRef != "" {
		var err error
		if res, err = checkPR(ctx, cfg, engines, store); err != nil {
			closeCache(store) // what the run wrote stays usable
			return nil, err
		}
	} else {
		rendered, err := load(ctx, cfg, store)
		if err != nil {
			closeCache(store)
			return nil, err
		}
		res = checkRevision(ctx, cfg, rendered, rendered.FS, engines)
		res.Report.Fetched = reportFetched(rendered.fetcher)
		resolveFixes(cfg, res.Report, rendered)
		res.Warnings = append(res.Warnings, rendered.Warnings...)
	}
	res.Warnings = appendWarning(appendWarning(res.Warnings, warning), closeCache(store))
	if store != nil {
		res.CacheStats = store.Stats()
	}
	if cfg.Shard.Enabled() {
		shardSections(res)
		res.Report.Sections[report.ShardSection] = report.ShardInfo{Spec: cfg.Shard, BaseCommit: res.baseCommit}
	}
	finding.Sort(res.Report.Findings)
	res.Report.Rules = finding.SortRules(res.Report.Rules)
	res.Gate = cfg.Gate
	if !cfg.Reproducible {
		res.Report.DurationMS = time.Since(start).Milliseconds()
	}
	return res, nil
}

// checkRevision analyses one rendered revision and applies suppressions.
// The engines are configured from engineFS (always the working tree, so
// that both revisions of a pull request are judged by the same rules).
func checkRevision(ctx context.Context, cfg *config.Config, rendered *Rendered, engineFS fs.FS, newEngines engineFactory) *Result {
	rep := &report.Report{Version: Version, Sections: map[string]any{}}
	var errs []error
	findings, descriptors, cached := cachedRevision(rendered)
	if cached && rendered.reuseAnalysis {
		rep.Findings, rep.Rules = findings, descriptors
	} else {
		errs = analyzeRevision(ctx, cfg, rendered, engineFS, newEngines, rep)
		if !cached && rendered.revision != (cache.Key{}) && len(errs) == 0 {
			storeRevision(rendered, rep.Findings, rep.Rules)
		}
	}
	for _, t := range rendered.Render.Targets {
		rep.Targets = append(rep.Targets, report.TargetEntry{Name: t.Name, Kind: string(t.Kind), Objects: len(t.Objects)})
		for _, o := range t.Objects {
			loc, _ := o.Locate(nil)
			rep.Objects = append(rep.Objects, report.ObjectEntry{ObjectID: o.ID, File: loc.File, Line: loc.Line})
		}
	}
	rep.Skipped = rendered.Skipped()
	applySuppressions(cfg, rep, rendered.Render.Targets)
	errs = append(errs, settlePending(cfg, rep, rendered)...)
	res := &Result{Report: rep, Errors: errs}
	if cfg.Rules.Explain {
		// The run holds every rendered object; keep it only when it is
		// asked for, so that they can go before the report is written.
		res.Rules = rendered.Rules
	}
	return res
}

// analyzeRevision runs the analyzers and the main inspection rules over a
// rendered revision and adds their findings, rules and sections to rep:
// everything a revision's report holds before suppressions. It returns the
// engines that failed.
func analyzeRevision(ctx context.Context, cfg *config.Config, rendered *Rendered, engineFS fs.FS, newEngines engineFactory, rep *report.Report) []error {
	rep.Findings = append(rep.Findings, rendered.Findings...)
	rep.Rules = append(rep.Rules, hygiene.Rules()...)
	rep.Rules = append(rep.Rules, render.Rules()...)

	engines, setup := newEngines(ctx, cfg, engineFS)
	rep.Findings = append(rep.Findings, setup...)
	in := analyzerInput(rendered, cfg.Checks.Env)
	in.Sharded = cfg.Shard.Enabled()
	in.Cache = newTargetCache(rendered.store, rendered.analysisKey, cfg, in)
	outs, errs := analyze(ctx, engines, in)
	for _, o := range outs {
		rep.Findings = append(rep.Findings, o.out.Findings...)
		rep.Rules = append(rep.Rules, o.out.Rules...)
		if o.out.Section != nil {
			rep.Sections[o.name] = o.out.Section
		}
	}
	rep.Findings = dropOverlaps(rep.Findings)
	rep.Findings = append(rep.Findings, mainRules(rendered, rep)...)
	relateSources(rep.Findings, rendered.Render.Targets)
	return errs
}

// resolveFixes turns the fixes the findings declare into edits of the
// working tree's files (the fix stage).
func resolveFixes(cfg *config.Config, rep *report.Report, head *Rendered) {
	fix.Known(rep.Findings, head.Render.Targets)
	fix.Resolve(rep.Findings, head.Render.Targets, fix.Options{FS: head.FS, Limits: cfg.Limits, Parsed: fix.ParsedFiles(head.Set)})
}

type namedOutput struct {
	name string
	out  *analyzer.Output
}

// analyze runs the analyzers one after another, in report order. Each
// spreads its own work over every core (objects, targets), so running them
// at the same time gains no CPU and little wall time, while their working
// memory adds up: on 10,000 objects the checks hold about 50 MB while they
// run and the reference comparison 20 MB, on top of the rendered objects.
func analyze(ctx context.Context, as []analyzer.Analyzer, in *analyzer.Input) ([]namedOutput, []error) {
	var outs []namedOutput
	var failed []error
	for _, a := range as {
		out, err := a.Analyze(ctx, in)
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", a.Name(), err))
		} else if out != nil {
			outs = append(outs, namedOutput{a.Name(), out})
		}
	}
	return outs, failed
}

// ExitCode applies the threshold: 2 when plumb could not do what it was
// asked (a configuration, catalog, rules file or reference that does not
// load, or an engine that failed), 1 when an unsuppressed finding is at
// least as severe as failOn (in pull-request mode with the new gate, a new
// finding), 0 otherwise. What the repository holds — YAML that does not
// parse, a kustomization that does not build — is a finding like any other.
func (r *Result) ExitCode(failOn config.FailOn) int {
	if len(r.Errors) > 0 {
		return ExitError
	}
	return ExitCodeGated(r.Report.Findings, failOn, r.Gate)
}

// ExitCodeFor applies the threshold to every finding (gate all).
func ExitCodeFor(fs []finding.Finding, failOn config.FailOn) int {
	return ExitCodeGated(fs, failOn, config.GateAll)
}

// ExitCodeGated applies the threshold to a list of findings. Fixed findings
// (gone at the head) never count; with the new gate, neither do unchanged
// ones: a file broken before the pull request does not fail it, one the
// pull request breaks does. Problems with plumb's own inputs
// (ConfigError) exit 2 whatever the threshold.
func ExitCodeGated(fs []finding.Finding, failOn config.FailOn, gate config.Gate) int {
	code := ExitOK
	for i := range fs {
		f := &fs[i]
		if f.Status == finding.StatusFixed {
			continue
		}
		if f.ConfigError {
			return ExitError
		}
		if f.Suppressed != nil || failOn == config.FailOnNever {
			continue
		}
		if gate == config.GateNew && f.Status == finding.StatusUnchanged {
			continue
		}
		threshold := finding.Error
		if failOn == config.FailOnWarning {
			threshold = finding.Warning
		}
		if f.Level.AtLeast(threshold) {
			code = ExitFindings
		}
	}
	return code
}
