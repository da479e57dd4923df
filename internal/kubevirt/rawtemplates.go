package kubevirt

import (
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// unprocessedTemplateVMs returns, for every Template among the rendered
// objects that the render stage did not process (no render.Template holds
// it), the VirtualMachines of its objects[] as they are written, located in
// the Template's file. Their rules can be linted though not evaluated: the
// VM still has its ${PARAMETER} references.
func unprocessedTemplateVMs(targets []*render.Target) []*manifest.Object {
	processed := map[string]bool{}
	for _, t := range targets {
		for _, tm := range t.Templates {
			if tm.Object != nil {
				processed[objectSite(tm.Object)] = true
			}
		}
	}
	var out []*manifest.Object
	for _, t := range targets {
		for _, o := range t.Objects {
			if !isTemplate(o) || processed[objectSite(o)] {
				continue
			}
			objs, _ := o.Content["objects"].([]any)
			for i, raw := range objs {
				content, ok := raw.(map[string]any)
				if !ok {
					continue
				}
				vm := &manifest.Object{
					ID:      manifest.IDOf(content, o.ID.Target),
					Content: content,
					Origin:  prefixed{o, manifest.Path{manifest.Key("objects"), manifest.Index(i)}},
					Doc:     o.Doc,
				}
				if !isVirtualMachine(vm) {
					continue
				}
				if o.Node != nil {
					_, vm.Node = manifest.NodeAt(o.Node, manifest.Path{manifest.Key("objects"), manifest.Index(i)})
				}
				out = append(out, vm)
			}
		}
	}
	return out
}

// objectSite identifies an object by where it is written.
func objectSite(o *manifest.Object) string {
	loc, _ := o.Locate(nil)
	return o.ID.Key() + "@" + manifest.FormatLocation(loc)
}

// prefixed locates paths below a field of another object.
type prefixed struct {
	obj    *manifest.Object
	prefix manifest.Path
}

func (p prefixed) Locate(q manifest.Path) (manifest.Location, bool) {
	return p.obj.Locate(p.prefix.Child(q...))
}
