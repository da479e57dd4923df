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
// is a problem; the CRDs that did load come back with them.
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
				Rule: manifest.RuleUnreadable, Level: "error", Input: true,
				Location: manifest.Location{File: src.Display},
				Message:  fmt.Sprintf("--crds %s: %s", src.Display, why),
			})
			continue
		}
		dir, paths, display := src.Path, []string{"."}, src.Display
		if !info.IsDir() {
			dir, paths, display = filepath.Dir(src.Path), []string{filepath.Base(src.Path)}, path.Dir(src.Display)
		}
		set := manifest.Load(os.DirFS(dir), paths, manifest.LoadOptions{Limits: limits})
		for _, p := range set.Problems {
			p.Location.File = path.Join(display, p.Location.File)
			problems = append(problems, p)
		}
		for _, doc := range set.Documents {
			doc.File = path.Join(display, doc.File)
			objs, probs := doc.Objects("")
			problems = append(problems, probs...)
			for _, o := range objs {
				if isCRD(o) {
					out = append(out, o)
				}
			}
		}
	}
	return out, problems
}
