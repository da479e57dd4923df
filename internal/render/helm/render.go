// Package helm renders Helm charts in-process, as `helm template` does,
// with Helm 4's library (helm.sh/helm/v4), and records for every field of
// every rendered object the values line or template line that wrote it.
package helm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	ci "helm.sh/helm/v4/pkg/chart"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/strvals"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// Rule ids of the problems chart rendering reports.
const (
	// RuleChart: Chart.yaml cannot be read, or the chart does not accept
	// the Kubernetes version.
	RuleChart = "render/helm-chart"
	// RuleTemplate: a template does not parse or fails (required, fail, a
	// type error), or its output is not YAML.
	RuleTemplate = "render/helm-template"
	// RuleValues: a values file does not parse or breaks values.schema.json.
	RuleValues = "render/helm-values"
	// RuleDuplicateKey: values write a key twice, of which Helm keeps the
	// last (a warning).
	RuleDuplicateKey = "render/helm-duplicate-key"
	// RuleDependency: a dependency of Chart.yaml that the values enable is
	// not in charts/ (and was not fetched): a warning, or an error when the
	// repository vendors the dependencies Chart.lock pins but not this one.
	RuleDependency = "render/helm-dependency"
	// RuleNotRendered: a chart plumb does not render (a remote chart named
	// by a HelmRelease or an Application): a note.
	RuleNotRendered = "render/helm-not-rendered"
)

// Request is one render of a chart: `helm template` with these flags.
type Request struct {
	// Target names the render target (the objects' ObjectID.Target).
	Target string
	// ReleaseName defaults to "release-name", Namespace to "default".
	ReleaseName, Namespace string
	// KubeVersion is .Capabilities.KubeVersion (e.g. "v1.37.0").
	KubeVersion string
	// APIVersions are added to .Capabilities.APIVersions.
	APIVersions []string
	// ServedAPIVersions, when set, replace Helm's default
	// .Capabilities.APIVersions (client-go's scheme, which lists versions
	// no API server serves any more): the group/versions and
	// group/version/Kinds of the embedded schema, so a chart that chooses
	// an API version by capability chooses a served one.
	ServedAPIVersions []string
	Sources           []Source
	// IncludeCRDs puts the crds/ files first, as --include-crds does.
	IncludeCRDs bool
	// SkipHooks leaves hooks out (kustomize's helmCharts does not print
	// them unless asked... it does: kept for completeness).
	SkipHooks bool
	// SkipTests leaves test hooks out (--skip-tests; kustomize's
	// skipTests).
	SkipTests bool
	// At is where the target is defined (a .plumb.yaml helm: entry), for
	// problems that have no better place.
	At manifest.Location
}

// Output is what a render produced.
type Output struct {
	Objects  []*manifest.Object
	Problems []manifest.Problem
}

// Renderer renders the charts of one repository.
type Renderer struct {
	fsys   fs.FS
	limits manifest.Limits
	mu     sync.Mutex
	values *valuesDocs
	// Reported, when set, tells the files whose YAML problems (duplicate
	// keys among them) the manifest loader reports: their duplicate keys
	// are not reported again.
	Reported func(file string) bool
}

// NewRenderer reads charts and values files through fsys.
func NewRenderer(fsys fs.FS, limits manifest.Limits) *Renderer {
	return &Renderer{fsys: fsys, limits: limits, values: &valuesDocs{fsys: fsys, limits: limits, docs: map[string]*parsedValues{}}}
}

func (r *Renderer) valuesFile(file string) *parsedValues {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.values.get(file)
}

// Render renders c as `helm template` would with req.
func (r *Renderer) Render(c *Chart, req Request) Output {
	var out Output
	if req.ReleaseName == "" {
		req.ReleaseName = "release-name"
	}
	if req.Namespace == "" {
		req.Namespace = "default"
	}
	chartFile := path.Join(c.Dir, "Chart.yaml")
	chartDoc := r.valuesFile(chartFile).doc
	at := func(p string) manifest.Location {
		if chartDoc == nil {
			return manifest.Location{File: chartFile, Line: 1, Column: 1}
		}
		loc, _ := chartDoc.Locate(manifest.MustParsePath(p))
		return loc
	}
	problem := func(rule string, loc manifest.Location, format string, args ...any) Output {
		out.Problems = append(out.Problems, manifest.Problem{Rule: rule, Level: "error", Location: loc,
			Message: fmt.Sprintf(format, args...)})
		return out
	}

	ch, err := c.load()
	if err != nil {
		return problem(RuleChart, at(""), "the chart cannot be loaded: %v", err)
	}
	// Read before ProcessDependencies renames aliased entries and drops
	// disabled subcharts (unvendored.go).
	missing, vendors := unvendoredDependencies(ch), c.vendorsPinned(ch)

	vals, layers, bad := r.mergeSources(req.Sources)
	if bad != nil {
		out.Problems = append(out.Problems, *bad)
		return out
	}
	for _, s := range req.Sources {
		if s.File != "" {
			out.Problems = append(out.Problems, r.duplicates(s.File)...)
		}
	}
	for _, file := range chartValuesFiles(c, ch) {
		out.Problems = append(out.Problems, r.duplicates(file)...)
	}
	if err := chartutil.ProcessDependencies(ch, vals); err != nil {
		return problem(RuleDependency, at("dependencies"), "chart dependencies cannot be processed: %v", err)
	}
	if ps := c.neededProblems(ch, missing, vendors, r.dependencyAt(c, ch, at)); len(ps) > 0 {
		out.Problems = append(out.Problems, ps...)
		return out
	}
	caps := common.DefaultCapabilities.Copy()
	if req.KubeVersion != "" {
		kv, err := common.ParseKubeVersion(req.KubeVersion)
		if err != nil {
			return problem(RuleChart, req.At, "invalid Kubernetes version %q: %v", req.KubeVersion, err)
		}
		caps.KubeVersion = *kv
	}
	if len(req.ServedAPIVersions) > 0 {
		caps.APIVersions = slices.Clone(req.ServedAPIVersions)
	}
	caps.APIVersions = append(caps.APIVersions, req.APIVersions...)
	if kv := ch.Metadata.KubeVersion; kv != "" && !chartutil.IsCompatibleRange(kv, caps.KubeVersion.String()) {
		return problem(RuleChart, at("kubeVersion"),
			"chart requires kubeVersion: %s which is incompatible with Kubernetes %s; render for another version with --kubernetes-version (or kubernetes_version in .plumb.yaml)",
			kv, caps.KubeVersion.Version)
	}
	options := common.ReleaseOptions{Name: req.ReleaseName, Namespace: req.Namespace, Revision: 1, IsInstall: true}
	toRender, err := util.ToRenderValuesWithSchemaValidation(ch, vals, options, caps, true)
	if err != nil {
		return problem(RuleValues, at(""), "values cannot be prepared: %v", err)
	}
	src := r.valueOrigin(c, ch, layers)
	if ps := r.validateSchema(c, ch, toRender, src); len(ps) > 0 {
		out.Problems = append(out.Problems, ps...)
		return out
	}

	tpls, err := allTemplates(ch, toRender, func(a ci.Accessor, f *common.File) *tmplFile {
		tf := &tmplFile{src: string(f.Data)}
		if tf.repoFile = c.repoFile(f.Name, f.Data); tf.repoFile == "" {
			tf.archive = c.archiveFor(a.Name())
		}
		return tf
	})
	if err != nil {
		return problem(RuleTemplate, at(""), "%v", err)
	}
	files, err := render(c.trees, tpls, req.Target, newBudget(r.limits))
	if err != nil {
		out.Problems = append(out.Problems, templateProblem(err, tpls, at("")))
		return out
	}
	res := r.assemble(c, ch, req, files, src, indexValues(toRender["Values"]))
	res.Problems = append(out.Problems, res.Problems...)
	return res
}

// duplicates are the keys a values file writes twice, unless the loader
// reports the file's YAML already (Reported).
func (r *Renderer) duplicates(file string) []manifest.Problem {
	if r.Reported != nil && r.Reported(file) {
		return nil
	}
	return r.valuesFile(file).duplicates
}

type missingDep struct {
	index int
	name  string
}

// missingDependencies is Helm's CheckDependencies, with the entries'
// positions.
func missingDependencies(ch *chart.Chart) []missingDep {
	var out []missingDep
outer:
	for i, d := range ch.Metadata.Dependencies {
		if d == nil {
			continue
		}
		for _, have := range ch.Dependencies() {
			if have.Name() == d.Name {
				continue outer
			}
		}
		out = append(out, missingDep{i, d.Name})
	}
	return out
}

// mergeSources merges the values sources as Helm's values.Options does,
// and returns the layers that locate them (last given first).
func (r *Renderer) mergeSources(sources []Source) (map[string]any, []layer, *manifest.Problem) {
	base := map[string]any{}
	var layers []layer
	for _, s := range sources {
		switch {
		case s.File != "":
			p := r.valuesFile(s.File)
			if p.err != nil {
				loc := s.At
				if loc.IsZero() {
					loc = manifest.Location{File: s.File, Line: 1, Column: 1}
				}
				if m := yamlLineRE.FindStringSubmatch(p.err.Error()); m != nil && p.data != nil {
					n, _ := strconv.Atoi(m[1])
					loc = manifest.Location{File: s.File, Line: n, Column: 1}
				}
				why := p.err.Error()
				var fe *FileError
				if errors.As(p.err, &fe) {
					loc, why = fe.At, fe.Err
				}
				if refusedRead(p.err) && !s.At.IsZero() {
					loc = s.At // what to edit is the line that names the file
				}
				return nil, nil, &manifest.Problem{Rule: RuleValues, Level: "error", Location: loc,
					Message: fmt.Sprintf("values file %s cannot be read: %s", s.File, why)}
			}
			base = loader.MergeMaps(base, deepCopy(p.vals))
			layers = append(layers, docLayer(nil, p.doc))
		case s.Inline != nil:
			// As the controllers read them: through JSON (numbers are
			// float64, as in values files).
			inline, err := viaJSON(s.Inline)
			if err != nil {
				return nil, nil, &manifest.Problem{Rule: RuleValues, Level: "error", Location: s.At,
					Message: fmt.Sprintf("inline values cannot be read: %v", err)}
			}
			base = loader.MergeMaps(base, inline)
			loc := s.InlineLocate
			layers = append(layers, layer{locate: func(rel manifest.Path) (manifest.Location, bool) {
				if loc == nil {
					return manifest.Location{}, false
				}
				return loc(rel)
			}})
		case s.Set != "":
			var err error
			if s.String {
				err = strvals.ParseIntoString(s.Set, base)
			} else {
				err = strvals.ParseInto(s.Set, base)
			}
			if err != nil {
				flag := "--set"
				if s.String {
					flag = "--set-string"
				}
				return nil, nil, &manifest.Problem{Rule: RuleValues, Level: "error", Location: s.At,
					Message: fmt.Sprintf("failed parsing %s data %q: %v", flag, s.Set, err)}
			}
			layers = append(layers, setLayer(s.Set, s.String, s.At))
		}
	}
	for i, j := 0, len(layers)-1; i < j; i, j = i+1, j-1 {
		layers[i], layers[j] = layers[j], layers[i]
	}
	return base, layers, nil
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

func viaJSON(m map[string]any) (map[string]any, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return loader.LoadValues(bytes.NewReader(b))
}

func deepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = deepCopyValue(v)
	}
	return out
}

func deepCopyValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		return deepCopy(t)
	case []any:
		out := make([]any, len(t))
		for i, c := range t {
			out[i] = deepCopyValue(c)
		}
		return out
	}
	return v
}

// chartValuesFiles are the repository files of the values.yaml of the
// chart and of its subchart directories.
func chartValuesFiles(c *Chart, ch *chart.Chart) []string {
	var out []string
	var walk func(ch *chart.Chart)
	walk = func(ch *chart.Chart) {
		for _, f := range ch.Raw {
			if f.Name == "values.yaml" {
				if file := c.repoFile(f.Name, bytes.TrimPrefix(f.Data, utf8bom)); file != "" {
					out = append(out, file)
				}
			}
		}
		for _, d := range ch.Dependencies() {
			walk(d)
		}
	}
	walk(ch)
	return out
}

// valueOrigin adds the chart's values.yaml and its subcharts' (each at its
// place in the top chart's values) below the given layers.
func (r *Renderer) valueOrigin(c *Chart, ch *chart.Chart, given []layer) *origin {
	o := &origin{layers: append([]layer(nil), given...)}
	var walk func(ch *chart.Chart, prefix manifest.Path)
	walk = func(ch *chart.Chart, prefix manifest.Path) {
		for _, f := range ch.Raw {
			if f.Name != "values.yaml" {
				continue
			}
			if file := c.repoFile(f.Name, bytes.TrimPrefix(f.Data, utf8bom)); file != "" {
				o.layers = append(o.layers, docLayer(prefix, r.valuesFile(file).doc))
			} else if docs, _ := manifest.Parse("values.yaml", f.Data, r.limits); len(docs) > 0 {
				// Inside an archive: the archive file, without a line.
				file := c.archiveFor(ch.Name())
				o.layers = append(o.layers, layer{prefix: prefix, locate: func(rel manifest.Path) (manifest.Location, bool) {
					_, exact := docs[0].Locate(rel)
					return manifest.Location{File: file}, exact
				}})
			}
		}
		for _, d := range ch.Dependencies() {
			walk(d, prefix.Child(manifest.Key(d.Name())))
		}
	}
	walk(ch, nil)
	return o
}

// templateProblem places a template error at the template line Helm names,
// with Helm's message less the positions (the location has them).
func templateProblem(err error, tpls map[string]renderable, fallback manifest.Location) manifest.Problem {
	msg := err.Error()
	p := manifest.Problem{Rule: RuleTemplate, Level: "error", Location: fallback, Message: msg}
	if m := templatePosRE.FindStringSubmatch(msg); m != nil {
		if r, ok := tpls[m[1]]; ok {
			line, _ := strconv.Atoi(m[2])
			col := 0
			if m[3] != "" {
				col, _ = strconv.Atoi(m[3])
			}
			p.Location = r.file.location(line, col)
		}
	}
	rest := msg
	for _, prefix := range []string{"parse error at ", "execution error at ", "parse error in "} {
		if after, ok := strings.CutPrefix(msg, prefix); ok {
			if i := strings.Index(after, "): "); i >= 0 {
				rest = after[i+3:]
			}
			if prefix == "execution error at " {
				p.Message = "template failed: " + cleanPositions(rest, tpls)
			} else {
				p.Message = "the template does not parse: " + cleanPositions(rest, tpls)
			}
		}
	}
	p.Key = positionRE.ReplaceAllString(p.Message, "")
	return p
}

// cleanPositions writes "NAME:LINE:COL" of a template as its repository file.
func cleanPositions(msg string, tpls map[string]renderable) string {
	return templatePosRE.ReplaceAllStringFunc(msg, func(s string) string {
		m := templatePosRE.FindStringSubmatch(s)
		if r, ok := tpls[m[1]]; ok && r.file.repoFile != "" {
			return r.file.repoFile + ":" + m[2]
		}
		return s
	})
}

var (
	templatePosRE = regexp.MustCompile(`([^\s()<>":]+\.(?:yaml|yml|tpl|txt|json)):(\d+)(?::(\d+))?`)
	positionRE    = regexp.MustCompile(`:\d+(:\d+)?`)
)

// location is the repository position of a line and column of the file.
func (f *tmplFile) location(line, col int) manifest.Location {
	if f.repoFile == "" {
		return manifest.Location{File: f.archive}
	}
	return manifest.Location{File: f.repoFile, Line: line, Column: col}
}
