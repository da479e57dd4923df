package fix

import (
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/report"
)

// joint groups the findings of one render target whose edits touch the
// same lines of a file and gives each group one edit: all their operations made one after
// another, most important finding first.
func joint(fixable []planned, r *resolver, known map[string]*finding.JointFix) {
	if len(fixable) < 2 {
		return
	}
	parent := make([]int, len(fixable))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	type span struct {
		at    int
		start int
		end   int
	}
	// Within one render target: --shard splits by target, and every shard
	// must find the same groups. (Alike findings of several targets share
	// identical edits; the review suggests those once anyway.)
	byFile := map[[2]string][]span{}
	for i, p := range fixable {
		for _, e := range p.f.Fix.Edits {
			k := [2]string{p.f.Object.Target, e.File}
			byFile[k] = append(byFile[k], span{i, e.StartLine, e.EndLine})
		}
	}
	for _, spans := range byFile {
		slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
		for i := 1; i < len(spans); i++ {
			for j := i - 1; j >= 0; j-- {
				if spans[j].end >= spans[i].start {
					parent[find(spans[i].at)] = find(spans[j].at)
				}
			}
		}
	}
	groups := map[int][]*finding.Finding{}
	opsOf := map[*finding.Finding][]sourceOp{}
	secretOf := map[*finding.Finding]lineSet{}
	for i, p := range fixable {
		groups[find(i)] = append(groups[find(i)], p.f)
		opsOf[p.f] = p.ops
		secretOf[p.f] = p.secret
	}
	for _, members := range groups {
		if len(members) < 2 {
			continue
		}
		slices.SortStableFunc(members, report.CompareImportance)
		var ops []sourceOp
		fps := make([]string, 0, len(members))
		for _, f := range members {
			ops = append(ops, opsOf[f]...)
			fps = append(fps, f.Fingerprint)
		}
		if j := known[strings.Join(slices.Sorted(slices.Values(fps)), ",")]; j != nil {
			for _, f := range members {
				f.Fix.Joint = j
			}
			continue
		}
		// Keys added to one mapping go in together, in this order. When
		// that cannot be (a key on the way is already there), one after
		// another, least important first: each goes before the mapping's
		// first key, so the most important ends up on top.
		secret := lineSet{}
		for _, f := range members {
			secret = secret.merge(secretOf[f])
		}
		edits, err := r.edits(batchInserts(ops), true, secret)
		if err != nil {
			slices.Reverse(ops)
			edits, err = r.edits(ops, true, secret)
		}
		if err != nil || len(edits) == 0 {
			continue
		}
		j := &finding.JointFix{Findings: fps, Edits: edits, Span: r.span(edits, members[0].Location, secret)}
		for _, f := range members {
			f.Fix.Joint = j
		}
	}
}
