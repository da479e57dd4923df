package policy

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// renderFiles loads and renders files (path → content) as plumb check
// does; any problem fails the test.
func renderFiles(t testing.TB, files map[string]string) []*render.Target {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	set := manifest.Load(fsys, []string{"."}, manifest.LoadOptions{})
	for _, p := range set.Problems {
		t.Fatalf("loading: %s", p.Message)
	}
	res := render.Render(context.Background(), fsys, set, render.Options{})
	for _, p := range res.Problems {
		t.Fatalf("rendering: %s", p.Message)
	}
	return res.Targets
}

// analyze renders files and runs the analyzer (nil: the default one).
func analyze(t testing.TB, a *Analyzer, files map[string]string) []finding.Finding {
	t.Helper()
	if a == nil {
		a = &Analyzer{}
	}
	out, err := a.Analyze(context.Background(), &analyzer.Input{Targets: renderFiles(t, files)})
	if err != nil {
		t.Fatal(err)
	}
	return out.Findings
}

// lineOf is the 1-based line of text that contains s.
func lineOf(t testing.TB, text, s string) int {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("no line contains %q", s)
	return 0
}

func list(fs []finding.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString("\n  " + f.String() + " path=" + f.Path.String())
	}
	return b.String()
}

// want describes one expected finding.
type want struct {
	rule  string
	level finding.Level
	file  string
	// at is text on the expected line of file.
	at  string
	msg string
	// path is the expected field path ("" for none checked).
	path string
}

// expect asserts that fs are exactly ws, in order of the report.
func expect(t *testing.T, files map[string]string, fs []finding.Finding, ws ...want) {
	t.Helper()
	if len(fs) != len(ws) {
		t.Fatalf("want %d findings, got %d:%s", len(ws), len(fs), list(fs))
	}
	for i, w := range ws {
		f := fs[i]
		line := lineOf(t, files[w.file], w.at)
		if f.RuleID != w.rule || f.Level != w.level || f.Location.File != w.file || f.Location.Line != line || !strings.Contains(f.Message, w.msg) {
			t.Errorf("finding %d: got %s (line %d), want %s %s at %s:%d containing %q", i, f.String(), f.Location.Line, w.level, w.rule, w.file, line, w.msg)
		}
		if w.path != "" && f.Path.String() != w.path {
			t.Errorf("finding %d: path %s, want %s", i, f.Path, w.path)
		}
	}
}
