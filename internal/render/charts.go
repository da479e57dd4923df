package render

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/parallel"
	"github.com/plumb-ci/plumb/internal/render/helm"
)

// KindHelm is a Helm chart rendered with one set of values.
const KindHelm Kind = "helm"

// HelmOptions says how charts render.
type HelmOptions struct {
	// ValuesConvention renders a chart once more per values-*.yaml and
	// values.*.yaml file next to its Chart.yaml.
	ValuesConvention bool
	// Targets are explicit renders (.plumb.yaml helm.targets); a chart
	// named by one renders only as they say.
	Targets []HelmTarget
	// Flags: helm template's -f, --set, --set-string, --release-name and
	// --namespace, for every chart among the inputs (they replace the
	// convention for those charts).
	ValuesFiles, Set, SetString []string
	ReleaseName, Namespace      string
	// KubeVersion is .Capabilities.KubeVersion (e.g. v1.37.0).
	KubeVersion string
	// ServedAPIVersions replace Helm's default .Capabilities.APIVersions
	// (helm.Request.ServedAPIVersions); the pipeline sets the embedded
	// schema's.
	ServedAPIVersions []string
}

// HelmTarget is one explicit render of a chart.
type HelmTarget struct {
	Chart, Name            string
	ReleaseName, Namespace string
	Values                 []string
	// ValuesAt are the lines that name Values (by index; zero, or
	// shorter, where only At is known).
	ValuesAt       []manifest.Location
	Set, SetString []string
	APIVersions    []string
	KubeVersion    string
	// Inline values (a HelmRelease's spec.values ...), after Values.
	Inline       map[string]any
	InlineLocate func(manifest.Path) (manifest.Location, bool)
	At           manifest.Location
	// Holder is the render target of the GitOps definition that asks for
	// this render (nil for the repository's own charts and .plumb.yaml
	// entries): the inline values and At come from one of its objects.
	Holder *Target
	// Remote is the fetched chart Chart names (gitopsremote.go), nil for
	// a chart of the repository.
	Remote *RemoteChart
}

func (o HelmOptions) hasFlags() bool {
	return len(o.ValuesFiles) > 0 || len(o.Set) > 0 || len(o.SetString) > 0 || o.ReleaseName != "" || o.Namespace != ""
}

// chartRender is one chart target to render.
type chartRender struct {
	chart  *helm.Chart
	name   string
	req    helm.Request
	holder *Target
	remote *RemoteChart
}

// chartTargets renders the charts among the inputs and the renders
// configured for them. GitOps definitions found in rendered targets add
// theirs (gitops.go).
func (r *renderer) chartTargets(ctx context.Context, extra []HelmTarget, change *changeFilter, problems *problemSet) []*Target {
	h := r.opts.Helm
	dirs := slices.Clone(r.set.Charts)
	for _, t := range h.Targets {
		dirs = append(dirs, t.Chart)
	}
	for _, t := range extra {
		if t.Remote == nil {
			dirs = append(dirs, t.Chart)
		}
	}
	slices.Sort(dirs)
	dirs = slices.Compact(dirs)
	if len(dirs) == 0 && !slices.ContainsFunc(extra, func(t HelmTarget) bool { return t.Remote != nil }) {
		return nil
	}
	charts := map[string]*helm.Chart{}
	for _, d := range dirs {
		if !manifest.IsHelmChartDir(r.files.fsys, d) {
			continue
		}
		c, err := helm.LoadChart(r.files.fsys, d, r.opts.Limits)
		if err != nil {
			at, why := manifest.Location{File: path.Join(d, "Chart.yaml"), Line: 1, Column: 1}, err.Error()
			var fe *helm.FileError
			if errors.As(err, &fe) {
				at, why = fe.At, fe.Err
			}
			problems.add(manifest.Problem{Rule: helm.RuleChart, Level: "error", Location: at,
				Message: "the chart cannot be read: " + why, Key: d})
			continue
		}
		fetchDependencies(ctx, r.opts.Fetcher, c)
		charts[d] = c
	}
	for _, t := range extra {
		if t.Remote != nil && charts[t.Chart] == nil {
			c, err := helm.LoadChart(t.Remote.over(r.files.fsys), t.Chart, r.opts.Limits)
			if err != nil {
				problems.add(manifest.Problem{Rule: helm.RuleNotRendered, Level: "warning", Location: t.At, Key: t.Chart,
					Message: fmt.Sprintf("chart %s from %s cannot be read: %v", t.Remote.Label, t.Remote.From, err)})
				continue
			}
			fetchDependencies(ctx, r.opts.Fetcher, c)
			charts[t.Chart] = c
		}
	}
	var jobs []chartRender
	configured := map[string]bool{}
	add := func(t HelmTarget, at manifest.Location) {
		c := charts[t.Chart]
		if c == nil {
			// A .plumb.yaml entry that names no chart is plumb's own input
			// (exit 2, as a targets: entry naming no kustomization).
			problems.add(manifest.Problem{Rule: helm.RuleChart, Level: "error", Location: at, Key: "chart:" + t.Chart, Input: true,
				Message: "helm.targets: " + t.Chart + " is not a Helm chart directory (no Chart.yaml)"})
			return
		}
		jobs = append(jobs, chartRender{chart: c, name: t.Name, req: r.request(t), holder: t.Holder, remote: t.Remote})
	}
	for _, t := range h.Targets {
		configured[t.Chart] = true
		if t.Name == "" {
			t.Name = targetName(t.Chart, t.Values, len(t.Set)+len(t.SetString) > 0)
		}
		add(t, t.At)
	}
	for _, t := range extra {
		add(t, t.At)
	}
	inflated := kustomizeCharts(r.closures)
	for _, d := range r.set.Charts {
		c := charts[d]
		if c == nil || configured[d] || inflated[d] {
			continue
		}
		if h.hasFlags() {
			values := slices.Clone(h.ValuesFiles)
			t := HelmTarget{Chart: d, Values: values, Set: h.Set, SetString: h.SetString, ReleaseName: h.ReleaseName, Namespace: h.Namespace}
			t.Name = targetName(d, values, len(h.Set)+len(h.SetString) > 0)
			add(t, manifest.Location{})
			continue
		}
		add(HelmTarget{Chart: d, Name: d}, manifest.Location{})
		if h.ValuesConvention {
			for _, f := range conventionValues(r.files.fsys, d) {
				add(HelmTarget{Chart: d, Name: targetName(d, []string{f}, false), Values: []string{f}}, manifest.Location{})
			}
		}
	}
	jobs = slices.DeleteFunc(jobs, func(j chartRender) bool {
		return (r.opts.Select != nil && !r.opts.Select(j.name)) || !change.chartTarget(j.chart.Dir, j.req)
	})
	return r.renderCharts(ctx, jobs, problems)
}

// releaseNamespace is the namespace a request renders the release in:
// helm's default, "default", unless the target names one.
func releaseNamespace(req helm.Request) string {
	if req.Namespace == "" {
		return "default"
	}
	return req.Namespace
}

// request turns a target into a Helm request.
func (r *renderer) request(t HelmTarget) helm.Request {
	req := helm.Request{Target: t.Name, ReleaseName: t.ReleaseName, Namespace: t.Namespace,
		KubeVersion: r.opts.Helm.KubeVersion, APIVersions: t.APIVersions, ServedAPIVersions: r.opts.Helm.ServedAPIVersions,
		IncludeCRDs: true, At: t.At}
	if t.KubeVersion != "" {
		req.KubeVersion = t.KubeVersion
	}
	for i, f := range t.Values {
		at := t.At
		if i < len(t.ValuesAt) && !t.ValuesAt[i].IsZero() {
			at = t.ValuesAt[i]
		}
		req.Sources = append(req.Sources, helm.Source{File: f, At: at})
	}
	if t.Inline != nil {
		req.Sources = append(req.Sources, helm.Source{Inline: t.Inline, InlineLocate: t.InlineLocate, At: t.At})
	}
	for _, s := range t.Set {
		req.Sources = append(req.Sources, helm.Source{Set: s, At: t.At})
	}
	for _, s := range t.SetString {
		req.Sources = append(req.Sources, helm.Source{Set: s, String: true, At: t.At})
	}
	return req
}

// renderCharts renders the chart targets on all cores; the result keeps
// their order.
func (r *renderer) renderCharts(ctx context.Context, jobs []chartRender, problems *problemSet) []*Target {
	if len(jobs) == 0 {
		return nil
	}
	hr := r.helmRenderer()
	out := make([]*Target, len(jobs))
	perJob := make([][]manifest.Problem, len(jobs))
	parallel.ForEach(r.opts.Workers, len(jobs), func(i int) {
		if ctx.Err() != nil {
			return
		}
		var res helm.Output
		if rc := jobs[i].remote; rc != nil {
			res = r.remoteRenderer(rc).Render(jobs[i].chart, jobs[i].req)
			placeRemote(rc, jobs[i].req.At, &res)
		} else {
			res = hr.Render(jobs[i].chart, jobs[i].req)
		}
		perJob[i] = res.Problems
		t := &Target{Name: jobs[i].name, Kind: KindHelm, Inputs: r.chartInputs(jobs[i]), Namespace: releaseNamespace(jobs[i].req)}
		for _, o := range res.Objects {
			r.interner.within(o.Content) // parsed from this render's chart output
			r.addObject(t, o, problems)
		}
		out[i] = t
	})
	var targets []*Target
	seen := map[string]bool{}
	for i, t := range out {
		problems.add(perJob[i]...)
		if t != nil && !seen[t.Name] {
			seen[t.Name] = true
			targets = append(targets, t)
		}
	}
	return targets
}

// targetName is CHART, or CHART[values files,--set] with the files named
// relative to the chart when they are in it.
func targetName(chart string, values []string, set bool) string {
	var parts []string
	for _, v := range values {
		if rel, ok := strings.CutPrefix(v, chart+"/"); ok {
			v = rel
		}
		parts = append(parts, v)
	}
	if set {
		parts = append(parts, "--set")
	}
	if len(parts) == 0 {
		return chart
	}
	return chart + "[" + strings.Join(parts, ",") + "]"
}

// conventionValues lists the values files a chart renders with besides
// its defaults: values-*.yaml and values.*.yaml next to its Chart.yaml,
// then chart-testing's ci/*-values.yaml (each a render of its own, as `ct
// install` renders them).
func conventionValues(fsys fs.FS, dir string) []string {
	var out []string
	for _, d := range []string{dir, path.Join(dir, "ci")} {
		entries, err := fs.ReadDir(fsys, d)
		if err != nil {
			continue // no ci/: the usual case
		}
		for _, e := range entries {
			if !e.IsDir() && isConventionValues(dir, path.Join(d, e.Name())) {
				out = append(out, path.Join(d, e.Name()))
			}
		}
	}
	return out
}

// isConventionValues reports whether file is an environment's values file
// of the chart in dir: values-*.yaml or values.*.yaml beside Chart.yaml
// (values.yaml itself is the chart's defaults), or a chart-testing
// ci/*-values.yaml.
func isConventionValues(dir, file string) bool {
	n := path.Base(file)
	if path.Dir(file) == path.Join(dir, "ci") {
		return strings.HasSuffix(n, "-values.yaml") && n != "-values.yaml"
	}
	if path.Dir(file) != dir {
		return false
	}
	if n == "values.yaml" || n == "values.yml" {
		return false
	}
	ext := path.Ext(n)
	return (ext == ".yaml" || ext == ".yml") && (strings.HasPrefix(n, "values-") || strings.HasPrefix(n, "values."))
}

// remoteRenderer renders a fetched chart: its files from the archive, the
// values files from the repository.
func (r *renderer) remoteRenderer(rc *RemoteChart) *helm.Renderer {
	hr := helm.NewRenderer(rc.over(r.files.fsys), r.opts.Limits)
	hr.Reported = func(file string) bool {
		_, ok := r.files.loaded[file]
		return ok
	}
	return hr
}

// helmRenderer is a chart renderer reading through the repository, which
// leaves the duplicate keys of the files the loader read (and reports) to
// the loader.
func (r *renderer) helmRenderer() *helm.Renderer {
	hr := helm.NewRenderer(r.files.fsys, r.opts.Limits)
	hr.Reported = func(file string) bool {
		_, ok := r.files.loaded[file]
		return ok
	}
	return hr
}
