package kubevirt

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// templateIndex finds parent Templates by namespace and name, as the
// validator's informer cache does.
type templateIndex struct {
	byKey map[string]*manifest.Object
	// unnamespaced holds Templates written without a namespace (as the
	// common templates are shipped): they match a reference from any
	// namespace, since the namespace is chosen when they are applied.
	unnamespaced map[string]*manifest.Object
}

func newTemplateIndex() *templateIndex {
	return &templateIndex{byKey: map[string]*manifest.Object{}, unnamespaced: map[string]*manifest.Object{}}
}

// add records a Template; the first of a key wins, so rendered Templates
// (added first) shadow the --kubevirt-templates ones.
func (ix *templateIndex) add(o *manifest.Object) {
	if o.ID.Name == "" {
		return
	}
	if o.ID.Namespace == "" {
		if _, dup := ix.unnamespaced[o.ID.Name]; !dup {
			ix.unnamespaced[o.ID.Name] = o
		}
		return
	}
	key := o.ID.Namespace + "/" + o.ID.Name
	if _, dup := ix.byKey[key]; !dup {
		ix.byKey[key] = o
	}
}

// lookup returns the Template namespace/name, or nil.
func (ix *templateIndex) lookup(namespace, name string) *manifest.Object {
	if o := ix.byKey[namespace+"/"+name]; o != nil {
		return o
	}
	return ix.unnamespaced[name]
}

// renderedTemplates lists the Templates of the targets: the processed ones
// and any Template object among the rendered objects, each once, in target
// order.
func renderedTemplates(targets []*render.Target) []*manifest.Object {
	seen := map[*manifest.Object]bool{}
	var out []*manifest.Object
	add := func(o *manifest.Object) {
		if o != nil && !seen[o] && isTemplate(o) {
			seen[o] = true
			out = append(out, o)
		}
	}
	for _, t := range targets {
		for _, tm := range t.Templates {
			add(tm.Object)
		}
		for _, o := range t.Objects {
			add(o)
		}
	}
	return out
}

// LoadTemplates reads the Templates of the --kubevirt-templates
// directories. Each directory is walked for .yaml, .yml and .json files;
// objects other than Templates are ignored. Reported locations name the
// files as dir/relative-path. Problems (unreadable or invalid files, a
// missing directory) come back with the Templates that did load.
func LoadTemplates(dirs []string, limits manifest.Limits) ([]*manifest.Object, []manifest.Problem) {
	var out []*manifest.Object
	var problems []manifest.Problem
	for _, dir := range dirs {
		info, err := os.Stat(dir)
		if err != nil || !info.IsDir() {
			why := "not a directory"
			if err != nil {
				why = "the directory does not exist"
				if !os.IsNotExist(err) {
					why = err.Error()
				}
			}
			problems = append(problems, manifest.Problem{
				Rule: manifest.RuleUnreadable, Level: "error", Input: true, Config: true,
				Location: manifest.Location{File: filepath.ToSlash(dir)},
				Message:  fmt.Sprintf("--kubevirt-templates %s: %s", dir, why),
			})
			continue
		}
		objs, probs := manifest.LoadExternal(dir, []string{"."}, filepath.ToSlash(dir), limits, isTemplate)
		out = append(out, objs...)
		problems = append(problems, probs...)
	}
	return out, problems
}
