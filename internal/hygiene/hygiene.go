// Package hygiene reports problems with the manifests themselves: input that
// cannot be read as written (syntax errors, duplicate keys, limits) and
// objects that cannot be applied as written (no name, no apiVersion, the same
// object twice in one render target).
package hygiene

import (
	"context"
	"fmt"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/render"
)

// Analyzer finds objects defined twice in one render target.
type Analyzer struct{}

// Name implements analyzer.Analyzer.
func (Analyzer) Name() string { return "hygiene" }

// Analyze implements analyzer.Analyzer.
func (Analyzer) Analyze(_ context.Context, in *analyzer.Input) (*analyzer.Output, error) {
	out := &analyzer.Output{Rules: Rules()}
	for _, t := range in.Targets {
		out.Findings = append(out.Findings, duplicates(t)...)
	}
	return out, nil
}

// duplicates reports the objects a target defines twice. Kubernetes
// identifies an object by group, kind, namespace and name; the version is
// only a representation, so apps/v1 and apps/v1beta2 Deployments of one
// name are the same object.
//
// Two definitions really collide within one kustomize build, one Template
// or one file: an error. In a plain directory files are often alternatives
// (install.yaml beside install-ha.yaml, the ephemeral and persistent
// variants of a template); there a duplicate across files is a note, one
// per pair of files, unless .plumb.yaml declares the directory a target.
func duplicates(t *render.Target) []finding.Finding {
	units := objectUnits(t)
	first := map[string]*manifest.Object{}
	copies := map[string]int{}
	var out []finding.Finding
	alternatives := map[[2]string]*alternative{}
	var pairs [][2]string
	for _, o := range t.Objects {
		if o.ID.Name == "" {
			continue // reported as missing-name
		}
		key := o.ID.Group() + "|" + o.ID.Kind + "|" + o.ID.Namespace + "|" + o.ID.Name
		prev, dup := first[key]
		if !dup {
			first[key] = o
			continue
		}
		if a, b := units[prev], units[o]; a != b && !t.Declared {
			pair := [2]string{a, b}
			if alt := alternatives[pair]; alt != nil {
				alt.more++
			} else {
				alternatives[pair] = &alternative{first: prev, second: o}
				pairs = append(pairs, pair)
			}
			continue
		}
		loc, _ := o.Locate(nil)
		prevLoc, _ := prev.Locate(nil)
		f := finding.Finding{
			Source:   finding.SourceManifest,
			RuleID:   manifest.RuleDuplicateObject,
			Level:    finding.Error,
			Title:    "Object defined twice",
			Message:  fmt.Sprintf("%s is defined twice in target %s (first at %s); applying both makes one silently replace the other", describe(o.ID), t.Name, manifest.FormatLocation(prevLoc)),
			Help:     ruleHelp[manifest.RuleDuplicateObject],
			Object:   o.ID,
			Location: loc,
			Related:  []finding.Related{{Location: prevLoc, Message: "first definition"}},
		}
		// A third copy is a finding of its own, with a fingerprint of
		// its own (the object id alone would repeat the second's).
		if copies[key]++; copies[key] > 1 {
			f.Key = fmt.Sprintf("copy%d", copies[key]+1)
		}
		f.SetFingerprint()
		out = append(out, f)
	}
	for _, pair := range pairs {
		out = append(out, alternatives[pair].finding(t))
	}
	return out
}

// alternative is a pair of files (or Templates) of one plain directory that
// define the same objects.
type alternative struct {
	first, second *manifest.Object
	more          int
}

func (a *alternative) finding(t *render.Target) finding.Finding {
	loc, _ := a.second.Locate(nil)
	prevLoc, _ := a.first.Locate(nil)
	also := ""
	if a.more > 0 {
		also = fmt.Sprintf(" (and %s more the two define alike)", pluralObjects(a.more))
	}
	f := finding.Finding{
		Source: finding.SourceManifest,
		RuleID: manifest.RuleDuplicateObject,
		Level:  finding.Note,
		Title:  "Object defined in two files of a directory",
		Message: fmt.Sprintf("%s%s is also defined in %s: applying directory %s as a whole would make one replace the other. "+
			"Nothing to do if the files are alternatives; list the directory under targets in .plumb.yaml to make this an error",
			describe(a.second.ID), also, manifest.FormatLocation(prevLoc), t.Name),
		Help:     ruleHelp[manifest.RuleDuplicateObject],
		Object:   a.second.ID,
		Location: loc,
		Related:  []finding.Related{{Location: prevLoc, Message: "the other definition"}},
		Key:      "alternative:" + prevLoc.File,
	}
	f.SetFingerprint()
	return f
}

func pluralObjects(n int) string {
	if n == 1 {
		return "1 object"
	}
	return fmt.Sprintf("%d objects", n)
}

// objectUnits names, for each object of a plain target, the unit that
// defines it: its Template, or its file. Objects of a kustomize build are
// all one unit.
func objectUnits(t *render.Target) map[*manifest.Object]string {
	units := make(map[*manifest.Object]string, len(t.Objects))
	if t.Kind != render.KindPlain {
		return units // every object maps to ""
	}
	for _, o := range t.Objects {
		if o.Doc != nil {
			units[o] = "file:" + o.Doc.File
		}
	}
	for _, tmpl := range t.Templates {
		loc, _ := tmpl.Object.Locate(nil)
		unit := "template:" + manifest.FormatLocation(loc)
		for _, o := range tmpl.Objects {
			units[o] = unit
		}
	}
	return units
}

func describe(id manifest.ObjectID) string {
	if id.Namespace != "" {
		return fmt.Sprintf("%s %s/%s", id.Kind, id.Namespace, id.Name)
	}
	return fmt.Sprintf("%s %s", id.Kind, id.Name)
}

// FromProblems turns loader or classifier problems into findings.
func FromProblems(ps []manifest.Problem) []finding.Finding {
	out := make([]finding.Finding, 0, len(ps))
	for _, p := range ps {
		out = append(out, FromProblem(p))
	}
	return out
}

// FromProblem turns a loader or classifier problem into a finding.
func FromProblem(p manifest.Problem) finding.Finding {
	level, err := finding.ParseLevel(p.Level)
	if err != nil {
		level = finding.Error
	}
	f := finding.Finding{
		Source:      finding.SourceManifest,
		RuleID:      p.Rule,
		Level:       level,
		Title:       ruleTitle(p.Rule),
		Message:     p.Message,
		Help:        ruleHelp[p.Rule],
		Object:      p.Object,
		Path:        p.Path,
		Location:    p.Location,
		InputError:  p.Input || p.Config,
		ConfigError: p.Config,
		Key:         p.Key,
	}
	for _, r := range p.Related {
		f.Related = append(f.Related, finding.Related{Location: r})
	}
	f.SetFingerprint()
	return f
}

func ruleTitle(id string) string {
	for _, r := range Rules() {
		if r.ID == id {
			return r.Name
		}
	}
	return id
}
