package fix

import (
	"fmt"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
)

// Item is one edit plumb fix makes: a finding's own edits, or the joint
// edits of findings whose edits touch the same lines.
type Item struct {
	Findings []*finding.Finding
	Edits    []finding.Edit
}

// Batch is the edits to make together: no two touch the same lines.
type Batch struct {
	Items []Item
	// Deferred are findings whose edits clash with chosen ones: once
	// those are made, a new run computes theirs afresh.
	Deferred []*finding.Finding
}

// Choose picks the edits of fixable findings (most important first) that
// can be made together: joint edits where findings share lines (when all
// of those findings are among these), the same edit once for alike
// findings (a base shared by overlays).
func Choose(findings []*finding.Finding) Batch {
	var b Batch
	taken := map[string][][2]int{}
	seen := map[*finding.JointFix]int{}
	same := map[string]int{}
	among := map[string]bool{}
	for _, f := range findings {
		among[f.Fingerprint] = true
	}
	for _, f := range findings {
		if !f.Fixable() {
			continue
		}
		edits := f.Fix.Edits
		if j := f.Fix.Joint; j != nil && allAmong(j.Findings, among) {
			if i, ok := seen[j]; ok {
				b.Items[i].Findings = append(b.Items[i].Findings, f)
				continue
			}
			edits = j.Edits
		}
		key := editsKey(edits)
		if i, ok := same[key]; ok {
			b.Items[i].Findings = append(b.Items[i].Findings, f)
			continue
		}
		if clashes(taken, edits) {
			b.Deferred = append(b.Deferred, f)
			continue
		}
		for _, e := range edits {
			taken[e.File] = append(taken[e.File], [2]int{e.StartLine, e.EndLine})
		}
		if j := f.Fix.Joint; j != nil && allAmong(j.Findings, among) {
			seen[j] = len(b.Items)
		}
		same[key] = len(b.Items)
		b.Items = append(b.Items, Item{Findings: []*finding.Finding{f}, Edits: edits})
	}
	return b
}

func allAmong(fps []string, among map[string]bool) bool {
	for _, fp := range fps {
		if !among[fp] {
			return false
		}
	}
	return true
}

func editsKey(edits []finding.Edit) string {
	var k strings.Builder
	for _, e := range edits {
		fmt.Fprintf(&k, "%s\x00%d\x00%d\x00%s\x00%s\x00", e.File, e.StartLine, e.EndLine, e.Old, e.New)
	}
	return k.String()
}

func clashes(taken map[string][][2]int, edits []finding.Edit) bool {
	for _, e := range edits {
		for _, r := range taken[e.File] {
			if e.StartLine <= r[1] && r[0] <= e.EndLine {
				return true
			}
		}
	}
	return false
}

// ApplyEdits makes edits on texts (by file) and returns the new texts.
// Every edit's old lines must be where it says: the files are what the
// edits were computed against.
func ApplyEdits(texts map[string]string, edits []finding.Edit) (map[string]string, error) {
	byFile := map[string][]finding.Edit{}
	for _, e := range edits {
		byFile[e.File] = append(byFile[e.File], e)
	}
	out := make(map[string]string, len(byFile))
	for file, es := range byFile {
		text, ok := texts[file]
		if !ok {
			return nil, fmt.Errorf("%s: not read", file)
		}
		// From the bottom up: each edit's line numbers still hold.
		slices.SortFunc(es, func(a, b finding.Edit) int { return b.StartLine - a.StartLine })
		lines := strings.SplitAfter(text, "\n")
		for _, e := range es {
			if e.StartLine < 1 || e.EndLine > len(lines) || e.EndLine < e.StartLine {
				return nil, fmt.Errorf("%s:%d-%d: past the end of the file", file, e.StartLine, e.EndLine)
			}
			if got := strings.Join(lines[e.StartLine-1:e.EndLine], ""); got != e.Old {
				return nil, fmt.Errorf("%s:%d: the file changed since the edit was computed", file, e.StartLine)
			}
			next := append(slices.Clone(lines[:e.StartLine-1]), e.New)
			lines = append(next, lines[e.EndLine:]...)
		}
		out[file] = strings.Join(lines, "")
	}
	return out, nil
}
