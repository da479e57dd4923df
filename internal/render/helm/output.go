package helm

import (
	"fmt"
	"path"
	"strings"

	chart "helm.sh/helm/v4/pkg/chart/v2"
	release "helm.sh/helm/v4/pkg/release/v1"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"

	"github.com/plumb-ci/plumb/internal/manifest"
)

const notesFileSuffix = "NOTES.txt"

// assemble does what `helm template` does with the engine's output: NOTES
// left out, documents split and sorted in install order, CRDs first, hooks
// last; and makes objects of them, each with its provenance.
func (r *Renderer) assemble(c *Chart, ch *chart.Chart, req Request, files map[string]*rendered, src *origin, ix identityIndex) Output {
	var out Output
	texts := make(map[string]string, len(files))
	traces := map[string]*fileTrace{}
	var t *tracer
	for name, f := range files {
		if strings.HasSuffix(name, notesFileSuffix) {
			continue
		}
		if t == nil {
			t = f.tracer
		}
		ft := f.tracer.traceFile(f, ix)
		traces[name] = ft
		texts[name] = ft.out
	}
	hooks, manifests, err := releaseutil.SortManifests(texts, nil, releaseutil.InstallOrder)
	if err != nil {
		out.Problems = append(out.Problems, r.outputProblem(err, traces, c))
		return out
	}
	used := map[string][]int{}
	place := func(name, content string) (*fileTrace, int) {
		ft := traces[name]
		if ft == nil {
			return nil, -1
		}
		from := 0
		for {
			k := strings.Index(ft.out[from:], content)
			if k < 0 {
				return ft, -1
			}
			off := from + k
			if !containsInt(used[name], off) {
				used[name] = append(used[name], off)
				return ft, off
			}
			from = off + 1
		}
	}
	add := func(name, content string) {
		ft, off := place(name, content)
		docs, problems := manifest.Parse(name, []byte(content), r.limits)
		for _, p := range problems {
			if ft != nil && off >= 0 {
				p.Location = ft.position(off)
			}
			out.Problems = append(out.Problems, p)
		}
		for _, d := range docs {
			objs, ps := d.Objects(req.Target)
			for _, o := range objs {
				if ft != nil && off >= 0 {
					o.Origin = &chartOrigin{content: o.Content, node: o.Node, text: content, lines: lineStarts(content),
						base: off, trace: ft, values: src}
				}
				o.Doc = nil
				out.Objects = append(out.Objects, o)
			}
			for _, p := range ps {
				if ft != nil && off >= 0 {
					co := &chartOrigin{content: d.Value.(map[string]any), node: d.Node, text: content, lines: lineStarts(content), base: off, trace: ft, values: src}
					p.Location, _ = co.Locate(p.Path)
				}
				out.Problems = append(out.Problems, p)
			}
		}
	}
	if req.IncludeCRDs {
		for _, crd := range ch.CRDObjects() {
			out.Objects = append(out.Objects, r.crdObjects(c, crd, req.Target, &out)...)
		}
	}
	for _, m := range manifests {
		add(m.Name, m.Content)
	}
	if !req.SkipHooks {
		for _, h := range hooks {
			if req.SkipTests && isTestHook(h) {
				continue
			}
			add(h.Path, h.Manifest)
		}
	}
	return out
}

func isTestHook(h *release.Hook) bool {
	for _, e := range h.Events {
		if e == release.HookTest {
			return true
		}
	}
	return false
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// crdObjects reads a crds/ file as the plain file it is.
func (r *Renderer) crdObjects(c *Chart, crd chart.CRD, target string, out *Output) []*manifest.Object {
	name := c.repoFile(strings.TrimPrefix(crd.Name, "/"), crd.File.Data)
	if name == "" {
		name = c.archiveFor(strings.SplitN(crd.Filename, "/", 2)[0])
	}
	docs, problems := manifest.Parse(name, crd.File.Data, r.limits)
	out.Problems = append(out.Problems, problems...)
	var objs []*manifest.Object
	for _, d := range docs {
		os, ps := d.Objects(target)
		objs = append(objs, os...)
		out.Problems = append(out.Problems, ps...)
	}
	return objs
}

// outputProblem places Helm's "YAML parse error on FILE: ..." at the
// template.
func (r *Renderer) outputProblem(err error, traces map[string]*fileTrace, c *Chart) manifest.Problem {
	msg := err.Error()
	p := manifest.Problem{Rule: RuleTemplate, Level: "error", Location: manifest.Location{File: path.Join(c.Dir, "Chart.yaml")},
		Message: "the template's output is not valid YAML: " + msg}
	for name, ft := range traces {
		if strings.Contains(msg, name+":") {
			p.Location = ft.file.location(1, 1)
			if ft.file.repoFile != "" {
				p.Location = manifest.Location{File: ft.file.repoFile}
			}
			if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
				p.Message = fmt.Sprintf("the template's output is not valid YAML (%s); render it with `helm template --debug` to see the output", strings.TrimSpace(msg[strings.Index(msg, name)+len(name)+1:]))
			}
		}
	}
	p.Key = positionRE.ReplaceAllString(p.Message, "")
	return p
}

// position is the template position that wrote output offset off.
func (t *fileTrace) position(off int) manifest.Location {
	s, _, ok := t.at(off)
	if !ok {
		return t.file.location(1, 1)
	}
	return s.node.file.location(s.node.file.position(s.templateOffset(off)))
}

// templateOffset is where in its template source the segment wrote off: the
// same character of a text node, the action itself otherwise.
func (s segment) templateOffset(off int) int {
	if s.node.kind == kindText {
		d := off - s.start
		if d >= 0 && d < len(s.node.text) {
			return s.node.pos + d
		}
	}
	return s.node.pos
}
