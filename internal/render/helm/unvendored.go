package helm

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	chart "helm.sh/helm/v4/pkg/chart/v2"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// A Chart.yaml dependency that charts/ does not hold (and that could not
// be fetched, dependencies.go). `helm template` refuses the chart even
// when its values disable the dependency; plumb renders the chart when
// every missing dependency is disabled for the values rendered with (by
// its condition or tags, as chartutil.ProcessDependencies decides), and
// otherwise reports each one it needs at its Chart.yaml entry and renders
// nothing of the chart for those values:
//
//   - a warning, as for a remote kustomize base, when the repository does
//     not vendor it: the common layout commits Chart.lock and leaves
//     charts/ to `helm dependency build` in CI, which is not a mistake;
//   - an error when Chart.lock pins it and charts/ holds another
//     dependency Chart.lock pins from a repository: the repository vendors
//     its dependencies, and this one's archive was not committed; or when
//     the entry names no repository, so that only charts/ can hold it.

// unvendored is a dependency charts/ does not hold, as Chart.yaml writes
// it (ProcessDependencies renames an aliased entry).
type unvendored struct {
	missingDep
	entry           *chart.Dependency
	repo, condition string
	tags            []string
	locked          string // Chart.lock's version, "" when not pinned
}

// unvendoredDependencies lists the dependencies charts/ does not hold,
// read before ProcessDependencies changes the entries.
func unvendoredDependencies(ch *chart.Chart) []unvendored {
	var out []unvendored
	for _, m := range missingDependencies(ch) {
		d := ch.Metadata.Dependencies[m.index]
		u := unvendored{missingDep: m, entry: d, repo: strings.TrimSpace(d.Repository), condition: strings.TrimSpace(d.Condition), tags: slices.Clone(d.Tags)}
		u.locked, _ = lockedVersion(ch, d)
		out = append(out, u)
	}
	return out
}

// vendorsPinned reports whether charts/ holds, from the repository, a
// dependency Chart.lock pins from a chart repository: the repository
// commits what `helm dependency build` fetches. A local subchart (no
// repository, file://) is committed for its own sake and says nothing of
// the others. Read before ProcessDependencies drops disabled subcharts.
func (c *Chart) vendorsPinned(ch *chart.Chart) bool {
	if ch.Lock == nil {
		return false
	}
	for _, l := range ch.Lock.Dependencies {
		if l == nil || l.Repository == "" || strings.HasPrefix(l.Repository, "file://") || c.fetchedDeps[l.Name] {
			continue
		}
		for _, have := range ch.Dependencies() {
			if have.Name() == l.Name {
				return true
			}
		}
	}
	return false
}

// neededProblems reports the unvendored dependencies that the values
// enable: those whose entries ProcessDependencies kept in ch.
func (c *Chart) neededProblems(ch *chart.Chart, deps []unvendored, vendors bool, at func(int) manifest.Location) []manifest.Problem {
	var out []manifest.Problem
	for _, u := range deps {
		if !slices.Contains(ch.Metadata.Dependencies, u.entry) {
			continue // disabled for these values: not needed
		}
		level, msg := c.unvendoredMessage(u, vendors)
		out = append(out, manifest.Problem{Rule: RuleDependency, Level: level, Location: at(u.index), Message: msg})
	}
	return out
}

// unvendoredMessage says what is missing, whether plumb tried to fetch
// it, and what to change.
func (c *Chart) unvendoredMessage(u unvendored, vendors bool) (level, msg string) {
	build := fmt.Sprintf("run `helm dependency build %s` and commit charts/", c.Dir)
	fetch := ""
	if err := c.failed[u.name]; err != nil {
		fetch = fmt.Sprintf(" (plumb could not fetch it: %v)", err)
	}
	switch {
	case u.repo == "":
		return "error", fmt.Sprintf("dependency %s names no repository, so only charts/ can hold it, and charts/ does not: "+
			"add the chart as charts/%s, or give the entry its repository", u.name, u.name)
	case u.locked != "" && vendors:
		return "error", fmt.Sprintf("dependency %s is pinned at %s in Chart.lock but charts/ does not hold it, while it holds the other "+
			"dependencies Chart.lock pins: %s%s-%s.tgz%s", u.name, u.locked, build, u.name, u.locked, fetch)
	}
	when := ""
	if u.condition != "" || len(u.tags) > 0 {
		when = " with values that enable it (" + enabledBy(u) + ")"
	}
	hint := fetch
	if fetch == "" && fetchable(u.repo) {
		hint = fmt.Sprintf(", or let plumb fetch it (allow %s with --remote-host, the action input remote-hosts or remote.hosts in .plumb.yaml)", repoHost(u.repo))
	}
	return "warning", fmt.Sprintf("dependency %s (%s) is not vendored in charts/, so the chart is not rendered%s and its objects are not checked: %s%s",
		u.name, u.repo, when, build, hint)
}

// enabledBy names what enables a dependency, as Chart.yaml writes it.
func enabledBy(u unvendored) string {
	var parts []string
	if u.condition != "" {
		parts = append(parts, "condition "+u.condition)
	}
	if len(u.tags) > 0 {
		parts = append(parts, "tags "+strings.Join(u.tags, ", "))
	}
	return strings.Join(parts, "; ")
}

// repoHost is the host of a repository URL, or the URL when it has none.
func repoHost(repo string) string {
	if u, err := url.Parse(repo); err == nil && u.Host != "" {
		return u.Host
	}
	return repo
}

// dependencyAt locates a dependencies entry: in Chart.yaml, or in
// requirements.yaml for an apiVersion v1 chart that keeps them there.
func (r *Renderer) dependencyAt(c *Chart, ch *chart.Chart, chartAt func(string) manifest.Location) func(int) manifest.Location {
	return func(i int) manifest.Location {
		p := fmt.Sprintf("dependencies[%d]", i)
		if ch.Metadata.APIVersion == chart.APIVersionV1 {
			if doc := r.valuesFile(path.Join(c.Dir, "requirements.yaml")).doc; doc != nil {
				if loc, ok := doc.Locate(manifest.MustParsePath(p)); ok {
					return loc
				}
			}
		}
		return chartAt(p)
	}
}
