package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// addCompletionCommand adds cobra's `completion bash|zsh|fish|powershell`
// now rather than when the root runs, so that an unknown shell is a usage
// error (exit 2) instead of the command's help and exit 0.
func addCompletionCommand(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return fmt.Errorf("completion: unknown shell %q: want bash, zsh, fish or powershell", args[0])
		}
	}
}
