// Command plumb checks Kubernetes manifests the way a senior reviewer would
// and says exactly which line to change. This package only wires flags to
// the pipeline; the work happens in internal/.
package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/spf13/cobra"

	"github.com/plumb-ci/plumb/internal/pipeline"
	"github.com/plumb-ci/plumb/internal/redact"
)

// exitError carries an exit code out of a command.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func main() {
	pipeline.Version = releaseVersion()
	// The tokens in the environment never reach an output: every sink
	// redacts them with the process's Set (internal/redact).
	tokens := redact.FromEnv(os.LookupEnv)
	redact.Install(tokens)
	stdout, stderr := tokens.Writer(os.Stdout), tokens.Writer(os.Stderr)
	log.SetOutput(stderr)
	code := run(actionArgs(os.Args[1:]), stdout, stderr)
	stdout.Flush()
	stderr.Flush()
	os.Exit(code)
}

// run executes the CLI and returns the process exit code.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCommand(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	var ee exitError
	switch {
	case err == nil:
		return pipeline.ExitOK
	case errors.As(err, &ee):
		return ee.code
	default:
		fmt.Fprintf(stderr, "plumb: %v\n", err)
		return pipeline.ExitError
	}
}

func newRootCommand(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "plumb",
		Short: "Check Kubernetes manifests and point at the line to change",
		Long: `plumb loads Kubernetes manifests (plain YAML and JSON files, kustomizations
built in-process, OpenShift Templates), checks them and reports every finding
at the file, line and column a person must edit — through kustomize bases and
the overlay patch that set the value.

Start with:
  plumb check                 check every manifest below the working directory
  plumb check apps/ --format json=report.json
  plumb render apps/web       print the objects plumb sees

Exit codes: 0 nothing at or above --fail-on, 1 findings at or above it,
2 plumb cannot do what it was asked: a usage error, or a configuration,
catalog, rules file or reference that does not load (the message names the
file and line). Problems in the repository's files are findings.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	displayAsInvoked(root)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(newCheckCommand(stdout, stderr), newRenderCommand(stdout, stderr), newVersionCommand(stdout),
		newActionCommand(stdout), newRulesCommand(stdout, stderr))
	root.AddCommand(newCompareCommand(stdout, stderr))
	root.AddCommand(newMergeCommand(stdout))
	root.AddCommand(newChecksCommand(stdout, stderr))
	root.AddCommand(newFixCommand(stdout, stderr))
	addCompletionCommand(root)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w\nRun '%s --help' for usage", err, c.CommandPath())
	})
	return root
}
