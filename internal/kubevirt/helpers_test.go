package kubevirt

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// parseObjects loads the objects of a YAML text as if read from file.
func parseObjects(t testing.TB, file, text, target string) []*manifest.Object {
	t.Helper()
	docs, problems := manifest.Parse(file, []byte(text), manifest.DefaultLimits)
	for _, p := range problems {
		if p.Input {
			t.Fatalf("%s: %v", file, p)
		}
	}
	var out []*manifest.Object
	for _, d := range docs {
		objs, _ := d.Objects(target)
		out = append(out, objs...)
	}
	return out
}

// subProvenance locates paths inside one node of a document (a Template's
// objects[i]).
type subProvenance struct {
	doc  *manifest.Document
	root *yaml.Node
}

func (s subProvenance) Locate(p manifest.Path) (manifest.Location, bool) {
	return s.doc.LocateFrom(s.root, p)
}

var paramRef = regexp.MustCompile(`\$\{\{?([A-Za-z0-9_]+)\}?\}`)

// processTemplate stands in for the render stage's Template processing:
// each objects[] entry with ${PARAM} replaced by the parameter's value, or
// by a placeholder for generated ones, located in the Template's file.
func processTemplate(t testing.TB, tmpl *manifest.Object) *render.Template {
	t.Helper()
	values := map[string]string{}
	params, _ := tmpl.Content["parameters"].([]any)
	for _, p := range params {
		m, _ := p.(map[string]any)
		name, _ := m["name"].(string)
		if v, ok := m["value"].(string); ok {
			values[name] = v
		} else {
			// A generated value: unique per Template, so processed objects
			// stay distinct.
			values[name] = tmpl.ID.Name + "-" + strings.ToLower(strings.ReplaceAll(name, "_", "-"))
		}
	}
	out := &render.Template{Object: tmpl}
	objs, _ := tmpl.Content["objects"].([]any)
	for i, o := range objs {
		content, _ := substitute(o, values).(map[string]any)
		_, node := manifest.NodeAt(tmpl.Node, manifest.Path{manifest.Key("objects"), manifest.Index(i)})
		obj := &manifest.Object{
			ID:      manifest.IDOf(content, tmpl.ID.Target),
			Content: content,
			Origin:  subProvenance{doc: tmpl.Doc, root: node},
			Doc:     tmpl.Doc,
		}
		out.Objects = append(out.Objects, obj)
	}
	return out
}

func substitute(v any, values map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = substitute(e, values)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = substitute(e, values)
		}
		return l
	case string:
		return paramRef.ReplaceAllStringFunc(x, func(ref string) string {
			return values[paramRef.FindStringSubmatch(ref)[1]]
		})
	}
	return v
}

// templateTarget is a render target holding processed Templates and their
// objects, as the render stage produces it.
func templateTarget(t testing.TB, name string, templates []*manifest.Object) *render.Target {
	tg := &render.Target{Name: name, Kind: render.KindPlain}
	for _, o := range templates {
		tm := processTemplate(t, o)
		tg.Templates = append(tg.Templates, tm)
		tg.Objects = append(tg.Objects, tm.Objects...)
	}
	return tg
}

func run(t testing.TB, a *Analyzer, targets ...*render.Target) *analyzer.Output {
	t.Helper()
	if a == nil {
		a = &Analyzer{}
	}
	out, err := a.Analyze(context.Background(), &analyzer.Input{Targets: targets})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func plainTarget(t testing.TB, file, text string) *render.Target {
	dir := filepath.Dir(file)
	return &render.Target{Name: dir, Kind: render.KindPlain, Objects: parseObjects(t, file, text, dir)}
}

// short prints findings one per line as file:line: level: message [rule].
func short(fs []finding.Finding) string {
	finding.Sort(fs)
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s:%d: %s: %s [%s]\n", f.Location.File, f.Location.Line, f.Level, f.Message, f.RuleID)
	}
	return b.String()
}

func section(out *analyzer.Output) *Section { return out.Section.(*Section) }

// lineOf returns the 1-based line of the first line of text containing s
// after the line containing after ("" for the start).
func lineOf(t testing.TB, text, after, s string) int {
	t.Helper()
	lines := strings.Split(text, "\n")
	start := 0
	if after != "" {
		for i, l := range lines {
			if strings.Contains(l, after) {
				start = i
				break
			}
		}
	}
	for i := start; i < len(lines); i++ {
		if strings.Contains(lines[i], s) {
			return i + 1
		}
	}
	t.Fatalf("%q not found after %q", s, after)
	return 0
}
