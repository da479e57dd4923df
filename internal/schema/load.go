package schema

import (
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// CRDSource is a CRD file or directory given outside the checked inputs:
// Path is opened, Display names it in findings.
type CRDSource struct {
	Path, Display string
}

// LoadCRDs reads the CustomResourceDefinitions of files and directories
// (directories are walked for .yaml, .yml and .json files; other objects
// are ignored). A path that cannot be read, or a file that does not parse,
// is a problem with plumb's own input (exit 2); the CRDs that did load
// come back with them.
func LoadCRDs(sources []CRDSource, limits manifest.Limits) ([]*manifest.Object, []manifest.Problem) {
	var out []*manifest.Object
	var problems []manifest.Problem
	for _, src := range sources {
		info, err := os.Stat(src.Path)
		if err != nil {
			why := "no such file or directory"
			if !os.IsNotExist(err) {
				why = err.Error()
			}
			problems = append(problems, manifest.Problem{
				Rule: manifest.RuleUnreadable, Level: "error", Input: true, Config: true,
				Location: manifest.Location{File: src.Display},
				Message:  fmt.Sprintf("--crds %s: %s", src.Display, why),
			})
			continue
		}
		dir, paths, display := src.Path, []string{"."}, src.Display
		if !info.IsDir() {
			dir, paths, display = filepath.Dir(src.Path), []string{filepath.Base(src.Path)}, path.Dir(src.Display)
		}
		objs, probs := manifest.LoadExternal(dir, paths, display, limits, isCRD)
		out = append(out, objs...)
		problems = append(problems, probs...)
	}
	return out, problems
}
