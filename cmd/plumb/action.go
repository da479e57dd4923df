package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/plumb-ci/plumb/internal/action"
	"github.com/plumb-ci/plumb/internal/pipeline"
)

func newActionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "action",
		Short: "Run as the GitHub Action (inputs from INPUT_*, context from GITHUB_*)",
		Long: `action is what the plumb GitHub Action runs: it reads the action's inputs
(INPUT_PATHS, INPUT_FAIL-ON, ...) and the workflow's event, runs the same
pipeline as check, then writes the SARIF and JSON reports, annotations, review
comments on the changed lines, the summary comment and the job summary, and
sets the step's outputs. See docs/github-action.md.

Inside an Actions step (GITHUB_ACTIONS=true with INPUT_* variables set) the
binary starts in this mode when run without arguments.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if code := action.Run(cmd.Context(), action.OSEnv(stdout)); code != pipeline.ExitOK {
				return exitError{code}
			}
			return nil
		},
	}
}

// actionArgs starts the action when the binary runs as an action step
// without arguments.
func actionArgs(args []string) []string {
	if len(args) == 0 && action.Detected(os.Environ()) {
		return []string{"action"}
	}
	return args
}
