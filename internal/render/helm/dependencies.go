package helm

import (
	"fmt"
	"path"
	"strings"
	"time"

	"helm.sh/helm/v4/pkg/chart/loader/archive"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// A chart's Chart.yaml may depend on charts of a chart repository or an
// OCI registry that the repository does not vendor under charts/. `helm
// template` refuses such a chart; `helm dependency build` first fetches
// each at the version Chart.lock pins (or, without a lock, the highest
// version the constraint allows). plumb does the same through its
// guarded fetcher when the host is allowed (render/charts.go), and adds
// each archive as charts/NAME-VERSION.tgz, held to the chart's limits as
// a vendored archive is; what its templates supply is placed at Chart.yaml.

// Dependency is a dependency of Chart.yaml that charts/ does not hold and
// that names a repository plumb can fetch from (http(s):// or oci://).
type Dependency struct {
	// Index is its entry in Chart.yaml's dependencies.
	Index            int
	Name, Repository string
	// Version is Chart.lock's version when Locked, else Chart.yaml's
	// constraint.
	Version string
	Locked  bool
}

// OCI reports whether the dependency is in an OCI registry.
func (d Dependency) OCI() bool { return strings.HasPrefix(d.Repository, "oci://") }

// Missing lists the dependencies to fetch: not vendored, from an http(s)
// or OCI repository, each at its Chart.lock version when the lock lists it
// for the same repository.
func (c *Chart) Missing() ([]Dependency, error) {
	ch, err := c.load()
	if err != nil {
		return nil, err
	}
	var out []Dependency
	for _, m := range missingDependencies(ch) {
		d := ch.Metadata.Dependencies[m.index]
		repo := strings.TrimSpace(d.Repository)
		if !fetchable(repo) {
			continue // file://, @alias: `helm dependency build` reads them locally or from its own configuration
		}
		dep := Dependency{Index: m.index, Name: d.Name, Repository: repo, Version: d.Version}
		if v, ok := lockedVersion(ch, d); ok {
			dep.Version, dep.Locked = v, true
		}
		out = append(out, dep)
	}
	return out, nil
}

// fetchable reports whether a dependency's repository is one plumb can
// fetch from: a chart repository over http(s) or an OCI registry.
func fetchable(repo string) bool {
	return strings.HasPrefix(repo, "https://") || strings.HasPrefix(repo, "http://") || strings.HasPrefix(repo, "oci://")
}

// lockedVersion is the version Chart.lock (requirements.lock) pins for a
// Chart.yaml dependency: the entry of the same name and repository.
func lockedVersion(ch *chart.Chart, d *chart.Dependency) (string, bool) {
	if ch.Lock == nil {
		return "", false
	}
	for _, l := range ch.Lock.Dependencies {
		if l != nil && l.Name == d.Name && l.Repository == d.Repository {
			return l.Version, true
		}
	}
	return "", false
}

// AddDependency adds the fetched archive of d at version as
// charts/NAME-VERSION.tgz; the archive counts against the chart's size
// budget and its files against the loader's limits.
func (c *Chart) AddDependency(d Dependency, version string, data []byte) error {
	name := path.Join("charts", fmt.Sprintf("%s-%s.tgz", d.Name, version))
	archives := &archiveCheck{limits: c.limits, total: &c.size, max: c.maxBytes}
	if err := archives.check(path.Join(c.Dir, name), data); err != nil {
		return err
	}
	if c.fetched == nil {
		c.fetched = map[string]bool{}
	}
	c.fetched[name] = true
	if c.fetchedDeps == nil {
		c.fetchedDeps = map[string]bool{}
	}
	c.fetchedDeps[d.Name] = true
	c.files = append(c.files, &archive.BufferedFile{Name: name, ModTime: time.Time{}, Data: data})
	return nil
}

// DependencyFailed records why d could not be fetched: the chart's render
// says so where it says the dependency is missing.
func (c *Chart) DependencyFailed(d Dependency, err error) {
	if c.failed == nil {
		c.failed = map[string]error{}
	}
	c.failed[d.Name] = err
}
