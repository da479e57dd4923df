package render

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render/helm"
	"github.com/plumb-ci/plumb/internal/source"
)

// GitOps definitions that deploy a chart of this repository render it as a
// target of their own, with their values, so that what the cluster will
// run is what is checked: a Flux HelmRelease whose chart comes from a
// GitRepository (the repository itself: a relative chart path that is a
// chart here), and an Argo CD Application whose source path is a chart
// here. A chart from a Helm repository, an OCI registry or another Git
// repository is not rendered; a note says so.

// gitopsTargets finds those definitions among the rendered objects.
func gitopsTargets(ctx context.Context, fetcher *source.Fetcher, fsys fs.FS, targets []*Target, limits manifest.Limits, problems *problemSet) []HelmTarget {
	var out []HelmTarget
	for _, t := range targets {
		for _, o := range t.Objects {
			switch {
			case strings.HasPrefix(o.ID.APIVersion, "helm.toolkit.fluxcd.io/") && o.ID.Kind == "HelmRelease":
				if ht, note := helmRelease(ctx, fetcher, fsys, targets, t, o, limits); note != nil {
					problems.add(*note)
				} else if ht != nil {
					out = append(out, *ht)
				}
			case strings.HasPrefix(o.ID.APIVersion, "argoproj.io/") && o.ID.Kind == "Application":
				hts, notes := argoApplication(ctx, fetcher, fsys, targets, t, o, limits)
				problems.add(notes...)
				out = append(out, hts...)
			case strings.HasPrefix(o.ID.APIVersion, "argoproj.io/") && o.ID.Kind == "ApplicationSet":
				apps, note := applicationSet(fsys, o, limits)
				if note != nil {
					problems.add(*note)
				}
				for _, app := range apps {
					hts, notes := argoApplication(ctx, fetcher, fsys, targets, t, app, limits)
					problems.add(notes...)
					out = append(out, hts...)
				}
			}
		}
	}
	return out
}

func str(m map[string]any, keys ...string) string {
	v, _ := manifest.Lookup(m, pathOf(keys...))
	s, _ := v.(string)
	return s
}

func pathOf(keys ...string) manifest.Path {
	p := make(manifest.Path, len(keys))
	for i, k := range keys {
		p[i] = manifest.Key(k)
	}
	return p
}

// notRendered is the note for a chart plumb does not render.
func notRendered(o *manifest.Object, at manifest.Path, format string, args ...any) *manifest.Problem {
	loc, _ := o.Locate(at)
	return &manifest.Problem{Rule: helm.RuleNotRendered, Level: "note", Location: loc, Object: o.ID, Path: at,
		Key: o.ID.Key(), Message: fmt.Sprintf(format, args...)}
}

// repoChart resolves a chart path written in a GitOps definition (relative
// to the repository root, "./charts/app") to a chart directory here.
func repoChart(fsys fs.FS, p string) (string, bool) {
	p = path.Clean(strings.TrimPrefix(strings.TrimSpace(p), "/"))
	if p == "" || p == ".." || strings.HasPrefix(p, "../") {
		return "", false
	}
	return p, manifest.IsHelmChartDir(fsys, p)
}

// helmRelease renders a Flux HelmRelease's chart when it is in the
// repository.
func helmRelease(ctx context.Context, fetcher *source.Fetcher, fsys fs.FS, targets []*Target, t *Target, o *manifest.Object, limits manifest.Limits) (*HelmTarget, *manifest.Problem) {
	c := o.Content
	spec := pathOf("spec", "chart", "spec")
	var remote *RemoteChart
	var dir string
	ref := str(c, "spec", "chartRef", "kind")
	kind := str(c, "spec", "chart", "spec", "sourceRef", "kind")
	chart := str(c, "spec", "chart", "spec", "chart")
	switch {
	case ref == "HelmChart":
		// A HelmChart names the chart, its version and its HelmRepository.
		hc := findSource(targets, t, "HelmChart", str(c, "spec", "chartRef", "name"), refNamespace(c, o, "chartRef"))
		if hc == nil || str(hc.Content, "spec", "sourceRef", "kind") != "HelmRepository" {
			return nil, notRendered(o, pathOf("spec", "chartRef"), "HelmRelease %s: the chart comes from HelmChart %s, which is not in the repository or does not name a HelmRepository, so its objects are not checked",
				o.ID.Name, str(c, "spec", "chartRef", "name"))
		}
		var p *manifest.Problem
		if remote, p = helmRepositoryChart(ctx, fetcher, targets, t, o, hc, pathOf("spec", "chartRef")); p != nil {
			return nil, p
		}
		dir = remote.Dir
	case ref == "OCIRepository":
		repo := findSource(targets, t, "OCIRepository", str(c, "spec", "chartRef", "name"), refNamespace(c, o, "chartRef"))
		if repo == nil {
			return nil, notRendered(o, pathOf("spec", "chartRef"), "HelmRelease %s: the chart comes from OCIRepository %s, which is not among the repository's objects, so its objects are not checked",
				o.ID.Name, str(c, "spec", "chartRef", "name"))
		}
		var p *manifest.Problem
		if remote, p = ociRepositoryChart(ctx, fetcher, o, repo, pathOf("spec", "chartRef")); p != nil {
			return nil, p
		}
		dir = remote.Dir
	case ref != "":
		return nil, notRendered(o, pathOf("spec", "chartRef"), "HelmRelease %s: the chart comes from %s %s, outside the repository; plumb renders only charts in the repository and Helm repositories, so its objects are not checked",
			o.ID.Name, ref, str(c, "spec", "chartRef", "name"))
	case kind == "":
		return nil, nil
	case kind == "HelmRepository":
		var p *manifest.Problem
		if remote, p = helmRepositoryChart(ctx, fetcher, targets, t, o, o, spec.Child(manifest.Key("sourceRef"))); p != nil {
			return nil, p
		}
		dir = remote.Dir
	case kind != "GitRepository":
		return nil, notRendered(o, spec.Child(manifest.Key("sourceRef")), "HelmRelease %s: chart %s comes from %s %s, outside the repository; plumb renders only charts in the repository, so its objects are not checked",
			o.ID.Name, chart, kind, str(c, "spec", "chart", "spec", "sourceRef", "name"))
	default:
		var ok bool
		if dir, ok = repoChart(fsys, chart); !ok {
			return nil, notRendered(o, spec.Child(manifest.Key("chart")), "HelmRelease %s: %s is not a chart directory of this repository (GitRepository %s may be another repository), so it is not rendered",
				o.ID.Name, chart, str(c, "spec", "chart", "spec", "sourceRef", "name"))
		}
	}
	ns := str(c, "spec", "targetNamespace")
	if ns == "" {
		ns = o.ID.Namespace
	}
	release := str(c, "spec", "releaseName")
	if release == "" {
		release = o.ID.Name
		if tn := str(c, "spec", "targetNamespace"); tn != "" {
			release = tn + "-" + o.ID.Name
		}
	}
	ht := &HelmTarget{Chart: dir, ReleaseName: release, Namespace: ns, Holder: t, Remote: remote,
		Name: fmt.Sprintf("%s[HelmRelease %s in %s]", dir, o.ID.Name, t.Name)}
	ht.At, _ = o.Locate(spec.Child(manifest.Key("chart")))
	if remote != nil {
		// Named after the chart, not its directory in memory.
		ht.Name = fmt.Sprintf("%s[HelmRelease %s in %s]", remote.Label, o.ID.Name, t.Name)
		if ref != "" {
			ht.At, _ = o.Locate(pathOf("spec", "chartRef"))
		}
	}
	files := spec.Child(manifest.Key("valuesFiles"))
	for i, vf := range listOf(c, "spec", "chart", "spec", "valuesFiles") {
		s, _ := vf.(string)
		if s == "" {
			continue
		}
		f := path.Join(dir, s)
		if !strings.HasPrefix(s, "./") && !strings.HasPrefix(s, "../") && !fileExists(fsys, f) {
			f = path.Clean(s)
		}
		if p := ht.addValues(f, s, o, files.Child(manifest.Index(i))); p != nil {
			return nil, p
		}
	}
	fv, p := helmReleaseValues(fsys, t, o, limits)
	if p != nil {
		return nil, p
	}
	if len(fv.values) > 0 {
		ht.Inline = fv.values
		ht.InlineLocate = fv.inlineLocate
	}
	return ht, nil
}

// addValues adds a values file that the GitOps definition o names at
// field (written, file once resolved in the repository): a file that
// cannot be read is reported there. A file outside the repository is not
// added: the problem that says so comes back.
func (ht *HelmTarget) addValues(file, written string, o *manifest.Object, field manifest.Path) *manifest.Problem {
	if p := valuesOutside(o, field, written, file); p != nil {
		return p
	}
	at, _ := o.Locate(field)
	ht.Values = append(ht.Values, file)
	ht.ValuesAt = append(ht.ValuesAt, at)
	return nil
}

// valuesOutside refuses a values file a GitOps definition names (written,
// f once resolved in the repository) that lies outside the repository: ../
// past its root, or an absolute path. plumb reads only the repository's
// files (the file system would only say "invalid argument"); the first such
// file is reported and the definition's chart is not rendered. nil when f
// is inside.
func valuesOutside(o *manifest.Object, at manifest.Path, written, f string) *manifest.Problem {
	why := ""
	switch {
	case path.IsAbs(f):
		why = " (an absolute path)"
	case f == ".." || strings.HasPrefix(f, "../"):
	default:
		return nil
	}
	loc, _ := o.Locate(at)
	return &manifest.Problem{Rule: helm.RuleValues, Level: "error", Location: loc, Object: o.ID, Path: at, Key: o.ID.Key() + "|" + at.String(),
		Message: fmt.Sprintf("%s %s: values file %q is outside the repository%s; plumb reads only the repository's files, so the chart is not rendered for this %s",
			o.ID.Kind, o.ID.Name, written, why, o.ID.Kind)}
}

// objectLocate locates a path below base in an object (through its own
// provenance: a kustomize patch that set the value, say).
func objectLocate(o *manifest.Object, base manifest.Path) func(manifest.Path) (manifest.Location, bool) {
	return func(rel manifest.Path) (manifest.Location, bool) {
		p := base.Child(rel...)
		if _, ok := o.Get(p); !ok {
			return manifest.Location{}, false
		}
		return o.Locate(p)
	}
}

func specMap(c map[string]any) map[string]any {
	m, _ := c["spec"].(map[string]any)
	return m
}

func listOf(m map[string]any, keys ...string) []any {
	v, _ := manifest.Lookup(m, pathOf(keys...))
	l, _ := v.([]any)
	return l
}

func listAt(m map[string]any, key string) []any {
	l, _ := m[key].([]any)
	return l
}

func fileExists(fsys fs.FS, name string) bool {
	st, err := fs.Stat(fsys, name)
	return err == nil && !st.IsDir()
}

// mergeInto merges src over dst, mappings key by key (Helm's values merge).
func mergeInto(dst, src map[string]any) {
	for k, v := range src {
		if sm, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeInto(dm, sm)
				continue
			}
		}
		dst[k] = v
	}
}
