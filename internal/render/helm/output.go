package helm

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	release "helm.sh/helm/v4/pkg/release/v1"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"

	"github.com/plumb-ci/plumb/internal/manifest"
)

const notesFileSuffix = "NOTES.txt"

// assemble does what `helm template` does with the engine's output
// (releaseutil.SortManifests and the printing of renderResources): NOTES
// left out, each file split into documents, hooks told from manifests by
// their helm.sh/hook annotation (unknown hook events dropped), both sorted
// by kind in install order, CRDs first, hooks last. Each document is parsed
// once, with positions, for both the sorting and the objects.
func (r *Renderer) assemble(c *Chart, ch *chart.Chart, req Request, files map[string]*rendered, src *origin, ix identityIndex) Output {
	var out Output
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	var manifests, hooks []*entry
	for _, name := range names {
		f := files[name]
		if strings.HasSuffix(name, notesFileSuffix) || strings.HasPrefix(path.Base(name), "_") {
			continue
		}
		ft := f.tracer.traceFile(f, ix)
		if strings.TrimSpace(ft.out) == "" {
			continue
		}
		split := releaseutil.SplitManifests(ft.out)
		keys := make([]string, 0, len(split))
		for k := range split {
			keys = append(keys, k)
		}
		sort.Sort(releaseutil.BySplitManifestsOrder(keys))
		cursor := 0
		for _, k := range keys {
			content := split[k]
			off := -1
			if i := strings.Index(ft.out[cursor:], content); i >= 0 {
				off = cursor + i
				cursor = off + len(content)
			}
			e := &entry{name: name, content: content, trace: ft, off: off}
			docs, problems := manifest.Parse(name, []byte(content), r.limits)
			for _, p := range problems {
				if off >= 0 {
					p.Location = ft.position(off + lineOffset(content, p.Location.Line))
					related := make([]manifest.Location, len(p.Related))
					for i, rl := range p.Related {
						related[i] = ft.position(off + lineOffset(content, rl.Line))
					}
					p.Related = related
				}
				p.Rule, p.Input, p.Level = RuleTemplate, false, "error"
				p.Message = "the template's output is not valid YAML: " + p.Message
				if dup := duplicateKeyRE.FindStringSubmatch(p.Message); dup != nil && len(p.Related) == 1 {
					p.Message = fmt.Sprintf("the template's output writes the key %s twice (first at %s): Helm keeps only the last value and kubectl apply rejects the object; keep one of them",
						dup[1], manifest.FormatLocation(p.Related[0]))
				}
				p.Key = name + ": " + positionRE.ReplaceAllString(p.Message, "")
				out.Problems = append(out.Problems, p)
			}
			if !onlyDuplicateKeys(problems) || len(docs) == 0 {
				// This document cannot be read: the chart's others still are.
				continue
			}
			// Helm (sigs.k8s.io/yaml) keeps a duplicate key's last value,
			// and so does the parsed document: the object is rendered as
			// Helm renders it, and the duplicate is an error at its line.
			for _, d := range docs {
				dropEarlierDuplicates(d.Node)
			}
			if len(docs) > 0 {
				e.doc = docs[0]
				e.kind, e.hook, e.events = head(docs[0])
			}
			switch {
			case e.hook && e.events == nil:
				// an unknown hook event: Helm skips the document
			case e.hook:
				hooks = append(hooks, e)
			default:
				manifests = append(manifests, e)
			}
		}
	}
	sort.SliceStable(manifests, func(i, j int) bool { return lessByKind(manifests[i].kind, manifests[j].kind) })
	sort.SliceStable(hooks, func(i, j int) bool { return lessByKind(hooks[i].kind, hooks[j].kind) })

	add := func(e *entry) {
		if e.doc == nil {
			return
		}
		objs, ps := e.doc.Objects(req.Target)
		origin := func(d *manifest.Document) *chartOrigin {
			m, _ := d.Value.(map[string]any)
			return &chartOrigin{content: m, node: d.Node, text: e.content, lines: lineStarts(e.content), base: e.off, trace: e.trace, values: src}
		}
		for _, o := range objs {
			if e.off >= 0 {
				co := origin(e.doc)
				co.content, co.node = o.Content, o.Node
				o.Origin = co
			}
			o.Doc = nil
			out.Objects = append(out.Objects, o)
		}
		for _, p := range ps {
			if e.off >= 0 {
				p.Location, _ = origin(e.doc).Locate(p.Path)
			}
			out.Problems = append(out.Problems, p)
		}
	}
	if req.IncludeCRDs {
		for _, crd := range ch.CRDObjects() {
			out.Objects = append(out.Objects, r.crdObjects(c, crd, req.Target, &out)...)
		}
	}
	for _, e := range manifests {
		add(e)
	}
	if !req.SkipHooks {
		for _, e := range hooks {
			if req.SkipTests && slices.Contains(e.events, "test") {
				continue
			}
			add(e)
		}
	}
	return out
}

// duplicateKeyRE reads the loader's duplicate key message.
var duplicateKeyRE = regexp.MustCompile(`duplicate key ("(?:[^"\\]|\\.)*")`)

// dropEarlierDuplicates removes from every mapping below n the earlier
// pairs of a key written twice, so that the node says what the value
// says: the last one, as Helm keeps it.
func dropEarlierDuplicates(n *yaml.Node) {
	if n == nil {
		return
	}
	if n.Kind == yaml.MappingNode {
		last := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Value != "<<" {
				last[k.Value] = i
			}
		}
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind == yaml.ScalarNode && k.Value != "<<" && last[k.Value] != i {
				continue
			}
			kept = append(kept, n.Content[i], n.Content[i+1])
		}
		n.Content = kept
	}
	for _, c := range n.Content {
		dropEarlierDuplicates(c)
	}
}

// onlyDuplicateKeys reports whether every problem is a duplicate key
// (none for no problem): the document is still read, with the last value.
func onlyDuplicateKeys(problems []manifest.Problem) bool {
	for _, p := range problems {
		if p.Rule != manifest.RuleDuplicateKey {
			return false
		}
	}
	return true
}

// entry is one document of a template's output.
type entry struct {
	name, content string
	trace         *fileTrace
	off           int
	doc           *manifest.Document
	kind          string
	hook          bool
	events        []string
}

// hookEvents are the hook events Helm knows (release.HookEvent values, and
// Helm 2's test-success).
var hookEvents = map[string]string{
	"pre-install": "pre-install", "post-install": "post-install", "pre-delete": "pre-delete",
	"post-delete": "post-delete", "pre-upgrade": "pre-upgrade", "post-upgrade": "post-upgrade",
	"pre-rollback": "pre-rollback", "post-rollback": "post-rollback", "test": "test", "test-success": "test",
}

// head reads what Helm's SimpleHead has: the kind, and the hook events of
// the helm.sh/hook annotation (nil when one is unknown).
func head(d *manifest.Document) (kind string, hook bool, events []string) {
	m, _ := d.Value.(map[string]any)
	kind, _ = m["kind"].(string)
	md, _ := m["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	v, ok := ann[release.HookAnnotation]
	if !ok {
		return kind, false, nil
	}
	s, _ := v.(string)
	for _, t := range strings.Split(s, ",") {
		e, ok := hookEvents[strings.ToLower(strings.TrimSpace(t))]
		if !ok {
			return kind, true, nil
		}
		events = append(events, e)
	}
	return kind, true, events
}

// installOrder indexes releaseutil.InstallOrder.
var installOrder = func() map[string]int {
	m := map[string]int{}
	for i, k := range releaseutil.InstallOrder {
		m[k] = i
	}
	return m
}()

// lessByKind is Helm's kind order: known kinds in install order, unknown
// kinds after them, alphabetically.
func lessByKind(a, b string) bool {
	first, aok := installOrder[a]
	second, bok := installOrder[b]
	switch {
	case !aok && !bok:
		return a < b
	case !aok:
		return false
	case !bok:
		return true
	}
	return first < second
}

// lineOffset is the byte offset of a 1-based line of s.
func lineOffset(s string, line int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return off
		}
		off += i + 1
	}
	return off
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
