package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/plumb-ci/plumb/internal/checks"
	"github.com/plumb-ci/plumb/internal/config"
)

func newChecksCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "checks",
		Short: "List, show, lint and evaluate checks (Trento checks format, CEL expressions)",
		Long: `checks works with the checks catalog: the embedded default catalog plus the
directories named by --checks or checks.dirs in .plumb.yaml. Each check is a
file <id>.yaml in the Trento checks format with CEL expressions.`,
	}
	cmd.AddCommand(newChecksListCommand(stdout, stderr), newChecksShowCommand(stdout),
		newChecksLintCommand(stdout), newChecksEvalCommand(stdout, stderr), &cobra.Command{
			Use:   "gatherers",
			Short: "List the gatherers facts can use, with their arguments",
			Args:  cobra.NoArgs,
			RunE:  func(*cobra.Command, []string) error { return checks.WriteGatherers(stdout) },
		})
	return cmd
}

// loadCatalog reads the catalog the configuration and flags name.
func loadCatalog(fl *config.Flags) (*checks.Catalog, *config.Config, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, nil, err
	}
	cfg, err := config.Load(fl, cwd)
	if err != nil {
		return nil, nil, err
	}
	return checks.Load(checks.Sources(cfg.Checks)...), cfg, nil
}

func newChecksListCommand(stdout, stderr io.Writer) *cobra.Command {
	var fl *config.Flags
	var group, format string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the checks that apply in an environment",
		Long: `list prints the usable checks of the catalog. With --env it keeps only the
checks whose metadata and when match that environment, as Wanda's catalog
API filters them (an empty environment lists every check).`,
		Example: `  plumb checks list
  plumb checks list --group Security
  plumb checks list --env target_type=object --env kind=Deployment`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			cat, cfg, err := loadCatalog(fl)
			if err != nil {
				return err
			}
			if format != "text" && format != "json" {
				return fmt.Errorf("--format %q: want text or json", format)
			}
			if err := checks.List(stdout, cat, checks.ListOptions{Group: group, Env: cfg.Checks.Env, Format: format}); err != nil {
				return err
			}
			if code := checks.WriteProblems(stderr, cat); code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
	fl = config.BindCatalogFlags(cmd.Flags())
	cmd.Flags().StringVar(&group, "group", "", "only checks of this group")
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	return cmd
}

func newChecksShowCommand(stdout io.Writer) *cobra.Command {
	var fl *config.Flags
	cmd := &cobra.Command{
		Use:     "show ID",
		Short:   "Print one check: description, remediation, facts, values, expectations",
		Example: `  plumb checks show C10001`,
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			cat, _, err := loadCatalog(fl)
			if err != nil {
				return err
			}
			c := cat.Get(args[0])
			if c == nil {
				return fmt.Errorf("there is no check %q in the catalog (see plumb checks list)", args[0])
			}
			if err := checks.Show(stdout, c); err != nil {
				return err
			}
			if !c.Evaluable() || c.HasErrors() {
				return exitError{2}
			}
			return nil
		},
	}
	fl = config.BindCatalogFlags(cmd.Flags())
	return cmd
}

func newChecksLintCommand(stdout io.Writer) *cobra.Command {
	var fl *config.Flags
	var format string
	cmd := &cobra.Command{
		Use:   "lint [DIR...]",
		Short: "Check catalog directories: schema, CEL compilation, tlint rules",
		Long: `lint reads every <id>.yaml file of each DIR (default: the configured catalog)
and reports each problem at its file, line and column: unknown or missing
keys, expressions that do not compile, messages that cannot be interpolated,
tlint's rules, unknown gatherers and duplicate ids. It exits 2 when there is
an error.`,
		Example: `  plumb checks lint .plumb/checks`,
		RunE: func(_ *cobra.Command, args []string) error {
			var cat *checks.Catalog
			if len(args) == 0 {
				var err error
				if cat, _, err = loadCatalog(fl); err != nil {
					return err
				}
			} else {
				var sources []checks.Source
				for _, d := range args {
					sources = append(sources, checks.Source{FS: checks.DirFS(d), Dir: ".", Display: d})
				}
				cat = checks.Load(sources...)
			}
			if code := checks.Lint(stdout, cat, format); code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
	fl = config.BindCatalogFlags(cmd.Flags())
	cmd.Flags().StringVar(&format, "format", "text", "text or json")
	return cmd
}

func newChecksEvalCommand(stdout, stderr io.Writer) *cobra.Command {
	var ev checks.EvalCommand
	var env []string
	cmd := &cobra.Command{
		Use:   "eval --facts FILE [--catalog DIR]...",
		Short: "Evaluate checks over given facts, offline, and print the Wanda Result",
		Long: `eval runs the checks of a catalog over facts written in Wanda's fake-facts
layout (targets, then facts by check, fact and target; !error for a fact
that could not be gathered; timeout for targets that did not answer) and
prints the execution Result, as Wanda computes it. Check authors use it to
unit-test checks without manifests.

The exit code is 1 when the result is critical (or warning with
--fail-on warning), 2 when the catalog or the facts file has a problem.`,
		Example: `  plumb checks eval --catalog my-checks --facts my-checks/tests/prod.yaml
  plumb checks eval --facts facts.yaml --env provider=azure --format text`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if ev.Env, err = config.ParseEnv(env); err != nil {
				return err
			}
			if code := ev.Run(cmd.Context(), stdout, stderr); code != 0 {
				return exitError{code}
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&ev.Catalogs, "catalog", nil, "catalog directory (repeatable; default: the embedded default catalog)")
	cmd.Flags().StringVar(&ev.Facts, "facts", "", "facts file in Wanda's fake-facts layout (required)")
	cmd.Flags().StringArrayVar(&env, "env", nil, "environment entry key=value (repeatable; wins over the file's env)")
	cmd.Flags().StringVar(&ev.Format, "format", "json", "json (the Wanda Result) or text")
	cmd.Flags().StringVar(&ev.FailOn, "fail-on", "critical", "exit 1 when the result is at least critical, warning, or never")
	_ = cmd.MarkFlagRequired("facts")
	return cmd
}
