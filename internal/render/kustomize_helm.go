package render

import (
	"bytes"
	"fmt"
	"path"
	"sync"

	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/types"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render/helm"
)

// A kustomization's helmCharts are inflated in-process, without a helm
// binary, by the same renderer as chart targets, and the output goes
// through the kustomization's transformers as `kustomize build
// --enable-helm` does: krusty builds a copy of the kustomization in which
// helmCharts is replaced by a resource file holding the rendered charts
// (kept in memory, never written), and the trace reads that file's
// documents with the chart's provenance, so a field points at the values
// line or template line of the chart, then through the kustomization's
// patches as for any resource.

// helmUse is one helmCharts entry of a kustomization.
type helmUse struct {
	index int
	entry types.HelmChart
	// chart is the vendored chart's repository-relative directory.
	chart string
	// generated is the resource file krusty reads the rendered chart from.
	generated string
}

// checkHelmCharts resolves the helmCharts entries of a kustomization to
// vendored charts; a chart that is not in the repository is a problem at its
// entry (plumb does not pull charts).
func (g *graph) checkHelmCharts(n *node, fail func(manifest.Path, string, ...any)) {
	k := n.k
	gen := manifest.Path{manifest.Key("helmChartInflationGenerator")}
	if key, _ := k.node(gen); key != nil {
		n.problems = append(n.problems, unsupported(k.at(gen), gen,
			"not supported: the deprecated helmChartInflationGenerator field, so the target is not rendered; use helmCharts (`kustomize edit fix` rewrites it)"))
	}
	home := "charts"
	if k.K.HelmGlobals != nil && k.K.HelmGlobals.ChartHome != "" {
		home = k.K.HelmGlobals.ChartHome
	}
	fsys := g.kc.files.fsys
	for i, hc := range k.K.HelmCharts {
		p := manifest.Path{manifest.Key("helmCharts"), manifest.Index(i)}
		if hc.Name == "" {
			fail(p, "chart name cannot be empty")
			continue
		}
		dir := home
		if hc.Version != "" && hc.Repo != "" {
			dir = path.Join(home, hc.Name+"-"+hc.Version)
		}
		chart, err := resolve(k.Dir, path.Join(dir, hc.Name))
		if err != nil {
			fail(p, "%v", err)
			continue
		}
		if !manifest.IsHelmChartDir(fsys, chart) {
			home := path.Join(k.Dir, dir)
			pull := "helm pull " + hc.Name
			if hc.Repo != "" {
				pull += " --repo " + hc.Repo
			}
			if hc.Version != "" {
				pull += " --version " + hc.Version
			}
			// A chart kustomize would download: what cannot be rendered
			// offline is a warning, and the target is not rendered.
			n.problems = append(n.problems, manifest.Problem{Rule: RuleRemote, Level: "warning", Location: k.at(p), Key: "remote:" + p.String(),
				Message: fmt.Sprintf("%s: chart %s is not vendored in %s: target not rendered, because plumb renders charts offline, from the repository. Vendor it (`%s --untar --untardir %s`, or run `kustomize build --enable-helm` once) and commit %s",
					p, hc.Name, home, pull, home, path.Join(home, hc.Name))})
			continue
		}
		for _, f := range append([]string{hc.ValuesFile}, hc.AdditionalValuesFiles...) {
			if f == "" {
				continue
			}
			full, err := resolve(k.Dir, f)
			if err != nil || !fileExists(fsys, full) {
				fail(p, "values file %q not found", f)
				continue
			}
			n.files = append(n.files, full) // a values file, not a manifest
			n.inputs[full] = manifest.SkipKustomizeConfig
		}
		n.helm = append(n.helm, helmUse{index: i, entry: hc, chart: chart,
			generated: path.Join(k.Dir, fmt.Sprintf(".plumb-helm-%d-%s.yaml", i, hc.Name))})
	}
}

// kustomizeHelm renders the charts of kustomizations once per render.
type kustomizeHelm struct {
	mu     sync.Mutex
	r      *helm.Renderer
	charts map[string]*helm.Chart
	out    map[string]*inflated
}

// inflated is the output of one helmCharts entry.
type inflated struct {
	text     []byte
	docs     []*srcDoc
	problems []manifest.Problem
}

func (r *renderer) helmInflater() *kustomizeHelm {
	r.helmOnce.Do(func() {
		r.helm = &kustomizeHelm{r: r.helmRenderer(), charts: map[string]*helm.Chart{}, out: map[string]*inflated{}}
	})
	return r.helm
}

// inflate renders one helmCharts entry, once per render.
func (r *renderer) inflate(k *kustomization, u helmUse) *inflated {
	h := r.helmInflater()
	h.mu.Lock()
	defer h.mu.Unlock()
	if got := h.out[u.generated]; got != nil {
		return got
	}
	res := &inflated{}
	h.out[u.generated] = res
	at := k.at(manifest.Path{manifest.Key("helmCharts"), manifest.Index(u.index)})
	c := h.charts[u.chart]
	if c == nil {
		var err error
		if c, err = helm.LoadChart(r.files.fsys, u.chart, r.opts.Limits); err != nil {
			res.problems = append(res.problems, manifest.Problem{Rule: helm.RuleChart, Level: "error", Location: at, Key: u.chart,
				Message: fmt.Sprintf("helmCharts[%d]: chart %s cannot be read: %v", u.index, u.chart, err)})
			return res
		}
		h.charts[u.chart] = c
	}
	e := u.entry
	req := helm.Request{Target: k.Dir, ReleaseName: e.ReleaseName, Namespace: e.Namespace, KubeVersion: r.opts.Helm.KubeVersion,
		APIVersions: e.ApiVersions, IncludeCRDs: e.IncludeCRDs, SkipHooks: e.SkipHooks, SkipTests: e.SkipTests, At: at}
	if e.KubeVersion != "" {
		req.KubeVersion = e.KubeVersion
	}
	entry := manifest.Path{manifest.Key("helmCharts"), manifest.Index(u.index)}
	valuesFile := ""
	if e.ValuesFile != "" {
		valuesFile, _ = resolve(k.Dir, e.ValuesFile)
	}
	inline := helm.Source{}
	if len(e.ValuesInline) > 0 {
		base := entry.Child(manifest.Key("valuesInline"))
		inline = helm.Source{Inline: e.ValuesInline, At: k.at(base), InlineLocate: func(rel manifest.Path) (manifest.Location, bool) {
			key, _ := k.node(base.Child(rel...))
			if key == nil {
				return manifest.Location{}, false
			}
			return k.at(base.Child(rel...)), true
		}}
	}
	// kustomize's valuesMerge: override (default) lays the inline values
	// over the values file, merge lays the file over them, replace drops
	// the file.
	switch {
	case inline.Inline == nil && valuesFile != "":
		req.Sources = append(req.Sources, helm.Source{File: valuesFile, At: at})
	case inline.Inline == nil:
	case e.ValuesMerge == "merge":
		req.Sources = append(req.Sources, inline)
		if valuesFile != "" {
			req.Sources = append(req.Sources, helm.Source{File: valuesFile, At: at})
		}
	case e.ValuesMerge == "replace":
		req.Sources = append(req.Sources, inline)
	default:
		if valuesFile != "" {
			req.Sources = append(req.Sources, helm.Source{File: valuesFile, At: at})
		}
		req.Sources = append(req.Sources, inline)
	}
	for _, f := range e.AdditionalValuesFiles {
		full, _ := resolve(k.Dir, f)
		req.Sources = append(req.Sources, helm.Source{File: full, At: at})
	}
	out := h.r.Render(c, req)
	res.problems = out.Problems
	if len(out.Problems) > 0 {
		for _, p := range out.Problems {
			if p.Level == "error" {
				res.problems = append(res.problems, manifest.Problem{Rule: RuleKustomize, Level: "error", Location: at, Key: "helm:" + u.generated,
					Message: fmt.Sprintf("helmCharts[%d]: chart %s does not render (%s)", u.index, e.Name, p.Message)})
				return res
			}
		}
	}
	var buf bytes.Buffer
	for i, o := range out.Objects {
		if i > 0 {
			buf.WriteString("---\n")
		}
		text, err := objectYAML(o)
		if err != nil {
			res.problems = append(res.problems, manifest.Problem{Rule: RuleKustomize, Level: "error", Location: at, Key: "helm:" + u.generated,
				Message: fmt.Sprintf("helmCharts[%d]: %v", u.index, err)})
			return res
		}
		buf.Write(text)
	}
	res.text = buf.Bytes()
	docs, _ := manifest.Parse(u.generated, res.text, r.opts.Limits)
	for i, d := range docs {
		sd := &srcDoc{doc: d}
		if i < len(out.Objects) {
			sd.origin = out.Objects[i].Origin
		}
		res.docs = append(res.docs, sd)
	}
	return res
}

// helmGeneratedAnnotation marks what kustomize's helm generator made
// (konfig.HelmGeneratedAnnotation): krusty's namespace transformer leaves
// such objects alone ("Helm should take care of it") and the annotation is
// dropped from the output.
const helmGeneratedAnnotation = "internal.config.kubernetes.io/helm-generated"

// objectYAML prints an object with its own node (key order as rendered),
// marked as generated by helm.
func objectYAML(o *manifest.Object) ([]byte, error) {
	var first bytes.Buffer
	enc := yaml.NewEncoder(&first)
	enc.SetIndent(2)
	var err error
	if o.Node != nil {
		err = enc.Encode(o.Node)
	} else {
		err = enc.Encode(o.Content)
	}
	if err == nil {
		err = enc.Close()
	}
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(first.Bytes(), &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return first.Bytes(), nil
	}
	md := mappingValue(doc.Content[0], "metadata")
	ann := mappingValue(md, "annotations")
	ann.Content = append(ann.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: helmGeneratedAnnotation},
		&yaml.Node{Kind: yaml.ScalarNode, Value: "true", Style: yaml.DoubleQuotedStyle})
	var out bytes.Buffer
	enc = yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return out.Bytes(), enc.Close()
}

// mappingValue returns the mapping at key of m, adding it when absent.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key && m.Content[i+1].Kind == yaml.MappingNode {
			return m.Content[i+1]
		}
	}
	v := &yaml.Node{Kind: yaml.MappingNode}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	return v
}

// helmOverrides are the files krusty reads instead of the repository's for
// a closure whose kustomizations inflate charts: each such kustomization
// without helmCharts and with the rendered charts listed as resources, and
// the rendered charts. nil when no kustomization of the closure has charts.
func (r *renderer) helmOverrides(c *closure) (map[string][]byte, []manifest.Problem) {
	var over map[string][]byte
	var problems []manifest.Problem
	for _, n := range c.nodes {
		if len(n.helm) == 0 {
			continue
		}
		if over == nil {
			over = map[string][]byte{}
		}
		var files []string
		for _, u := range n.helm {
			inf := r.inflate(n.k, u)
			problems = append(problems, inf.problems...)
			over[u.generated] = inf.text
			r.docs.put(u.generated, inf.docs)
			files = append(files, path.Base(u.generated))
		}
		data, err := r.files.read(n.k.File)
		if err != nil {
			problems = append(problems, manifest.Problem{Rule: RuleKustomize, Level: "error", Location: n.k.Doc.Start(), Input: true,
				Message: fmt.Sprintf("cannot read %s: %v", n.k.File, err)})
			continue
		}
		rewritten, err := withoutHelmCharts(data, files)
		if err != nil {
			problems = append(problems, manifest.Problem{Rule: RuleKustomize, Level: "error", Location: n.k.Doc.Start(), Input: true,
				Message: fmt.Sprintf("cannot rewrite %s: %v", n.k.File, err)})
			continue
		}
		over[n.k.File] = rewritten
	}
	return over, problems
}

// withoutHelmCharts removes helmCharts and helmGlobals from a kustomization
// and lists files at the end of its resources.
func withoutHelmCharts(data []byte, files []string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("not a mapping")
	}
	m := doc.Content[0]
	var resources *yaml.Node
	var kept []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		switch m.Content[i].Value {
		case "helmCharts", "helmGlobals":
			continue
		case "resources":
			resources = m.Content[i+1]
		}
		kept = append(kept, m.Content[i], m.Content[i+1])
	}
	if resources == nil || resources.Kind != yaml.SequenceNode {
		resources = &yaml.Node{Kind: yaml.SequenceNode}
		kept = append(kept, &yaml.Node{Kind: yaml.ScalarNode, Value: "resources"}, resources)
	}
	for _, f := range files {
		resources.Content = append(resources.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: f})
	}
	m.Content = kept
	return yaml.Marshal(&doc)
}

// kustomizeCharts lists the chart directories kustomizations inflate: they
// are not rendered again on their own.
func kustomizeCharts(closures map[string]*closure) map[string]bool {
	out := map[string]bool{}
	for _, c := range closures {
		for _, n := range c.nodes {
			for _, u := range n.helm {
				out[u.chart] = true
			}
		}
	}
	return out
}

// helmResources are the objects a kustomization's charts rendered, traced
// like the documents of a resource file (after its generators, as krusty
// runs the helm generator after configMapGenerator and secretGenerator).
func (t *tracer) helmResources(k *kustomization) []*tres {
	n := t.g.node(k.Dir)
	if n == nil {
		return nil
	}
	var out []*tres
	for _, u := range n.helm {
		for _, r := range t.fileResources(u.generated) {
			r.helmGenerated = true
			out = append(out, r)
		}
	}
	return out
}

// closureHasCharts reports whether a kustomization of the closure inflates
// charts: such builds read chart files krusty's access log does not see,
// so pull-request mode does not share them between revisions.
func closureHasCharts(c *closure) bool {
	for _, n := range c.nodes {
		if len(n.helm) > 0 {
			return true
		}
	}
	return false
}
