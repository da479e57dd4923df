package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// kubectl runs a plugin named kubectl-NAME for `kubectl NAME ...`, with the
// same arguments; installed under that name (krew, or a copy on PATH), plumb
// behaves exactly as plumb and only says `kubectl plumb` in its help.
const kubectlPluginBinary = "kubectl-plumb"

// displayAsInvoked makes the help and usage texts name the command the way
// the user typed it.
func displayAsInvoked(root *cobra.Command) {
	if invokedAsKubectlPlugin(os.Args[0]) {
		root.Annotations = map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl plumb"}
	}
}

func invokedAsKubectlPlugin(argv0 string) bool {
	return strings.TrimSuffix(filepath.Base(argv0), ".exe") == kubectlPluginBinary
}
