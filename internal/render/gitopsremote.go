package render

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render/helm"
	"github.com/plumb-ci/plumb/internal/source"
)

// A HelmRelease whose chart comes from a Flux HelmRepository (or a
// HelmChart naming one) renders with the chart fetched from that
// repository, when the allow-list names its host (internal/source): the
// chart's files are read from the archive, which is held in memory under
// a directory of its own (remotePrefix + digest) that no repository path
// can name, and the repository's values files beside it. What the chart
// itself supplies is placed at the HelmRelease line that names the chart,
// with "in chart NAME VERSION, FILE:LINE" as a related location; what
// values supply stays on the values line in the repository.

// remotePrefix is the top directory remote charts are read under.
const remotePrefix = "@remote"

// RemoteChart is a chart fetched for a GitOps definition.
type RemoteChart struct {
	// FS holds the archive's files; they are read as Prefix/NAME, so
	// the chart is at Dir.
	FS          fs.FS
	Prefix, Dir string
	// Label is "NAME VERSION"; From the repository URL.
	Label, From string
}

// over is the repository with the chart's files under Prefix.
func (rc *RemoteChart) over(repo fs.FS) fs.FS {
	return overlayFS{repo: repo, prefix: rc.Prefix, chart: rc.FS}
}

// inside reports whether file is one of the chart's.
func (rc *RemoteChart) inside(file string) (string, bool) {
	return strings.CutPrefix(file, rc.Dir+"/")
}

// fetchedChart fetches chart at version from the Flux HelmRepository repo
// names for the HelmRelease o (field: where o names the chart). A problem
// says why it is not rendered: a note when fetching is off or the host is
// not allowed, a warning when the fetch failed.
func fetchedChart(ctx context.Context, f *source.Fetcher, o, repo *manifest.Object, chart, version string, field manifest.Path) (*RemoteChart, *manifest.Problem) {
	url := str(repo.Content, "spec", "url")
	if url == "" {
		return nil, notRendered(o, field, "HelmRelease %s: HelmRepository %s has no spec.url, so chart %s is not rendered", o.ID.Name, repo.ID.Name, chart)
	}
	var c *source.Chart
	var err error
	if str(repo.Content, "spec", "type") == "oci" {
		// Flux asks the registry for the tags of URL/CHART and takes the
		// highest the version matches (any, when none is given).
		if version == "" {
			version = "*"
		}
		insecure, _ := manifest.Lookup(repo.Content, pathOf("spec", "insecure"))
		c, err = f.OCIChart(ctx, strings.TrimSuffix(url, "/")+"/"+chart, source.OCIRef{Semver: version, PlainHTTP: insecure == true})
	} else {
		c, err = f.HelmChart(ctx, url, chart, version)
	}
	if err != nil {
		return nil, fetchProblem(o, field, chart, err)
	}
	return remoteChartOf(o, field, c)
}

// ociRepositoryChart fetches the chart of a Flux OCIRepository (spec.url,
// spec.ref tag, semver or digest, spec.insecure) for the HelmRelease o.
func ociRepositoryChart(ctx context.Context, f *source.Fetcher, o, repo *manifest.Object, field manifest.Path) (*RemoteChart, *manifest.Problem) {
	url := str(repo.Content, "spec", "url")
	if !f.Enabled() {
		return nil, notRendered(o, field, "HelmRelease %s: the chart comes from OCIRepository %s (%s), outside the repository; plumb fetches charts only from allowed hosts, "+
			"so its objects are not checked (allow the host with --remote-host, the action input remote-hosts or remote.hosts in .plumb.yaml)", o.ID.Name, repo.ID.Name, url)
	}
	insecure, _ := manifest.Lookup(repo.Content, pathOf("spec", "insecure"))
	ref := source.OCIRef{Tag: str(repo.Content, "spec", "ref", "tag"), Semver: str(repo.Content, "spec", "ref", "semver"),
		Digest: str(repo.Content, "spec", "ref", "digest"), PlainHTTP: insecure == true}
	c, err := f.OCIChart(ctx, url, ref)
	if err != nil {
		return nil, fetchProblem(o, field, url, err)
	}
	return remoteChartOf(o, field, c)
}

// fetchProblem is why a chart was not fetched: a refusal is a note, a
// failure a warning (the rest of the repository is still checked).
func fetchProblem(o *manifest.Object, field manifest.Path, chart string, err error) *manifest.Problem {
	if _, refused := errors.AsType[*source.RefusedError](err); refused {
		return notRendered(o, field, "%s %s: chart %s is not rendered: %v", o.ID.Kind, o.ID.Name, chart, err)
	}
	p := notRendered(o, field, "%s %s: chart %s could not be fetched, so its objects are not checked: %v", o.ID.Kind, o.ID.Name, chart, err)
	p.Level = "warning"
	return p
}

// remoteChartOf unpacks a fetched chart.
func remoteChartOf(o *manifest.Object, field manifest.Path, c *source.Chart) (*RemoteChart, *manifest.Problem) {
	chartFS, top, err := source.ChartFS(c.Archive, source.DefaultMaxBytes)
	if err != nil {
		p := notRendered(o, field, "%s %s: chart %s %s from %s cannot be read: %v", o.ID.Kind, o.ID.Name, c.Name, c.Version, c.Repository, err)
		p.Level = "warning"
		return nil, p
	}
	prefix := remotePrefix + "/" + strings.TrimPrefix(c.Digest, "sha256:")[:16]
	return &RemoteChart{FS: chartFS, Prefix: prefix, Dir: prefix + "/" + top,
		Label: c.Name + " " + c.Version, From: c.Repository}, nil
}

// helmRepositoryChart fetches the chart that def (the HelmRelease o's
// chart.spec, or a HelmChart's spec) names from its HelmRepository; field
// is where o names the chart.
func helmRepositoryChart(ctx context.Context, f *source.Fetcher, targets []*Target, t *Target, o, def *manifest.Object, field manifest.Path) (*RemoteChart, *manifest.Problem) {
	base := manifest.Path{manifest.Key("spec")}
	if def == o {
		base = pathOf("spec", "chart", "spec")
	}
	get := func(keys ...string) string {
		v, _ := manifest.Lookup(def.Content, base.Child(pathOf(keys...)...))
		s, _ := v.(string)
		return s
	}
	chart, name := get("chart"), get("sourceRef", "name")
	ns := get("sourceRef", "namespace")
	if ns == "" {
		ns = def.ID.Namespace
	}
	repo := findSource(targets, t, "HelmRepository", name, ns)
	if !f.Enabled() {
		from := "HelmRepository " + name
		if repo != nil && str(repo.Content, "spec", "url") != "" {
			from += " (" + str(repo.Content, "spec", "url") + ")"
		}
		return nil, notRendered(o, field, "HelmRelease %s: chart %s comes from %s, outside the repository; plumb fetches charts only from allowed hosts, "+
			"so its objects are not checked (allow the host with --remote-host, the action input remote-hosts or remote.hosts in .plumb.yaml)", o.ID.Name, chart, from)
	}
	if repo == nil {
		return nil, notRendered(o, field, "HelmRelease %s: chart %s comes from HelmRepository %s, which is not among the repository's objects, so its objects are not checked",
			o.ID.Name, chart, name)
	}
	return fetchedChart(ctx, f, o, repo, chart, get("version"), field)
}

// refNamespace is the namespace of the object a reference at spec.KEY names.
func refNamespace(c map[string]any, o *manifest.Object, key string) string {
	if ns := str(c, "spec", key, "namespace"); ns != "" {
		return ns
	}
	return o.ID.Namespace
}

// findSource is the object of kind named name in namespace ns: in the
// definition's own target first, then in any target.
func findSource(targets []*Target, own *Target, kind, name, ns string) *manifest.Object {
	match := func(t *Target) *manifest.Object {
		for _, o := range t.Objects {
			if o.ID.Kind == kind && o.ID.Name == name && (o.ID.Namespace == ns || o.ID.Namespace == "") &&
				strings.HasPrefix(o.ID.APIVersion, "source.toolkit.fluxcd.io/") {
				return o
			}
		}
		return nil
	}
	return ownFirst(targets, own, match)
}

// ownFirst is what match finds in the definition's own target, else in
// the first target where it finds anything.
func ownFirst(targets []*Target, own *Target, match func(*Target) *manifest.Object) *manifest.Object {
	if o := match(own); o != nil {
		return o
	}
	for _, t := range targets {
		if o := match(t); o != nil {
			return o
		}
	}
	return nil
}

// overlayFS reads names under the remote chart's prefix from the chart and
// every other name from the repository: the renderer of a remote chart
// reads the repository's values files and the chart's own files.
type overlayFS struct {
	repo   fs.FS
	prefix string
	chart  fs.FS
}

func (o overlayFS) Open(name string) (fs.File, error) {
	if name == o.prefix {
		return o.chart.Open(".")
	}
	if rel, ok := strings.CutPrefix(name, o.prefix+"/"); ok {
		return o.chart.Open(rel)
	}
	return o.repo.Open(name)
}

// remoteOrigin places what a fetched chart supplies at the definition's
// chart line, and says where in the chart it is.
type remoteOrigin struct {
	inner manifest.Provenance
	chart *RemoteChart
	at    manifest.Location
}

func (r remoteOrigin) Locate(p manifest.Path) (manifest.Location, bool) {
	loc, exact := r.inner.Locate(p)
	if _, in := r.chart.inside(loc.File); in {
		return r.at, exact
	}
	return loc, exact
}

func (r remoteOrigin) Related(p manifest.Path) []manifest.RelatedLocation {
	var out []manifest.RelatedLocation
	if loc, _ := r.inner.Locate(p); loc.File != "" {
		if rel, in := r.chart.inside(loc.File); in {
			out = append(out, manifest.RelatedLocation{Location: r.at, Message: r.where(rel, loc)})
		}
	}
	if rp, ok := r.inner.(manifest.RelatedProvenance); ok {
		for _, rl := range rp.Related(p) {
			if rel, in := r.chart.inside(rl.File); in {
				rl.Message = r.where(rel, rl.Location) + ": " + rl.Message
				rl.Location = r.at
			}
			out = append(out, rl)
		}
	}
	return out
}

// where is "in chart podinfo 6.5.0 (from URL), templates/deployment.yaml:41".
func (r remoteOrigin) where(rel string, loc manifest.Location) string {
	s := fmt.Sprintf("in chart %s (from %s), %s", r.chart.Label, r.chart.From, rel)
	if loc.Line > 0 {
		s += fmt.Sprintf(":%d", loc.Line)
	}
	return s
}

// placeRemote moves the render's objects' and problems' locations inside
// the chart to the definition's line.
func placeRemote(rc *RemoteChart, at manifest.Location, res *helm.Output) {
	for _, o := range res.Objects {
		if o.Origin != nil {
			o.Origin = remoteOrigin{inner: o.Origin, chart: rc, at: at}
		}
	}
	for i := range res.Problems {
		p := &res.Problems[i]
		if rel, in := rc.inside(p.Location.File); in {
			where := remoteOrigin{chart: rc}.where(rel, p.Location)
			p.Location = at
			p.Message = where + ": " + p.Message
		}
	}
}
