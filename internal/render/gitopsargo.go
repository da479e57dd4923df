package render

import (
	"context"
	"encoding/base64"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/source"
)

// An Argo CD Application renders each of its Helm sources as a target of
// its own, as Argo CD's repo server runs `helm template`: a source whose
// path is a chart of this repository, and a source naming a chart
// (`chart` + `repoURL` + `targetRevision`) in a Helm chart repository
// (an http(s) repoURL) or an OCI registry (a repoURL without a scheme,
// Argo CD's form for Helm over OCI). A source that is a kustomization or a
// directory of manifests is rendered as such, by the directory walk.

// argoApplication renders the Helm sources of an Argo CD Application.
func argoApplication(ctx context.Context, f *source.Fetcher, fsys fs.FS, targets []*Target, t *Target, o *manifest.Object, limits manifest.Limits) ([]HelmTarget, []manifest.Problem) {
	c := o.Content
	var sources []manifest.Path
	if _, ok := specMap(c)["source"].(map[string]any); ok {
		sources = append(sources, pathOf("spec", "source"))
	}
	for i := range listOf(c, "spec", "sources") {
		sources = append(sources, pathOf("spec", "sources").Child(manifest.Index(i)))
	}
	refs := argoRefs(c)
	var out []HelmTarget
	var notes []manifest.Problem
	for _, sp := range sources {
		sv, _ := manifest.Lookup(c, sp)
		src, _ := sv.(map[string]any)
		if src == nil {
			continue
		}
		ht, ps := argoSource(ctx, f, fsys, targets, t, o, sp, src, refs, limits)
		notes = append(notes, ps...)
		if ht != nil {
			out = append(out, *ht)
		}
	}
	return out, notes
}

// argoRefs are the names of the sources other sources' value files refer
// to as `$name/...` (a multi-source Application's `ref:` entries).
func argoRefs(c map[string]any) map[string]bool {
	refs := map[string]bool{}
	for _, sv := range listOf(c, "spec", "sources") {
		if src, _ := sv.(map[string]any); src != nil {
			if r, _ := src["ref"].(string); r != "" {
				refs[r] = true
			}
		}
	}
	return refs
}

// argoSource is the Helm target of one source at sp, nil when the source
// is not a chart (or cannot be rendered: the problems say why).
func argoSource(ctx context.Context, f *source.Fetcher, fsys fs.FS, targets []*Target, t *Target, o *manifest.Object, sp manifest.Path, src map[string]any, refs map[string]bool, limits manifest.Limits) (*HelmTarget, []manifest.Problem) {
	c := o.Content
	var remote *RemoteChart
	var dir string
	atField := sp.Child(manifest.Key("path"))
	if chart, _ := src["chart"].(string); chart != "" {
		atField = sp.Child(manifest.Key("chart"))
		var p *manifest.Problem
		if remote, p = argoRemoteChart(ctx, f, targets, o, src, atField); p != nil {
			return nil, []manifest.Problem{*p}
		}
		dir = remote.Dir
	} else {
		p, _ := src["path"].(string)
		var ok bool
		if dir, ok = repoChart(fsys, p); !ok {
			return nil, nil // a kustomization or a directory of manifests: rendered as such
		}
	}
	helmSpec, _ := src["helm"].(map[string]any)
	hp := sp.Child(manifest.Key("helm"))
	release := o.ID.Name
	if rn, _ := helmSpec["releaseName"].(string); rn != "" {
		release = rn
	}
	ht := &HelmTarget{Chart: dir, ReleaseName: release, Namespace: str(c, "spec", "destination", "namespace"), Holder: t, Remote: remote,
		Name: fmt.Sprintf("%s[Application %s in %s]", dir, o.ID.Name, t.Name)}
	if remote != nil {
		ht.Name = fmt.Sprintf("%s[Application %s in %s]", remote.Label, o.ID.Name, t.Name)
	}
	ht.At, _ = o.Locate(atField)
	if p := ht.argoValueFiles(fsys, o, hp, helmSpec, refs); p != nil {
		return nil, []manifest.Problem{*p}
	}
	notes, ok := ht.argoInlineValues(fsys, o, hp, helmSpec, limits)
	if !ok {
		return nil, notes
	}
	ht.argoParameters(helmSpec)
	return ht, notes
}

// argoRemoteChart fetches the chart a source names: `repoURL` an http(s)
// Helm chart repository, or a registry and repository without a scheme
// (Argo CD's Helm-over-OCI form; `oci://` is accepted too), at
// `targetRevision` (a version or a semver constraint; none is the highest
// stable version).
func argoRemoteChart(ctx context.Context, f *source.Fetcher, targets []*Target, o *manifest.Object, src map[string]any, field manifest.Path) (*RemoteChart, *manifest.Problem) {
	chart, _ := src["chart"].(string)
	repoURL, _ := src["repoURL"].(string)
	version, _ := src["targetRevision"].(string)
	repoURL = strings.TrimSpace(repoURL)
	if repoURL == "" {
		return nil, notRendered(o, field, "Application %s: chart %s has no repoURL, so it is not rendered", o.ID.Name, chart)
	}
	if !f.Enabled() {
		return nil, notRendered(o, field, "Application %s: chart %s comes from %s, outside the repository; plumb fetches charts only from allowed hosts, "+
			"so its objects are not checked (allow the host with --remote-host, the action input remote-hosts or remote.hosts in .plumb.yaml)", o.ID.Name, chart, repoURL)
	}
	var c *source.Chart
	var err error
	if oci, isOCI := argoOCI(repoURL); isOCI {
		if version == "" {
			version = "*"
		}
		c, err = f.OCIChart(ctx, oci+"/"+chart, source.OCIRef{Semver: version, PlainHTTP: argoForceHTTP(targets, repoURL)})
	} else {
		c, err = f.HelmChart(ctx, repoURL, chart, version)
	}
	if err != nil {
		return nil, fetchProblem(o, field, chart, err)
	}
	return remoteChartOf(o, field, c)
}

// argoForceHTTP reports whether an Argo CD repository Secret among the
// repository's objects (label argocd.argoproj.io/secret-type: repository,
// its url the source's repoURL) sets insecureOCIForceHttp: the registry is
// then spoken to over plain HTTP, as Argo CD's repo server does.
func argoForceHTTP(targets []*Target, repoURL string) bool {
	for _, t := range targets {
		for _, o := range t.Objects {
			if o.ID.Kind != "Secret" || o.ID.APIVersion != "v1" || str(o.Content, "metadata", "labels", "argocd.argoproj.io/secret-type") != "repository" {
				continue
			}
			if secretField(o, "url") == repoURL && secretField(o, "insecureOCIForceHttp") == "true" {
				return true
			}
		}
	}
	return false
}

// secretField is a Secret's stringData or (decoded) data entry.
func secretField(o *manifest.Object, key string) string {
	if s := str(o.Content, "stringData", key); s != "" {
		return s
	}
	b, err := base64.StdEncoding.DecodeString(str(o.Content, "data", key))
	if err != nil {
		return ""
	}
	return string(b)
}

// argoOCI is the oci:// URL of a Helm-over-OCI repoURL: Argo CD writes the
// registry without a scheme ("registry-1.docker.io/bitnamicharts"); an
// http(s) URL is a chart repository.
func argoOCI(repoURL string) (string, bool) {
	if rest, ok := strings.CutPrefix(repoURL, "oci://"); ok {
		return "oci://" + strings.TrimSuffix(rest, "/"), true
	}
	if strings.Contains(repoURL, "://") {
		return "", false
	}
	return "oci://" + strings.TrimSuffix(repoURL, "/"), true
}

// argoValueFiles adds helm.valueFiles: relative to the chart (the fetched
// chart's own files for a remote chart), or `$ref/path` — a file of the
// source named `ref:`, read here as a file of this repository (the
// repository the Application is committed in is what a `ref:` source names
// in practice; a file not here is not rendered, a note says so). With
// ignoreMissingValueFiles a file that is not there is skipped, as Argo CD
// skips it. A file outside the repository is the problem returned.
func (ht *HelmTarget) argoValueFiles(fsys fs.FS, o *manifest.Object, hp manifest.Path, helmSpec map[string]any, refs map[string]bool) *manifest.Problem {
	ignoreMissing, _ := helmSpec["ignoreMissingValueFiles"].(bool)
	over := fsys
	if ht.Remote != nil {
		over = ht.Remote.over(fsys)
	}
	for i, vf := range listAt(helmSpec, "valueFiles") {
		s, _ := vf.(string)
		if s == "" {
			continue
		}
		field := hp.Child(manifest.Key("valueFiles"), manifest.Index(i))
		file := path.Clean(path.Join(ht.Chart, s))
		if ref, rest, ok := strings.Cut(strings.TrimPrefix(s, "$"), "/"); ok && strings.HasPrefix(s, "$") {
			if !refs[ref] {
				return notRendered(o, field, "Application %s: values file %s names source $%s, which no source of the Application declares as ref, so the chart is not rendered", o.ID.Name, s, ref)
			}
			file = path.Clean(rest)
		} else if ht.Remote != nil && !strings.HasPrefix(file, ht.Remote.Dir+"/") {
			return notRendered(o, field, "Application %s: values file %s leaves chart %s, so the chart is not rendered", o.ID.Name, s, ht.Remote.Label)
		}
		if p := valuesOutside(o, field, s, file); p != nil {
			return p
		}
		if !fileExists(over, file) {
			if ignoreMissing {
				continue
			}
			if strings.HasPrefix(s, "$") {
				return notRendered(o, field, "Application %s: values file %s is not a file of this repository (source $%s may be another repository), so the chart is not rendered", o.ID.Name, s, strings.SplitN(s[1:], "/", 2)[0])
			}
		}
		if p := ht.addValues(file, s, o, field); p != nil {
			return p
		}
	}
	return nil
}

// argoInlineValues adds helm.values (YAML text) and helm.valuesObject,
// the latter over the former, as Argo CD merges them. ok is false when
// they cannot be read (the problems say why).
func (ht *HelmTarget) argoInlineValues(fsys fs.FS, o *manifest.Object, hp manifest.Path, helmSpec map[string]any, limits manifest.Limits) ([]manifest.Problem, bool) {
	var notes []manifest.Problem
	inline := map[string]any{}
	var locate []func(manifest.Path) (manifest.Location, bool)
	switch s := helmSpec["values"].(type) {
	case nil:
	case string:
		ev, ps, ok := argoValues(fsys, o, hp.Child(manifest.Key("values")), s, limits)
		notes = append(notes, ps...)
		if !ok {
			return notes, false
		}
		mergeInto(inline, ev.values)
		locate = append(locate, ev.locate)
	default:
		return append(notes, wrongValues(o, hp.Child(manifest.Key("values")), s, "YAML text", "Argo CD (valuesObject takes a mapping)")), false
	}
	switch v := helmSpec["valuesObject"].(type) {
	case nil:
	case map[string]any:
		mergeInto(inline, v)
		locate = append(locate, objectLocate(o, hp.Child(manifest.Key("valuesObject"))))
	default:
		return append(notes, wrongValues(o, hp.Child(manifest.Key("valuesObject")), v, "a mapping", "Argo CD")), false
	}
	if len(inline) > 0 {
		ht.Inline = inline
		ht.InlineLocate = func(rel manifest.Path) (manifest.Location, bool) {
			for i := len(locate) - 1; i >= 0; i-- {
				if loc, ok := locate[i](rel); ok {
					return loc, true
				}
			}
			return manifest.Location{}, false
		}
	}
	return notes, true
}

// argoParameters adds helm.parameters as --set (or --set-string with
// forceString).
func (ht *HelmTarget) argoParameters(helmSpec map[string]any) {
	for _, pv := range listAt(helmSpec, "parameters") {
		pm, _ := pv.(map[string]any)
		name, _ := pm["name"].(string)
		if name == "" {
			continue
		}
		expr := name + "=" + fmt.Sprint(pm["value"])
		if force, _ := pm["forceString"].(bool); force {
			ht.SetString = append(ht.SetString, expr)
		} else {
			ht.Set = append(ht.Set, expr)
		}
	}
}
