// Package change judges what a pull request does to each render target:
// it pairs the objects the base revision and the head render (by kind,
// namespace and name, then renames by similarity) and yields findings
// about the change itself — updates the API server rejects, deletions
// with consequences, renames that recreate, selectors a label change
// breaks, replicas set to zero, image tags that move backwards — and a
// change summary per target (objects added, changed and deleted; images,
// replicas and requested resources) that the summary comment shows first.
//
// Everything here reads only the two renders: no cluster, no live state.
// Where the API server's verdict depends on live state (a Service's
// clusterIP the cluster allocated, a CRD's stored versions) the rule
// reads what the manifests say and the docs say how it diverges.
package change

import (
	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/render"
)

// SourceChange is the Finding.Source of the change's findings.
const SourceChange = "change"

// Result is what the change stage yields.
type Result struct {
	// Findings are the change's own findings, every one new (the change
	// caused it).
	Findings []finding.Finding
	// Section is the change summary (the JSON report's "change" section).
	Section *Section
}

// Analyze pairs the targets of the base and the head revision and judges
// the change. The head's findings (open ones) gain the fixes only the base
// knows: an unpinned image is pinned to the base's tag. Targets only one side renders are summarised (added or
// removed) but not judged object by object: a target that disappears is
// most often a directory moved or renamed, not objects deleted from a
// cluster.
func Analyze(base, head []*render.Target, headFindings []finding.Finding) *Result {
	res := &Result{}
	var summaries []TargetSummary
	tps := PairTargets(base, head)
	suggestBasePins(headFindings, tps)
	for _, tp := range tps {
		if tp.Base != nil && tp.Head != nil {
			res.Findings = append(res.Findings, judge(tp)...)
		}
		if s, changed := summarise(tp); changed {
			summaries = append(summaries, s)
		}
	}
	for i := range res.Findings {
		f := &res.Findings[i]
		f.Source = SourceChange
		f.Status = finding.StatusNew
		f.SetFingerprint()
	}
	finding.Sort(res.Findings)
	res.Section = newSection(summaries)
	return res
}

// judge runs every finding type over one target present on both sides.
func judge(tp TargetPairs) []finding.Finding {
	var out []finding.Finding
	for _, p := range tp.Pairs {
		switch {
		case p.Base != nil && p.Head != nil && p.RenamedFrom:
			out = append(out, renamed(p)...)
		case p.Base != nil && p.Head != nil:
			out = append(out, immutable(p)...)
			out = append(out, workloadChanges(p)...)
		}
	}
	out = append(out, deletions(tp)...)
	out = append(out, orphanedSelectors(tp)...)
	return out
}
