package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/pipeline"
	"github.com/plumb-ci/plumb/internal/report"
)

func newCheckCommand(stdout, stderr io.Writer) *cobra.Command {
	var fl *config.Flags
	cmd := &cobra.Command{
		Use:   "check [PATH...]",
		Short: "Check manifests and report findings at their source lines",
		Long: `check loads the manifests under each PATH (files, directories walked
recursively for .yaml, .yml and .json, or globs such as 'apps/**/*.yaml';
default ".") and reports what is wrong, each finding at the file, line and
column to edit.

Reports go to stdout as text unless --format says otherwise; --format is
repeatable and takes FORMAT or FORMAT=FILE, e.g.
  plumb check --format text --format json=plumb.json

With --base-ref REV (pull-request mode) the git revision REV is checked too,
from the repository's objects, without touching the working tree: findings
are marked new, unchanged or fixed, --fail-on applies to the new ones
(--gate all: to all), and the JSON report's diff section holds the rendered
diff of every target. --shard I/N checks a share of the targets; plumb merge
puts the shards' JSON reports together.

The exit code is 1 when a finding is at least as severe as --fail-on
(default error; in pull-request mode among the findings --gate selects), 0
otherwise. What the repository holds — YAML that does not parse, a
kustomization that does not build — is a finding like any other. The exit
code is 2 only when plumb cannot do what it was asked: a bad flag, or a
configuration, checks catalog, rules file or reference that does not load.`,
		Example: `  plumb check
  plumb check fixtures/demo
  plumb check 'apps/**/*.yaml' --fail-on warning
  plumb check --format json=report.json --format text
  plumb check --base-ref origin/main`,
		RunE: func(cmd *cobra.Command, args []string) error {
			fl.Paths = args
			cfg, outs, err := loadConfig(fl)
			if err != nil {
				return err
			}
			defer pipeline.Collector(cfg)()
			res, err := pipeline.Check(cmd.Context(), cfg)
			if err != nil {
				return err
			}
			printRunErrors(stderr, res, outs)
			if cfg.Rules.Explain {
				if err := res.Rules.WriteExplanation(stderr); err != nil {
					return err
				}
			}
			if err := report.WriteAll(outs, res.Report, stdout); err != nil {
				return err
			}
			if code := res.ExitCode(cfg.FailOn); code != pipeline.ExitOK {
				return exitError{code}
			}
			return nil
		},
	}
	fl = config.BindCheckFlags(cmd.Flags())
	return cmd
}

// loadConfig resolves the configuration and the report outputs.
func loadConfig(fl *config.Flags) (*config.Config, []report.Output, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, nil, err
	}
	cfg, err := config.Load(fl, cwd)
	if err != nil {
		return nil, nil, err
	}
	outs, err := report.ParseOutputs(cfg.Formats)
	if err != nil {
		return nil, nil, formatError(cfg, err)
	}
	report.WithSARIFCategory(outs, fl.SARIFCategory)
	report.WithinRoot(outs, cfg.Root)
	minLevel := cfg.MinLevel
	report.WithTextOptions(outs, report.TextOptions{MinLevel: &minLevel, Verbose: cfg.Verbose})
	return cfg, outs, nil
}

// formatError names the line of a format that .plumb.yaml got wrong.
func formatError(cfg *config.Config, err error) error {
	if len(cfg.FormatsAt) != len(cfg.Formats) {
		return err
	}
	for i, spec := range cfg.Formats {
		if ferr := report.CheckFormat(spec); ferr != nil {
			return fmt.Errorf("%s: format %q: %w", cfg.FormatsAt[i], spec, ferr)
		}
	}
	return err
}

// printRunErrors says on stderr why the run exits 2 — problems with
// plumb's own inputs (a catalog, rules file or reference that does not
// load) and engine failures — each on one line, repository text inert.
// Such a problem that a text report on stdout already shows is not
// printed again: a finding is printed once.
func printRunErrors(stderr io.Writer, res *pipeline.Result, outs []report.Output) {
	if !report.TextOnStdout(outs) {
		for i := range res.Report.Findings {
			if f := &res.Report.Findings[i]; f.ConfigError {
				fmt.Fprintf(stderr, "plumb: %s\n", report.InertLine(f.String()))
			}
		}
	}
	for _, err := range res.Errors {
		fmt.Fprintf(stderr, "plumb: %s\n", report.InertLine(err.Error()))
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "plumb: warning: %s\n", report.InertLine(w))
	}
}
