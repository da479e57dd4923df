// Package pipeline runs plumb's stages in order — load, render, analyze,
// report — and decides the exit code. Data flows one way: each stage takes
// the previous stage's value and returns a new one.
package pipeline

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/checks"
	"github.com/plumb-ci/plumb/internal/compare"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/hygiene"
	"github.com/plumb-ci/plumb/internal/kubevirt"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
	"github.com/plumb-ci/plumb/internal/report"
	"github.com/plumb-ci/plumb/internal/rules"
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
	// FS is the repository the inputs were read from.
	FS     fs.FS
	Set    *manifest.Set
	Render *render.Result
	// Findings are the problems met while loading and rendering, and what
	// the early and preprocess inspection rules reported.
	Findings []finding.Finding
	// Rules is the inspection-rules run: early and preprocess are done.
	Rules *rules.Run
}

// Load reads and renders the configured inputs.
func Load(ctx context.Context, cfg *config.Config) (*Rendered, error) {
	fsys, err := repoFS(cfg.Root)
	if err != nil {
		return nil, err
	}
	engine, ruleProblems, err := RulesEngine(cfg)
	if err != nil {
		return nil, err
	}
	set := manifest.Load(fsys, cfg.Paths, manifest.LoadOptions{Limits: cfg.Limits, Exclude: cfg.Exclude})
	run := engine.NewRun()
	run.Early(set.Documents)
	restoreGC := renderGC()
	res := render.Render(ctx, fsys, set, renderOptions(cfg))
	restoreGC()
	run.Preprocess(res.Targets)
	out := &Rendered{FS: fsys, Set: set, Render: res, Rules: run}
	for _, p := range set.Problems {
		out.Findings = append(out.Findings, hygiene.FromProblem(p))
	}
	for _, p := range res.Problems {
		f := hygiene.FromProblem(p)
		render.Describe(&f)
		out.Findings = append(out.Findings, f)
	}
	out.Findings = append(out.Findings, ruleProblems...)
	out.Findings = append(out.Findings, run.Findings(rules.PhaseEarly, rules.PhasePreprocess)...)
	return out, nil
}

// renderOptions carries the rendering configuration to the render stage.
func renderOptions(cfg *config.Config) render.Options {
	opts := render.Options{
		Limits:      cfg.Limits,
		AllowRemote: cfg.Render.AllowRemote,
		Params:      render.TemplateParams{Global: cfg.Render.Params, PerTemplate: cfg.Render.TemplateParams},
	}
	if cfg.File != "" && (len(cfg.Render.TemplateParams) > 0 || len(cfg.Render.Targets) > 0) {
		opts.ParamsAt = manifest.Location{File: cfg.File}
	}
	for _, t := range cfg.Render.Targets {
		opts.Targets = append(opts.Targets, render.TargetSpec{Pattern: t.Pattern,
			At: manifest.Location{File: cfg.File, Line: t.Line, Column: t.Column}})
	}
	return opts
}

// repoFS opens the repository root so that no path, symlinks included, can
// lead outside it.
func repoFS(root string) (fs.FS, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("opening the repository root: %w", err)
	}
	return r.FS(), nil
}

// Analyzers builds the engines configured for a run, in report order.
// Problems with an engine's own configuration (a catalog that does not lint,
// a reference that does not load) come back as InputError findings; the
// other engines still run.
func Analyzers(_ context.Context, cfg *config.Config, _ fs.FS) ([]analyzer.Analyzer, []finding.Finding) {
	engines := []analyzer.Analyzer{hygiene.Analyzer{}}
	var setup []finding.Finding
	templates, problems := kubevirt.LoadTemplates(cfg.KubeVirt.TemplateDirs, cfg.Limits)
	for _, p := range problems {
		setup = append(setup, hygiene.FromProblem(p))
	}
	engines = append(engines, &kubevirt.Analyzer{Templates: templates})
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

// Result is a finished run.
type Result struct {
	Report *report.Report
	// Errors are engine failures (an engine that could not run at all).
	Errors []error
	// Rules is the finished inspection-rules run (for --explain).
	Rules *rules.Run
}

// Check runs the whole pipeline.
func Check(ctx context.Context, cfg *config.Config) (*Result, error) {
	start := time.Now()
	rendered, err := Load(ctx, cfg)
	if err != nil {
		return nil, err
	}
	rep := &report.Report{Version: Version, Sections: map[string]any{}}
	rep.Findings = append(rep.Findings, rendered.Findings...)
	rep.Rules = append(rep.Rules, hygiene.Rules()...)
	rep.Rules = append(rep.Rules, render.Rules()...)

	engines, setup := Analyzers(ctx, cfg, rendered.FS)
	rep.Findings = append(rep.Findings, setup...)
	in := analyzerInput(rendered, cfg.Checks.Env)
	outs, errs := analyze(ctx, engines, in)
	for _, o := range outs {
		rep.Findings = append(rep.Findings, o.out.Findings...)
		rep.Rules = append(rep.Rules, o.out.Rules...)
		if o.out.Section != nil {
			rep.Sections[o.name] = o.out.Section
		}
	}
	rep.Findings = append(rep.Findings, mainRules(rendered, rep)...)
	for _, t := range rendered.Render.Targets {
		rep.Targets = append(rep.Targets, report.TargetEntry{Name: t.Name, Kind: string(t.Kind), Objects: len(t.Objects)})
		for _, o := range t.Objects {
			loc, _ := o.Locate(nil)
			rep.Objects = append(rep.Objects, report.ObjectEntry{ObjectID: o.ID, File: loc.File, Line: loc.Line})
		}
	}
	finding.Sort(rep.Findings)
	rep.Rules = finding.SortRules(rep.Rules)
	if !cfg.Reproducible {
		rep.DurationMS = time.Since(start).Milliseconds()
	}
	return &Result{Report: rep, Errors: errs, Rules: rendered.Rules}, nil
}

type namedOutput struct {
	name string
	out  *analyzer.Output
}

// analyze runs the analyzers concurrently; outputs keep the analyzers'
// order so reports do not depend on scheduling.
func analyze(ctx context.Context, as []analyzer.Analyzer, in *analyzer.Input) ([]namedOutput, []error) {
	outs := make([]namedOutput, len(as))
	errs := make([]error, len(as))
	var wg sync.WaitGroup
	for i, a := range as {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := a.Analyze(ctx, in)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", a.Name(), err)
				return
			}
			outs[i] = namedOutput{a.Name(), out}
		}()
	}
	wg.Wait()
	var okOuts []namedOutput
	var failed []error
	for i := range as {
		if errs[i] != nil {
			failed = append(failed, errs[i])
		} else if outs[i].out != nil {
			okOuts = append(okOuts, outs[i])
		}
	}
	return okOuts, failed
}

// ExitCode applies the threshold: 2 when any input could not be used or an
// engine failed, 1 when an unsuppressed finding is at least as severe as
// failOn, 0 otherwise.
func (r *Result) ExitCode(failOn config.FailOn) int {
	if len(r.Errors) > 0 {
		return ExitError
	}
	return ExitCodeFor(r.Report.Findings, failOn)
}

// ExitCodeFor applies the threshold to a list of findings.
func ExitCodeFor(fs []finding.Finding, failOn config.FailOn) int {
	code := ExitOK
	for i := range fs {
		f := &fs[i]
		if f.InputError {
			return ExitError
		}
		if f.Suppressed != nil || f.Status == finding.StatusFixed || failOn == config.FailOnNever {
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
