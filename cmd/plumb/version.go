package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/plumb-ci/plumb/internal/pipeline"
)

func newVersionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the plumb version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintf(stdout, "plumb %s (%s, %s/%s%s)\n", pipeline.Version, runtime.Version(), runtime.GOOS, runtime.GOARCH, revision())
			return nil
		},
	}
}

// revision is the VCS revision the binary was built from, when known.
func revision() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return ", " + s.Value[:12]
		}
	}
	return ""
}
