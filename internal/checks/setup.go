package checks

import (
	"fmt"
	"io/fs"
	"slices"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/reference"
)

// Rule ids of the engine's own problems.
const (
	RuleLint          = "checks/lint"
	RuleCustomization = "checks/customization"
	RuleSelect        = "checks/select"
)

// DefaultSource is the embedded default catalog.
func DefaultSource() Source {
	return Source{FS: reference.Checks, Dir: "checks", Display: "reference/checks"}
}

// Sources lists the catalog sources a configuration names: the default
// catalog (unless turned off), then the extra directories in order.
func Sources(cfg config.Checks) []Source {
	var out []Source
	if cfg.DefaultCatalog {
		out = append(out, DefaultSource())
	}
	for _, d := range cfg.Dirs {
		out = append(out, Source{FS: DirFS(d.Path), Dir: ".", Display: d.Display})
	}
	return out
}

// DirFS is a catalog directory read as content (manifest.OpenContent): a
// symbolic link in it may not lead out of it (a catalog in the repository
// linking to /etc/passwd or a key file would otherwise be read, and a parse
// error could quote it), nor into .git. A directory that cannot be opened
// reads as the error that says why.
func DirFS(dir string) fs.FS {
	fsys, _, err := manifest.OpenContent(dir)
	if err != nil {
		return manifest.FailingFS(err)
	}
	return fsys
}

// New builds the checks engine for a run. Catalog files that do not lint,
// rejected customizations and unknown selected ids come back as findings
// (errors are configuration errors, exit 2); the checks that are fine still run.
func New(cfg config.Checks, configFile string) (*Analyzer, []finding.Finding) {
	cat := Load(Sources(cfg)...)
	var problems []finding.Finding
	for _, d := range cat.Diagnostics {
		problems = append(problems, diagnosticFinding(d))
	}
	checks := cat.Usable()
	if len(cfg.Select) > 0 {
		want := map[string]bool{}
		for _, id := range cfg.Select {
			want[id] = true
			if cat.Get(id) == nil {
				at := cfg.SelectAt[id]
				problems = append(problems, configFinding(RuleSelect, cfg.SelectSource, at.Line, at.Column, id,
					fmt.Sprintf("select: there is no check %q in the catalog (see plumb checks list)", id)))
			}
		}
		checks = slices.DeleteFunc(checks, func(c *Check) bool { return !want[c.ID] })
	}
	custom := Customizations{}
	for id, values := range cfg.Customizations {
		custom[id] = map[string]any{}
		for name, v := range values {
			custom[id][name] = v.Value
		}
	}
	valid, rejected := ValidateCustomizations(cat, custom)
	for _, p := range rejected {
		line, col := 0, 0
		if v, ok := cfg.Customizations[p.Check][p.Value]; ok {
			line, col = v.Line, v.Column
		} else {
			for _, v := range cfg.Customizations[p.Check] {
				if line == 0 || v.Line < line {
					line, col = v.Line, v.Column
				}
			}
		}
		problems = append(problems, configFinding(RuleCustomization, configFile, line, col, p.Check+"/"+p.Value, "checks.customizations: "+p.Message))
	}
	detail := cfg.Detail
	if detail != config.DetailFull {
		detail = config.DetailSummary // the default, also of a configuration not resolved from flags
	}
	return NewAnalyzer(checks, valid).WithDetail(detail), problems
}

// diagnosticFinding turns a lint result into a finding: errors are input
// errors (the check did not run), warnings are ordinary warnings.
func diagnosticFinding(d Diagnostic) finding.Finding {
	msg := d.Message
	if d.Path != "" {
		msg = d.Path + ": " + msg
	}
	if d.Check != "" {
		msg = "check " + d.Check + ": " + msg
	}
	f := finding.Finding{
		Source:     finding.SourceCheck,
		RuleID:     RuleLint,
		Level:      finding.Warning,
		Title:      "Checks catalog problem",
		Message:    msg,
		Help:       lintHelp,
		Location:   manifest.Location{File: d.File, Line: d.Line, Column: d.Column},
		InputError: d.Level == LevelError,
		Key:        d.Path + "|" + d.Message,
	}
	if f.InputError {
		f.ConfigError = true
		f.Level = finding.Error
		f.Message += " (the check is not run)"
	}
	f.SetFingerprint()
	return f
}

func configFinding(rule, file string, line, col int, key, msg string) finding.Finding {
	f := finding.Finding{
		Source:      finding.SourceCheck,
		RuleID:      rule,
		Level:       finding.Error,
		Title:       "Checks configuration problem",
		Message:     msg,
		Help:        configHelp,
		Location:    manifest.Location{File: file, Line: line, Column: col},
		InputError:  true,
		ConfigError: true,
		Key:         key,
	}
	f.SetFingerprint()
	return f
}

const lintHelp = "A check of the catalog does not follow the Trento checks format as plumb reads it " +
	"(see docs/checks.md). Fix the check file at the reported line; " +
	"`plumb checks lint DIR` lists every problem of a catalog at once."

const configHelp = "The `checks:` section of .plumb.yaml (or a checks flag) names something the catalog " +
	"does not have or cannot accept. `plumb checks list` shows the checks, `plumb checks show ID` their values " +
	"and whether they can be customized."

// EngineRules describes the engine's own rules (catalog and configuration
// problems).
func EngineRules() []finding.Rule {
	mk := func(id, name, help string) finding.Rule {
		return finding.Rule{ID: id, Name: name, Short: name, Full: help, Help: help, Level: finding.Error, Tags: []string{"checks"}, Precision: "very-high"}
	}
	return []finding.Rule{
		mk(RuleLint, "Checks catalog problem", lintHelp),
		mk(RuleCostLimit, "Check expression over its cost limit", costLimitHelp),
		mk(RuleCustomization, "Rejected check customization", configHelp),
		mk(RuleSelect, "Unknown selected check", configHelp),
	}
}
