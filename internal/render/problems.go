package render

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// positionRE matches ":line" and ":line:col" in a message.
var positionRE = regexp.MustCompile(`:\d+(:\d+)?`)

// problemSet collects problems once each: a base shared by many overlays
// is checked once, and a problem in it is reported once, at its line.
type problemSet struct {
	mu   sync.Mutex
	seen map[string]bool
	list []manifest.Problem
}

func newProblemSet() *problemSet { return &problemSet{seen: map[string]bool{}} }

func (s *problemSet) add(ps ...manifest.Problem) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range ps {
		if p.Rule == "" {
			continue // already reported by the loader
		}
		if p.Key == "" && strings.HasPrefix(p.Rule, "render/") {
			// Fingerprints tell problems of one rule in one file apart by
			// their key, which must not hold line numbers.
			p.Key = positionRE.ReplaceAllString(p.Message, "")
		}
		key := fmt.Sprintf("%s|%s|%s", p.Rule, manifest.FormatLocation(p.Location), p.Message)
		if s.seen[key] {
			continue
		}
		s.seen[key] = true
		s.list = append(s.list, p)
	}
}

func (s *problemSet) sorted() []manifest.Problem {
	out := slices.Clone(s.list)
	slices.SortStableFunc(out, func(a, b manifest.Problem) int {
		return cmp.Or(a.Location.Compare(b.Location), strings.Compare(a.Rule, b.Rule), strings.Compare(a.Message, b.Message))
	})
	return out
}

// deprecatedFields are the kustomization fields kustomize warns about, with
// their replacement.
var deprecatedFields = [][2]string{
	{"bases", "resources"},
	{"commonLabels", "labels"},
	{"imageTags", "images"},
	{"patchesJson6902", "patches"},
	{"patchesStrategicMerge", "patches"},
	{"vars", "replacements"},
}

// deprecations reports the deprecated fields of a kustomization as notes,
// where krusty would print a warning on stderr.
func deprecations(k *kustomization) []manifest.Problem {
	if k.Doc == nil {
		return nil
	}
	var out []manifest.Problem
	for _, f := range deprecatedFields {
		p := manifest.Path{manifest.Key(f[0])}
		if key, _ := k.node(p); key != nil {
			out = append(out, manifest.Problem{Rule: RuleDeprecated, Level: "note", Location: k.at(p), Key: f[0],
				Message: fmt.Sprintf("%q is deprecated in kustomize; use %q instead (`kustomize edit fix` rewrites it)", f[0], f[1])})
		}
	}
	return out
}

// unknownParams reports parameter values that no processed Template
// declares (`oc process` refuses unknown parameters too).
func (r *renderer) unknownParams(targets []*Target) []manifest.Problem {
	if len(r.opts.Params.Global) == 0 && len(r.opts.Params.PerTemplate) == 0 {
		return nil
	}
	declared := map[string]bool{}
	names := map[string]bool{}
	var first *manifest.Object
	for _, t := range targets {
		for _, tmpl := range t.Templates {
			if first == nil {
				first = tmpl.Object
			}
			names[tmpl.Object.ID.Name] = true
			ps, _ := tmpl.Object.Content["parameters"].([]any)
			for _, p := range ps {
				if m, ok := p.(map[string]any); ok {
					if n, ok := m["name"].(string); ok {
						declared[n] = true
					}
				}
			}
		}
	}
	var out []manifest.Problem
	for _, name := range slices.Sorted(maps.Keys(r.opts.Params.Global)) {
		if declared[name] {
			continue
		}
		p := manifest.Problem{Rule: RuleTemplate, Level: "error", Input: true, Config: true, Key: "param:" + name, Location: r.opts.ParamsAt}
		if first == nil {
			p.Message = fmt.Sprintf("parameter %s is given but no OpenShift Template was found", name)
		} else {
			loc, _ := first.Locate(manifest.Path{manifest.Key("parameters")})
			p.Location = loc
			p.Message = fmt.Sprintf("unknown Template parameter %s: no processed Template declares it (%d template(s), e.g. %s)", name, len(names), first.ID.Name)
		}
		out = append(out, p)
	}
	for _, name := range slices.Sorted(maps.Keys(r.opts.Params.PerTemplate)) {
		if !names[name] {
			out = append(out, manifest.Problem{Rule: RuleTemplate, Level: "error", Input: true, Config: true, Key: "template:" + name, Location: r.opts.ParamsAt,
				Message: fmt.Sprintf("template_params: no processed Template is named %s", name)})
		}
	}
	return out
}
