package compare

import (
	"fmt"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// Problem is something wrong with a reference, a diff configuration, an
// overrides file or an input, located at a file and line. Warnings do not
// stop anything; errors make the run exit 2.
type Problem struct {
	Location manifest.Location
	Message  string
	Warning  bool
	// Info marks warnings about the reference itself that a user of the
	// reference cannot act on (overlapping templates): notes in plumb check.
	Info bool
}

func (p Problem) Error() string {
	if p.Location.File == "" {
		return p.Message
	}
	return fmt.Sprintf("%s: %s", manifest.FormatLocation(p.Location), p.Message)
}

func loc(file string, line int) manifest.Location {
	return manifest.Location{File: file, Line: line}
}

// Problems is a list of problems; as an error it prints one per line.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Errors returns the problems that are not warnings.
func (ps Problems) Errors() Problems {
	var out Problems
	for _, p := range ps {
		if !p.Warning {
			out = append(out, p)
		}
	}
	return out
}
