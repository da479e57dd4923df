package policy

import (
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// The API group and kinds of the admission policies the analyzer reads.
const (
	admissionGroup = "admissionregistration.k8s.io"
	kindPolicy     = "ValidatingAdmissionPolicy"
	kindBinding    = "ValidatingAdmissionPolicyBinding"
)

// Source is a policy file or directory given outside the checked inputs
// (--policies, .plumb.yaml policies:): Path is opened, Display names it in
// findings.
type Source struct {
	Path, Display string
}

// isPolicyObject reports whether o is an admission policy or a binding of
// one, in an API version the analyzer reads (v1, and v1beta1, whose JSON
// shape is the same).
func isPolicyObject(o *manifest.Object) bool {
	switch o.ID.APIVersion {
	case admissionGroup + "/v1", admissionGroup + "/v1beta1":
		return o.ID.Kind == kindPolicy || o.ID.Kind == kindBinding
	}
	return false
}

// Load reads the admission policies and bindings of files and directories
// (directories are walked for .yaml, .yml and .json files; other objects
// are ignored), through the content boundary (manifest.LoadExternal opens
// each directory with manifest.OpenContent: no link leads out of it or
// into .git). A path that cannot be read, or a file that does not parse,
// is a problem with plumb's own input (exit 2); the objects that did load
// come back with them.
func Load(sources []Source, limits manifest.Limits) ([]*manifest.Object, []manifest.Problem) {
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
				Message:  fmt.Sprintf("--policies %s: %s", src.Display, why),
			})
			continue
		}
		dir, paths, display := src.Path, []string{"."}, src.Display
		if !info.IsDir() {
			dir, paths, display = filepath.Dir(src.Path), []string{filepath.Base(src.Path)}, path.Dir(src.Display)
		}
		objs, probs := manifest.LoadExternal(dir, paths, display, limits, isPolicyObject)
		out = append(out, objs...)
		problems = append(problems, probs...)
	}
	return out, problems
}
