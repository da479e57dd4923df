package manifest

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
)

// LoadExternal reads objects from outside the checked inputs (--crds,
// --kubevirt-templates): paths relative to dir, each a file or a directory
// walked for .yaml, .yml and .json files, and returns the objects keep
// accepts. Locations name the files as display/relative-path. Problems
// (unreadable or invalid files, which make the run exit 2 as plumb's own
// input) come back with the objects that did load.
//
// The files are read through an os.Root at dir: a symbolic link under it
// may not lead out of it, so a directory the repository names (schema.crds,
// kubevirt.templates in its own .plumb.yaml) reads nothing outside; and
// nothing inside .git (OpenContent).
func LoadExternal(dir string, paths []string, display string, limits Limits, keep func(*Object) bool) ([]*Object, []Problem) {
	var out []*Object
	fsys, root, err := OpenContent(dir)
	if err != nil {
		return nil, []Problem{{Rule: RuleUnreadable, Level: "error", Input: true, Config: true,
			Location: Location{File: display}, Message: fmt.Sprintf("%s: %v", display, err)}}
	}
	defer root.Close()
	set := Load(fsys, paths, LoadOptions{Limits: limits})
	problems := make([]Problem, 0, len(set.Problems))
	for _, p := range set.Problems {
		p.Location.File = path.Join(display, p.Location.File)
		p.Config = p.Input // the files are plumb's input, not the repository's content
		problems = append(problems, p)
	}
	for _, doc := range set.Documents {
		doc.File = path.Join(display, doc.File)
		objs, probs := doc.Objects("")
		problems = append(problems, probs...)
		for _, o := range objs {
			if keep(o) {
				out = append(out, o)
			}
		}
	}
	return out, problems
}

// Source is a file or directory given outside the checked inputs (--crds,
// --policies, their .plumb.yaml keys): Path is opened, Display names it in
// findings.
type Source struct {
	Path, Display string
}

// LoadSources reads the objects keep accepts from files and directories
// given by flag (named in messages, e.g. "--crds"), each through
// LoadExternal. A path that cannot be read, or a file that does not parse,
// is a problem with plumb's own input (exit 2); the objects that did load
// come back with them.
func LoadSources(flag string, sources []Source, limits Limits, keep func(*Object) bool) ([]*Object, []Problem) {
	var out []*Object
	var problems []Problem
	for _, src := range sources {
		info, err := os.Stat(src.Path)
		if err != nil {
			why := "no such file or directory"
			if !os.IsNotExist(err) {
				why = err.Error()
			}
			problems = append(problems, Problem{
				Rule: RuleUnreadable, Level: "error", Input: true, Config: true,
				Location: Location{File: src.Display},
				Message:  fmt.Sprintf("%s %s: %s", flag, src.Display, why),
			})
			continue
		}
		dir, paths, display := src.Path, []string{"."}, src.Display
		if !info.IsDir() {
			dir, paths, display = filepath.Dir(src.Path), []string{filepath.Base(src.Path)}, path.Dir(src.Display)
		}
		objs, probs := LoadExternal(dir, paths, display, limits, keep)
		out = append(out, objs...)
		problems = append(problems, probs...)
	}
	return out, problems
}
