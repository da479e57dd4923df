package main

import (
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/spf13/cobra"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/pipeline"
	"github.com/plumb-ci/plumb/internal/report"
)

func newFixCommand(stdout, stderr io.Writer) *cobra.Command {
	var fl *config.Flags
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "fix [PATH...]",
		Short: "Apply the mechanical fixes findings suggest, at the source",
		Long: `fix checks the manifests under each PATH as check does and makes the
edits that resolve findings with a mechanical fix: the default catalog's
security-context settings and any check that declares a fix. Each edit is
made where the field is written (the plain file, the kustomize base, the
overlay patch that set it), keeping the file's indentation, flow or block
style and comments; these are the edits review comments suggest. An edit
is made only when it is exact: never on a template expression or a value
a transformer rewrites. fix checks again after editing and lists what it
could not fix.

--select limits it to the findings of some checks or rules (D10001,
check/D10001). --dry-run prints the edits as a unified diff and writes
nothing.`,
		Example: `  plumb fix
  plumb fix apps/ --select D10001,D10006
  plumb fix --dry-run`,
		RunE: func(cmd *cobra.Command, args []string) error {
			fl.Paths = args
			fixSelect := fl.Select
			fl.Select = nil // --select picks findings to fix; every check runs
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			cfg, err := config.Load(fl, cwd)
			if err != nil {
				return err
			}
			res, err := pipeline.Fix(cmd.Context(), cfg, pipeline.FixOptions{Select: fixSelect, DryRun: dryRun})
			if err != nil {
				return err
			}
			printFixResult(stdout, res, dryRun)
			for _, err := range res.Errors {
				fmt.Fprintf(stderr, "plumb: %s\n", report.InertLine(err.Error()))
			}
			if len(res.Errors) > 0 {
				return exitError{pipeline.ExitError}
			}
			return nil
		},
	}
	fl = config.BindCheckFlags(cmd.Flags())
	cmd.Flags().Lookup("select").Usage = "fix only the findings of these checks or rules: D10001, check/D10001 (comma-separated or repeated)"
	for _, name := range []string{"format", "sarif-category", "fail-on", "checks-detail"} {
		if err := cmd.Flags().MarkHidden(name); err != nil {
			panic(err) // the flag names above are BindCheckFlags' own
		}
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the edits as a unified diff; write nothing")
	return cmd
}

// printFixResult says what fix did: one line per finding fixed, the diff
// in a dry run, what it could not fix and why.
func printFixResult(w io.Writer, res *pipeline.FixResult, dryRun bool) {
	files := map[string]bool{}
	fixed := 0
	for _, it := range res.Made {
		for _, e := range it.Edits {
			files[e.File] = true
		}
		for _, f := range it.Findings {
			fixed++
			e := it.Edits[0]
			fmt.Fprintln(w, report.InertLine(fmt.Sprintf("%s: %s [%s] %s", manifest.FormatLocation(finding.Location{File: e.File, Line: e.StartLine}),
				f.Fix.Description, f.RuleID, f.Object)))
		}
	}
	if dryRun {
		names := make([]string, 0, len(res.Diffs))
		for n := range res.Diffs {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			fmt.Fprint(w, "\n"+res.Diffs[n])
		}
	}
	for _, group := range []struct {
		what string
		fs   []finding.Finding
		why  func(f *finding.Finding) string
	}{
		{"still found after its edit", res.Unfixed, func(*finding.Finding) string { return "the edit did not resolve it" }},
		{"without an exact edit", res.NoEdit, func(f *finding.Finding) string { return f.Fix.NoEdit }},
		{"left for a later run (their edits clash with the ones above)", res.Deferred, func(*finding.Finding) string { return "run plumb fix again" }},
	} {
		if len(group.fs) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s %s:\n", plural(len(group.fs), "finding"), group.what)
		for i := range group.fs {
			f := &group.fs[i]
			fmt.Fprintln(w, "  "+report.InertLine(fmt.Sprintf("%s: %s [%s]: %s", manifest.FormatLocation(f.Location), f.Fix.Description, f.RuleID, group.why(f))))
		}
	}
	verb := "fixed"
	if dryRun {
		verb = "to fix (dry run: nothing written)"
	}
	if fixed > 0 || len(res.Unfixed)+len(res.NoEdit)+len(res.Deferred) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s %s in %s\n", plural(fixed, "finding"), verb, plural(len(files), "file"))
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
