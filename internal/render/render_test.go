package render

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// krustyBuild is `kustomize build DIR` on the real file system.
func krustyBuild(t *testing.T, dir string) string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := krusty.MakeKustomizer(krustyOptions()).Run(filesys.MakeFsOnDisk(), abs)
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// withoutComments drops plumb's "# target:" lines.
func withoutComments(s string) string {
	var out []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, "# target: ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// TestRenderEqualsKrusty: a kustomize target prints exactly as krusty
// prints it (without the origin annotations plumb injects).
func TestRenderEqualsKrusty(t *testing.T) {
	for _, c := range []struct{ repo, target string }{
		{"testdata/repo", "overlays/dev"},
		{"testdata/repo", "overlays/prod"},
		{"testdata/inline", "."},
		{"testdata/generators", "overlay"},
		{"testdata/plugins", "."},
	} {
		res := renderRepo(t, c.repo, fixtureOptions())
		var tg *Target
		for _, x := range res.Targets {
			if x.Name == c.target {
				tg = x
			}
		}
		if tg == nil || tg.Kind != KindKustomize {
			t.Fatalf("%s: no kustomize target %s", c.repo, c.target)
		}
		var buf bytes.Buffer
		if err := Write(&buf, []*Target{tg}, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		got := withoutComments(buf.String())
		want := krustyBuild(t, filepath.Join(c.repo, c.target))
		if strings.Contains(want, "kind: Secret") {
			continue // compared in TestSecretsRedacted
		}
		if got != want {
			t.Errorf("%s/%s: plumb render differs from kustomize build:\n--- plumb\n%s\n--- krusty\n%s", c.repo, c.target, got, want)
		}
		if strings.Contains(got, originAnnotation) {
			t.Errorf("%s: injected origin annotation leaked into the output", c.target)
		}
	}
}

// TestUserOriginAnnotationsKept: when the kustomization itself asks for
// originAnnotations, the output keeps them, as krusty prints them.
func TestUserOriginAnnotationsKept(t *testing.T) {
	res := renderRepo(t, "testdata/buildmeta", Options{})
	if len(res.Targets) != 1 {
		t.Fatalf("targets %v", res.Targets)
	}
	var buf bytes.Buffer
	if err := Write(&buf, res.Targets, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, want := withoutComments(buf.String()), krustyBuild(t, "testdata/buildmeta")
	if got != want || !strings.Contains(got, originAnnotation) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	loc, _ := res.Targets[0].Objects[0].Locate(manifest.MustParsePath("data.k"))
	if loc.File != "cm.yaml" || loc.Line != 6 {
		t.Errorf("loc %+v", loc)
	}
}

// TestDiscovery: overlays are targets, the bases they share and the
// components they use are not; patch files are not objects; plain files no
// kustomization reads are a target per directory.
func TestDiscovery(t *testing.T) {
	res := renderRepo(t, "testdata/repo", fixtureOptions())
	var names []string
	for _, tg := range res.Targets {
		names = append(names, tg.Name+"="+string(tg.Kind))
	}
	want := []string{"apps/plain=plain", "apps/templates=plain", "overlays/dev=kustomize", "overlays/prod=kustomize"}
	if !slices.Equal(names, want) {
		t.Errorf("targets %v, want %v", names, want)
	}
	for _, p := range res.Problems {
		if p.Rule == manifest.RuleMissingName || p.Rule == manifest.RuleNotAnObject {
			t.Errorf("patch or generator file classified as an object: %s", p.Error())
		}
	}
	// A base checked on its own is a target.
	res = renderRepo(t, "testdata/repo", Options{}, "base")
	if len(res.Targets) != 1 || res.Targets[0].Name != "base" || res.Targets[0].Kind != KindKustomize {
		t.Errorf("base alone: %v", res.Targets)
	}
	// An overlay given alone reads its base from the repository.
	res = renderRepo(t, "testdata/repo", Options{}, "overlays/prod")
	if len(res.Targets) != 1 || len(res.Targets[0].Objects) != 3 {
		t.Errorf("overlay alone: %+v", res.Targets)
	}
}

// TestExplicitTargets: .plumb.yaml targets: replaces discovery; an entry
// that names no kustomization is an input error at its line.
func TestExplicitTargets(t *testing.T) {
	at := manifest.Location{File: ".plumb.yaml", Line: 3, Column: 5}
	res := renderRepo(t, "testdata/repo", Options{Targets: []TargetSpec{
		{Pattern: "base"}, {Pattern: "overlays/*"}, {Pattern: "nowhere", At: at},
	}})
	var names []string
	for _, tg := range res.Targets {
		if tg.Kind == KindKustomize {
			names = append(names, tg.Name)
		}
	}
	if !slices.Equal(names, []string{"base", "overlays/dev", "overlays/prod"}) {
		t.Errorf("targets %v", names)
	}
	var found bool
	for _, p := range res.Problems {
		if p.Rule == RuleTarget {
			found = true
			if p.Location != at || !p.Input || !strings.Contains(p.Message, "nowhere") {
				t.Errorf("problem %+v", p)
			}
		}
	}
	if !found {
		t.Error("unknown target not reported")
	}
}

// TestLeftoverPlainFiles: YAML in a kustomization's directory that it does
// not read is checked as plain files, in a target of its own.
func TestLeftoverPlainFiles(t *testing.T) {
	res := renderRepo(t, "testdata/leftover", Options{})
	var names []string
	for _, tg := range res.Targets {
		names = append(names, tg.Name+"="+string(tg.Kind))
	}
	if !slices.Equal(names, []string{". (plain)=plain", ".=kustomize"}) && !slices.Equal(names, []string{".=kustomize", ". (plain)=plain"}) {
		t.Errorf("targets %v", names)
	}
}

// TestDeterministic: the same repository renders the same output.
func TestDeterministic(t *testing.T) {
	var first string
	for i := 0; i < 3; i++ {
		res := renderRepo(t, "testdata/repo", fixtureOptions())
		var buf bytes.Buffer
		if err := Write(&buf, res.Targets, WriteOptions{ShowOrigin: true}); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = buf.String()
		} else if buf.String() != first {
			t.Fatal("render output differs between runs")
		}
	}
}

// TestUntracedObjects: objects made or renamed by transformer and
// generator plugin configurations, which plumb's trace does not follow, are
// located through krusty's origin annotations (a second build with them).
func TestUntracedObjects(t *testing.T) {
	res := renderRepo(t, "testdata/plugins", Options{})
	for _, p := range res.Problems {
		t.Errorf("problem %s", p.Error())
	}
	var names []string
	for _, o := range res.Objects() {
		names = append(names, o.ID.Name)
	}
	cm := object(t, res, ".", "ConfigMap", "x-cm")
	loc, exact := cm.Locate(manifest.MustParsePath("data.k"))
	if manifest.FormatLocation(manifest.Location{File: loc.File, Line: loc.Line, Column: loc.Column}) != "cm.yaml:6:3" || !exact {
		t.Errorf("renamed object: %+v %v", loc, exact)
	}
	if cm.WrittenName() != "cm" {
		t.Errorf("renamed object: written name %q, want cm (its name in cm.yaml)", cm.WrittenName())
	}
	for _, o := range res.Objects() {
		if strings.HasPrefix(o.ID.Name, "x-extra-") {
			loc, _ := o.Locate(nil)
			if loc.File != "gen.yaml" || loc.Line != 1 {
				t.Errorf("generated object at %+v", loc)
			}
			if strings.Contains(fmt.Sprint(o.Content), originAnnotation) {
				t.Error("injected annotation left in the content")
			}
			return
		}
	}
	t.Errorf("no generated object among %v", names)
}

// TestInMemoryRepository: rendering reads only through the fs.FS it is
// given (in PR mode, a git revision held in memory), never the OS.
func TestInMemoryRepository(t *testing.T) {
	mem := fstest.MapFS{}
	must(t, filepath.WalkDir("testdata/repo", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel("testdata/repo", p)
		mem[filepath.ToSlash(rel)] = &fstest.MapFile{Data: data}
		return err
	}))
	set := manifest.Load(mem, []string{"."}, manifest.LoadOptions{})
	res := Render(t.Context(), mem, set, fixtureOptions())
	disk := renderRepo(t, "testdata/repo", fixtureOptions())
	var a, b bytes.Buffer
	must(t, Write(&a, res.Targets, WriteOptions{ShowOrigin: true}))
	must(t, Write(&b, disk.Targets, WriteOptions{ShowOrigin: true}))
	if a.String() != b.String() || len(res.Targets) != 4 {
		t.Errorf("in-memory render differs:\n%s", a.String())
	}
}
