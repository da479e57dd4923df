package render

import (
	"context"
	"strings"

	"github.com/plumb-ci/plumb/internal/render/helm"
	"github.com/plumb-ci/plumb/internal/source"
)

// fetchDependencies fetches the dependencies of c that the repository
// does not vendor, as `helm dependency build` would: the version
// Chart.lock pins, exactly, or the highest the constraint allows (the
// report's fetched list names the version taken). Nothing is fetched when
// fetching is off; a dependency that cannot be fetched stays missing, and
// the chart's render says why at its Chart.yaml entry.
func fetchDependencies(ctx context.Context, f *source.Fetcher, c *helm.Chart) {
	if !f.Enabled() {
		return
	}
	deps, err := c.Missing()
	if err != nil {
		return // the render reports a chart that does not load
	}
	for _, d := range deps {
		ch, err := fetchDependency(ctx, f, d)
		if err == nil {
			err = c.AddDependency(d, ch.Version, ch.Archive)
		}
		if err != nil {
			c.DependencyFailed(d, err)
		}
	}
}

func fetchDependency(ctx context.Context, f *source.Fetcher, d helm.Dependency) (*source.Chart, error) {
	version := d.Version
	if version == "" {
		version = "*"
	}
	if d.OCI() {
		ref := source.OCIRef{Semver: version}
		if d.Locked {
			ref = source.OCIRef{Tag: version}
		}
		return f.OCIChart(ctx, strings.TrimSuffix(d.Repository, "/")+"/"+d.Name, ref)
	}
	// A locked version is an exact constraint: the index resolves it or
	// says no version matches.
	return f.HelmChart(ctx, d.Repository, d.Name, version)
}
