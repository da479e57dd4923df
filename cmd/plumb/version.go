package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/plumb-ci/plumb/internal/pipeline"
)

// Release builds stamp these with the linker (.goreleaser.yaml, the
// Dockerfile); other builds take them from the Go build information.
var (
	commit = "" // the full commit id
	date   = "" // the commit's time, RFC 3339
)

func newVersionCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the plumb version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			info, _ := debug.ReadBuildInfo()
			fmt.Fprintln(stdout, versionLine(describeBuild(pipeline.Version, commit, date, info)))
			return nil
		},
	}
}

// build is what `plumb version` reports.
type build struct {
	version, commit, date string
	modified              bool // built from a working tree with changes
}

// describeBuild fills in what the linker did not stamp: a `go install
// …@v1.2.3` build knows its module version, and a build from a clone its
// VCS revision and time.
func describeBuild(version, commit, date string, info *debug.BuildInfo) build {
	b := build{version: version, commit: commit, date: date}
	if info == nil {
		return b
	}
	if b.version == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		b.version = strings.TrimPrefix(info.Main.Version, "v")
	}
	stamped := commit != ""
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if b.commit == "" {
				b.commit = s.Value
			}
		case "vcs.time":
			if b.date == "" {
				b.date = s.Value
			}
		case "vcs.modified":
			b.modified = !stamped && s.Value == "true"
		}
	}
	return b
}

// versionLine is `plumb VERSION (commit C, DATE, GO, OS/ARCH)`, leaving out
// what is unknown.
func versionLine(b build) string {
	var parts []string
	if b.commit != "" {
		c := "commit " + b.commit
		if b.modified {
			c += " with local changes"
		}
		parts = append(parts, c)
	}
	if b.date != "" {
		parts = append(parts, b.date)
	}
	parts = append(parts, runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH)
	return fmt.Sprintf("plumb %s (%s)", b.version, strings.Join(parts, ", "))
}

// releaseVersion is the version reports carry: the stamped one, else the
// module version of a `go install …@vX.Y.Z` build.
func releaseVersion() string {
	info, _ := debug.ReadBuildInfo()
	return describeBuild(pipeline.Version, commit, date, info).version
}
