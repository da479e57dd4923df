package compare

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
	"text/template"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// refFS builds a reference directory from file contents; metadata.yaml is
// the entry file.
func refFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(strings.TrimLeft(data, "\n"))}
	}
	return fsys
}

// mustLoad loads a reference that must load without errors.
func mustLoad(t testing.TB, files map[string]string) *Reference {
	t.Helper()
	ref, ps := Load(refFS(files), "metadata.yaml", "ref")
	if ref == nil {
		t.Fatalf("the reference does not load:\n%v", ps)
	}
	return ref
}

// loadProblems loads a reference that must fail and returns its problems
// as text, one per line.
func loadProblems(t testing.TB, files map[string]string) string {
	t.Helper()
	ref, ps := Load(refFS(files), "metadata.yaml", "ref")
	if ref != nil {
		t.Fatalf("the reference loaded; want errors (warnings: %v)", ps)
	}
	return ps.Error()
}

// objects parses YAML documents into input objects located in "in.yaml".
func objects(t testing.TB, yamlDocs string) []*manifest.Object {
	t.Helper()
	docs, problems := manifest.Parse("in.yaml", []byte(strings.TrimLeft(yamlDocs, "\n")), manifest.Limits{})
	if len(problems) > 0 {
		t.Fatalf("test input: %v", problems)
	}
	var out []*manifest.Object
	for _, d := range docs {
		objs, _ := d.Objects("")
		out = append(out, objs...)
	}
	return out
}

func compareInputs(t testing.TB, ref *Reference, inputs string, opts Options) *Result {
	t.Helper()
	return ref.Compare(context.Background(), objects(t, inputs), opts)
}

func mustContain(t testing.TB, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("missing %q in:\n%s", w, got)
		}
	}
}

// compared returns the comparison of the input with the given identity.
func compared(t testing.TB, res *Result, id string) *Compared {
	t.Helper()
	for _, c := range res.Compared {
		if c.Identity() == id {
			return c
		}
	}
	var ids []string
	for _, c := range res.Compared {
		ids = append(ids, c.Identity())
	}
	t.Fatalf("%s was not compared (compared: %v)", id, ids)
	return nil
}

// boundedForTest instruments a template parsed by a test and wraps it for
// execution under the deadline, as the loader does.
func boundedForTest(t *template.Template) *boundedTemplate {
	instrument(t)
	return bounded(t)
}
