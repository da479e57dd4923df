package schema

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

// checkRenderOptions render as plumb check does by default: charts with
// their defaults and once per values file beside them, for Kubernetes 1.37.
var checkRenderOptions = render.Options{Helm: render.HelmOptions{ValuesConvention: true, KubeVersion: "v1.37.0"}}

// analyze loads and renders files (path → content) as plumb check does,
// runs the analyzer (a nil a is the default one) and returns its findings.
func analyze(t testing.TB, a *Analyzer, files map[string]string) []finding.Finding {
	t.Helper()
	_, targets := renderFiles(t, files)
	if a == nil {
		a = &Analyzer{}
	}
	out, err := a.Analyze(context.Background(), &analyzer.Input{Targets: targets})
	if err != nil {
		t.Fatal(err)
	}
	return out.Findings
}

// renderFiles loads and renders files as plumb check does; any problem
// fails the test.
func renderFiles(t testing.TB, files map[string]string) (fstest.MapFS, []*render.Target) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, text := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(text)}
	}
	set := manifest.Load(fsys, []string{"."}, manifest.LoadOptions{})
	for _, p := range set.Problems {
		t.Fatalf("loading: %s", p.Message)
	}
	res := render.Render(context.Background(), fsys, set, checkRenderOptions)
	for _, p := range res.Problems {
		t.Fatalf("rendering: %s", p.Message)
	}
	return fsys, res.Targets
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

// expectOne asserts that fs holds exactly one finding, of rule, on the line
// of text containing at, whose message contains each of msgs.
func expectOne(t *testing.T, fs []finding.Finding, text, rule, at string, msgs ...string) finding.Finding {
	t.Helper()
	if len(fs) != 1 {
		t.Fatalf("want one %s finding, got %d:%s", rule, len(fs), list(fs))
	}
	f := fs[0]
	if f.RuleID != rule {
		t.Errorf("rule %s, want %s:%s", f.RuleID, rule, list(fs))
	}
	if want := lineOf(t, text, at); f.Location.Line != want {
		t.Errorf("line %d, want %d (%q):%s", f.Location.Line, want, at, list(fs))
	}
	for _, m := range msgs {
		if !strings.Contains(f.Message, m) {
			t.Errorf("message %q does not contain %q", f.Message, m)
		}
	}
	if f.Source != finding.SourceSchema || f.Fingerprint == "" || f.Help == "" || f.Title == "" {
		t.Errorf("incomplete finding: %+v", f)
	}
	return f
}
