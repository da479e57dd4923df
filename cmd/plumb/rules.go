package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/pipeline"
	"github.com/plumb-ci/plumb/internal/rules"
)

func newRulesCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List, show and lint inspection rules",
		Long: `Inspection rules (the Ironic rule language) let a repository enrich objects,
set context for checks, normalise objects before they are checked, or fail.
Built-in rules are always loaded; user rules come from rules.files in
.plumb.yaml and from --rules.`,
	}
	cmd.AddCommand(newRulesListCommand(stdout, stderr), newRulesShowCommand(stdout, stderr), newRulesLintCommand(stdout, stderr))
	return cmd
}

// rulesEngine loads the configured rules; problems go to stderr and make
// the command exit 2 after printing what it can.
func rulesEngine(fl *config.Flags, stderr io.Writer) (*rules.Engine, int, error) {
	cfg, _, err := loadConfig(fl)
	if err != nil {
		return nil, 0, err
	}
	engine, problems, err := pipeline.RulesEngine(cfg)
	if err != nil {
		return nil, 0, err
	}
	return engine, printRuleProblems(stderr, "plumb: ", problems), nil
}

// printRuleProblems prints rules-file problems and returns the exit code
// they call for.
func printRuleProblems(w io.Writer, prefix string, fs []finding.Finding) int {
	code := pipeline.ExitOK
	for i := range fs {
		fmt.Fprintf(w, "%s%s\n", prefix, &fs[i])
		if fs[i].ConfigError {
			code = pipeline.ExitError
		}
	}
	return code
}

func newRulesListCommand(stdout, stderr io.Writer) *cobra.Command {
	var fl *config.Flags
	var long bool
	var phase, scope string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the inspection rules in running order",
		Long: `list prints the built-in and user rules, phase by phase in running order
(priority, higher first). With --long every field is printed; conditions and
actions of sensitive rules are shown as null.`,
		Example: `  plumb rules list
  plumb rules list --long --phase preprocess
  plumb rules list --rules site-rules.yaml --scope payments`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var p rules.Phase
			if phase != "" {
				var err error
				if p, err = rules.ParsePhase(phase); err != nil {
					return fmt.Errorf("--phase: %w", err)
				}
			}
			engine, code, err := rulesEngine(fl, stderr)
			if err != nil {
				return err
			}
			out, err := engine.FormatList(engine.List(p, scope), long)
			if err != nil {
				return err
			}
			fmt.Fprint(stdout, out)
			if code != pipeline.ExitOK {
				return exitError{code}
			}
			return nil
		},
	}
	fl = config.BindRulesCommandFlags(cmd.Flags())
	cmd.Flags().BoolVar(&long, "long", false, "print every field of every rule")
	cmd.Flags().StringVar(&phase, "phase", "", "only rules of this phase: early, preprocess or main")
	cmd.Flags().StringVar(&scope, "scope", "", "only rules of this scope (rules without scope have none)")
	return cmd
}

func newRulesShowCommand(stdout, stderr io.Writer) *cobra.Command {
	var fl *config.Flags
	cmd := &cobra.Command{
		Use:   "show ID",
		Short: "Show one inspection rule",
		Long: `show prints one rule as YAML, found by its uuid (with or without the rule/
prefix of finding rule ids). Conditions and actions of sensitive rules are
shown as null.`,
		Example: `  plumb rules show plumb-private-key
  plumb rules show rule/6f1c2a54-... --rules site-rules.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			engine, code, err := rulesEngine(fl, stderr)
			if err != nil {
				return err
			}
			r := engine.Set().Rule(args[0])
			if r == nil {
				return fmt.Errorf("no inspection rule %q (plumb rules list shows them)", args[0])
			}
			out, err := engine.FormatList([]*rules.Rule{r}, true)
			if err != nil {
				return err
			}
			fmt.Fprint(stdout, out)
			if code != pipeline.ExitOK {
				return exitError{code}
			}
			return nil
		},
	}
	fl = config.BindRulesCommandFlags(cmd.Flags())
	return cmd
}

func newRulesLintCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "lint FILE...",
		Short: "Validate inspection-rules files",
		Long: `lint validates rules files (or directories of them) as check would load them,
against the built-in rules, and prints every problem as file:line:col.
The exit code is 2 when a rule does not validate, 0 otherwise (warnings,
such as deprecated list-form args, do not fail).`,
		Example: `  plumb rules lint site-rules.yaml
  plumb rules lint rules/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			fl := &config.Flags{Rules: args}
			cfg, err := config.Resolve(nil, fl, cwd)
			if err != nil {
				return err
			}
			engine, problems, err := pipeline.RulesEngine(cfg)
			if err != nil {
				return err
			}
			code := printRuleProblems(stdout, "", problems)
			user := 0
			for _, r := range engine.Set().Rules {
				if !r.BuiltIn {
					user++
				}
			}
			fmt.Fprintf(stdout, "%d valid rule(s) in %d file argument(s), %d problem(s)\n", user, len(args), len(problems))
			if code != pipeline.ExitOK {
				return exitError{code}
			}
			return nil
		},
	}
	return cmd
}
