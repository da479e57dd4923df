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
)

// Analyzer finds objects defined twice in one render target.
type Analyzer struct{}

// Name implements analyzer.Analyzer.
func (Analyzer) Name() string { return "hygiene" }

// Analyze implements analyzer.Analyzer.
func (Analyzer) Analyze(_ context.Context, in *analyzer.Input) (*analyzer.Output, error) {
	out := &analyzer.Output{Rules: Rules()}
	for _, t := range in.Targets {
		// Kubernetes identifies an object by group, kind, namespace and name;
		// the version is only a representation, so apps/v1 and apps/v1beta2
		// Deployments of one name are the same object.
		first := map[string]*manifest.Object{}
		copies := map[string]int{}
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
			out.Findings = append(out.Findings, f)
		}
	}
	return out, nil
}

func describe(id manifest.ObjectID) string {
	if id.Namespace != "" {
		return fmt.Sprintf("%s %s/%s", id.Kind, id.Namespace, id.Name)
	}
	return fmt.Sprintf("%s %s", id.Kind, id.Name)
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
