package rules

import (
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// loadRules loads user rules from YAML (no built-ins) and fails the test on
// any error.
func loadRules(t testing.TB, src string) *Set {
	t.Helper()
	set := Load([]Source{{Name: "rules.yaml", Data: []byte(src)}}, manifest.Limits{})
	for _, p := range set.Problems {
		if !p.Warning {
			t.Fatalf("unexpected problem: %v", p)
		}
	}
	return set
}

// problems loads rules and returns the problems as strings.
func problems(src string) []string {
	set := Load([]Source{{Name: "rules.yaml", Data: []byte(src)}}, manifest.Limits{})
	var out []string
	for _, p := range set.Problems {
		out = append(out, p.Error())
	}
	return out
}

// target parses YAML documents into one render target.
func target(t testing.TB, name, src string) *render.Target {
	t.Helper()
	docs, probs := manifest.Parse(name+"/objects.yaml", []byte(src), manifest.Limits{})
	if len(probs) > 0 {
		t.Fatalf("parse: %v", probs)
	}
	tg := &render.Target{Name: name, Kind: render.KindPlain}
	for _, d := range docs {
		objs, _ := d.Objects(name)
		tg.Objects = append(tg.Objects, objs...)
	}
	return tg
}

func docsOf(targets ...*render.Target) []*manifest.Document {
	var out []*manifest.Document
	seen := map[*manifest.Document]bool{}
	for _, t := range targets {
		for _, o := range t.Objects {
			if o.Doc != nil && !seen[o.Doc] {
				seen[o.Doc] = true
				out = append(out, o.Doc)
			}
		}
	}
	return out
}

// runAll runs the three phases over targets (no analyzer findings) and
// returns the run.
// entries decodes section entries.
func entries(t testing.TB, es []Entry) []SectionEntry {
	t.Helper()
	out := make([]SectionEntry, len(es))
	for i, e := range es {
		var err error
		if out[i], err = e.Decode(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func runAll(t testing.TB, set *Set, opts Options, targets ...*render.Target) *Run {
	t.Helper()
	run := NewEngine(set, opts).NewRun()
	run.Early(docsOf(targets...))
	run.Preprocess(targets)
	run.Main(targets, nil)
	return run
}

func messages(fs []finding.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}
