package render

import (
	"fmt"

	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/resid"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// maxFeedbackReplacements bounds the replacements of one target that read
// an object an earlier replacement wrote to. Such a chain can double an
// object at each step (copy a's data into b, then b's into a, ...): thirty
// took kustomize a minute and 5 GB, a few more exhaust the memory.
const maxFeedbackReplacements = 10

// feedbackReplacements locates the replacements of a kustomization, in
// order, whose source an earlier replacement's targets may select (by kind
// and name; an empty one selects any).
func (g *graph) feedbackReplacements(k *kustomization) []manifest.Location {
	var written []*types.Selector
	var out []manifest.Location
	for i, rf := range k.K.Replacements {
		at := k.at(manifest.Path{manifest.Key("replacements"), manifest.Index(i)})
		reps := []types.Replacement{rf.Replacement}
		if rf.Path != "" {
			reps = g.replacementFile(k, rf.Path)
		}
		for _, r := range reps {
			if r.Source != nil && selectsAny(written, r.Source.ResId) {
				out = append(out, at)
			}
			for _, t := range r.Targets {
				if t != nil && t.Select != nil {
					written = append(written, t.Select)
				}
			}
		}
	}
	return out
}

// replacementFile reads a replacements file (a list of replacements); a
// file that does not decode is krusty's to report.
func (g *graph) replacementFile(k *kustomization, file string) []types.Replacement {
	full, err := resolve(k.Dir, file)
	if err != nil {
		return nil
	}
	data, err := g.kc.files.read(full)
	if err != nil {
		return nil
	}
	var reps []types.Replacement
	if sigsyaml.Unmarshal(data, &reps) != nil {
		return nil
	}
	return reps
}

// selectsAny reports whether one of the selectors may select the object.
func selectsAny(selectors []*types.Selector, id resid.ResId) bool {
	for _, s := range selectors {
		if (s.Kind == "" || s.Kind == id.Kind) && (s.Name == "" || s.Name == id.Name) {
			return true
		}
	}
	return false
}

// feedbackProblems reports a closure with more than
// maxFeedbackReplacements such replacements, at the first of the
// kustomization that has the most.
func feedbackProblems(nodes []*node) []manifest.Problem {
	total := 0
	var most *node
	for _, n := range nodes {
		total += len(n.feedback)
		if len(n.feedback) > 0 && (most == nil || len(n.feedback) > len(most.feedback)) {
			most = n
		}
	}
	if total <= maxFeedbackReplacements {
		return nil
	}
	return []manifest.Problem{{Rule: RuleKustomize, Level: "error", Location: most.feedback[0], Input: true, Key: "feedback:" + most.k.Dir,
		Message: fmt.Sprintf("more than %d replacements read an object that an earlier replacement wrote to, in the objects built with %s "+
			"(each can double an object: thirty took kustomize a minute and 5 GB): copy from the original sources instead", maxFeedbackReplacements, most.k.File)}}
}
