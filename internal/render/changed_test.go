package render

import (
	"slices"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// TestChangedRendersTheTargetsThatReadAChange: with Options.Changed (a
// pre-commit hook's files), a kustomize target is rendered when it reads a
// changed file anywhere in what it builds on, a plain directory when one of
// its files changed; the rest is neither rendered nor reported.
func TestChangedRendersTheTargetsThatReadAChange(t *testing.T) {
	names := func(res *Result) []string {
		var out []string
		for _, tg := range res.Targets {
			out = append(out, tg.Name)
		}
		return out
	}
	all := names(renderRepo(t, "testdata/repo", fixtureOptions()))
	for _, c := range []struct {
		changed []string
		want    []string
	}{
		{[]string{"base/deployment.yaml"}, []string{"overlays/dev", "overlays/prod"}},
		{[]string{"overlays/dev/settings.properties"}, []string{"overlays/dev"}}, // a generator's source
		{[]string{"overlays/prod/kustomization.yaml"}, []string{"overlays/prod"}},
		{[]string{"apps/plain/configmap.yaml"}, []string{"apps/plain"}},
		{[]string{"apps/plain/configmap.yaml", "overlays/prod/json-patch.yaml"}, []string{"apps/plain", "overlays/prod"}},
		{[]string{"components/monitoring/scrape-patch.yaml"}, []string{"overlays/prod"}}, // through a component
		{[]string{"README.md"}, nil},
	} {
		opts := fixtureOptions()
		opts.Changed = map[string]bool{}
		for _, f := range c.changed {
			opts.Changed[f] = true
		}
		res := renderRepo(t, "testdata/repo", opts)
		if got := names(res); !slices.Equal(got, c.want) {
			t.Errorf("changed %v: targets %v, want %v (of %v)", c.changed, got, c.want, all)
		}
		for _, f := range c.changed {
			if len(c.want) > 0 && f != "README.md" && !res.Reads[f] {
				t.Errorf("changed %v: Reads lacks %s", c.changed, f)
			}
		}
	}
}

// A problem in a file the change does not reach is left out; one in a file
// an affected target reads is kept.
func TestChangedKeepsOnlyTheProblemsOfWhatItRenders(t *testing.T) {
	f := newChangeFilter(map[string]bool{"a/changed.yaml": true})
	f.kustomizeTarget([]string{"a/kustomization.yaml", "a/changed.yaml", "base/broken.yaml"})
	f.kustomizeTarget([]string{"b/kustomization.yaml", "b/other.yaml"})
	for file, want := range map[string]bool{
		"a/changed.yaml": true, "base/broken.yaml": true, "": true,
		"b/other.yaml": false, "elsewhere.yaml": false,
	} {
		var p manifest.Problem
		p.Location.File = file
		if got := f.keep(p); got != want {
			t.Errorf("keep(%q) = %v, want %v", file, got, want)
		}
	}
	var none *changeFilter
	if !none.keep(manifest.Problem{}) || !none.kustomizeTarget(nil) || none.Reads() != nil {
		t.Error("without a filter everything is kept")
	}
}

// Chart targets follow a change too: a file of the chart directory affects
// every render of the chart, a values file only the renders that use it,
// and a GitOps definition the target it defines.
func TestChangedRendersTheChartTargetsThatReadAChange(t *testing.T) {
	names := func(res *Result) []string {
		var out []string
		for _, tg := range res.Targets {
			if tg.Kind == KindHelm {
				out = append(out, tg.Name)
			}
		}
		return out
	}
	all := names(renderRepo(t, "testdata/gitops", Options{Helm: HelmOptions{ValuesConvention: true}}))
	if len(all) < 3 {
		t.Fatalf("the fixture renders chart targets %v; want the chart's defaults, its values-prod render and the GitOps ones", all)
	}
	for _, c := range []struct {
		changed []string
		want    func(name string) bool
	}{
		// The GitOps renders are defined in plain files the change does not
		// touch: with --changed they are not rendered (docs: pre-commit hook).
		{[]string{"charts/app/templates/deployment.yaml"}, func(n string) bool { return !strings.Contains(n, " in ") }},
		{[]string{"charts/app/templates/deployment.yaml", "flux/release.yaml"}, func(n string) bool { return !strings.Contains(n, "Application") }},
		{[]string{"charts/app/values-prod.yaml"}, func(n string) bool { return n == "charts/app[values-prod.yaml]" }},
		{[]string{"README.md"}, func(string) bool { return false }},
	} {
		opts := Options{Helm: HelmOptions{ValuesConvention: true}, Changed: map[string]bool{}}
		for _, f := range c.changed {
			opts.Changed[f] = true
		}
		var want []string
		for _, n := range all {
			if c.want(n) {
				want = append(want, n)
			}
		}
		if got := names(renderRepo(t, "testdata/gitops", opts)); !slices.Equal(got, want) {
			t.Errorf("changed %v: chart targets %v, want %v (of %v)", c.changed, got, want, all)
		}
	}
	f := newChangeFilter(map[string]bool{"charts/app/values.yaml": true})
	f.readDirs["charts/app"] = true
	if !f.keep(manifest.Problem{Location: manifest.Location{File: "charts/app/templates/x.yaml"}}) {
		t.Error("a problem inside an affected chart is dropped")
	}
}
