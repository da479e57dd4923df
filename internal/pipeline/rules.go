package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/report"
	"github.com/plumb-ci/plumb/internal/rules"
	"github.com/plumb-ci/plumb/reference"
)

// RulesEngine loads the built-in rules and the configured rules files and
// builds the inspection-rules engine. Problems with the files (unreadable,
// invalid rules) come back as findings: errors are configuration errors
// (exit 2), and the
// valid rules still load. The error is for built-in rules that do not load,
// which is a bug in plumb.
func RulesEngine(cfg *config.Config) (*rules.Engine, []finding.Finding, error) {
	sources, err := rules.BuiltInSources(reference.Rules)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the built-in rules: %w", err)
	}
	user, findings := readRuleFiles(cfg.Rules.Files)
	set := rules.Load(append(sources, user...), cfg.Limits)
	for _, p := range set.Problems {
		if p.BuiltIn {
			return nil, nil, fmt.Errorf("built-in rules: %v", p)
		}
	}
	findings = append(findings, rules.ProblemFindings(set.Problems)...)
	mask, _ := rules.ParseMaskMode(cfg.Rules.MaskSecrets)
	engine := rules.NewEngine(set, rules.Options{
		Env:             userEnv(cfg),
		Mask:            mask,
		MaskKeys:        cfg.Rules.MaskKeys,
		DefaultScope:    cfg.Rules.DefaultScope,
		ObjectScope:     cfg.Rules.ObjectScope,
		ScopeAnnotation: cfg.Rules.ScopeAnnotation,
		Explain:         cfg.Rules.Explain,
		Environments:    cfg.Checks.Environments,
	})
	return engine, findings, nil
}

// readRuleFiles reads rules files; a directory contributes its .yaml and
// .yml files in name order (not recursively).
func readRuleFiles(files []config.RuleFile) ([]rules.Source, []finding.Finding) {
	var sources []rules.Source
	var findings []finding.Finding
	problem := func(name string, err error) {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		findings = append(findings, rules.ProblemFindings([]rules.Problem{{
			Location: manifest.Location{File: name},
			Message:  fmt.Sprintf("cannot read the rules file: %v", err),
		}})...)
	}
	for _, f := range files {
		st, err := os.Stat(f.Path)
		if err != nil {
			problem(f.Name, err)
			continue
		}
		if !st.IsDir() {
			data, err := manifest.ReadRegularFile(f.Path, manifest.DefaultLimits.MaxFileBytes)
			if err != nil {
				problem(f.Name, err)
				continue
			}
			sources = append(sources, rules.Source{Name: f.Name, Data: data})
			continue
		}
		// As content: a symbolic link in the directory may not lead out
		// of it, nor into .git.
		fsys, dir, err := manifest.OpenContent(f.Path)
		if err != nil {
			problem(f.Name, err)
			continue
		}
		entries, err := fs.ReadDir(fsys, ".")
		if err != nil {
			dir.Close()
			problem(f.Name, err)
			continue
		}
		for _, e := range entries {
			ext := strings.ToLower(filepath.Ext(e.Name()))
			if e.IsDir() || (ext != ".yaml" && ext != ".yml") {
				continue
			}
			name := strings.TrimSuffix(f.Name, "/") + "/" + e.Name()
			data, err := manifest.ReadRegular(fsys, e.Name(), manifest.DefaultLimits.MaxFileBytes)
			if err != nil {
				problem(name, err)
				continue
			}
			sources = append(sources, rules.Source{Name: name, Data: data})
		}
		dir.Close()
	}
	return sources, findings
}

// applyTraits tags every finding on an object with the object's traits.
func applyTraits(fs []finding.Finding, traits map[string][]string) {
	if len(traits) == 0 {
		return
	}
	for i := range fs {
		t := traits[fs[i].Object.Key()]
		if len(t) == 0 || fs[i].Object.IsZero() {
			continue
		}
		tags := slices.Clone(fs[i].Tags)
		for _, x := range t {
			if !slices.Contains(tags, x) {
				tags = append(tags, x)
			}
		}
		slices.Sort(tags)
		fs[i].Tags = tags
	}
}

// analyzerInput is what the analyzers see: the objects after the
// preprocess rules, the user's environment, and the plugin data the rules
// set as each target's additions to it.
func analyzerInput(rendered *Rendered, env map[string]any) *analyzer.Input {
	return &analyzer.Input{Targets: rendered.Render.Targets, Env: env, TargetEnv: rendered.Rules.TargetEnv(), Base: rendered.baseTargets}
}

// mainRules runs the main-phase rules after the analyzers, tags findings
// with traits, and adds the rules' descriptors and report section. It
// returns the main phase's findings.
func mainRules(rendered *Rendered, rep *report.Report) []finding.Finding {
	run := rendered.Rules
	section := run.Finish(rendered.Render.Targets, rep.Findings)
	found := run.Findings(rules.PhaseMain)
	applyTraits(rep.Findings, run.Traits())
	applyTraits(found, run.Traits())
	rep.Rules = append(rep.Rules, run.Engine().Descriptors()...)
	rep.Sections[rules.SectionName] = section
	return found
}

// userEnv is the environment the user gives the checks (--env and
// checks.env); rules read it as inventory[env].
func userEnv(cfg *config.Config) map[string]any { return cfg.Checks.Env }
