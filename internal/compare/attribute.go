package compare

import (
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// driftField is one drifted field of a compared input: its path and the
// hunks of the diff that show it.
type driftField struct {
	path  manifest.Path
	hunks []hunk
}

// driftFields turns a line diff into the fields that differ. Each run of
// changed lines is attributed, on each side, to the largest fields whose
// lines all changed (a field added or removed whole) and, for lines no such
// field covers, to the deepest field holding the line (a changed scalar, or
// one line inside a block string). Fields are in order of first change.
func (c *Compared) driftFields() []driftField {
	if !c.HasDiff {
		return nil
	}
	refLines, liveLines := mapLines(c.RefText), mapLines(c.LiveText)
	hs := hunks(c.Lines)
	var out []driftField
	byPath := map[string]int{}
	for i := 0; i < len(c.Lines); {
		if c.Lines[i].op == opEqual {
			i++
			continue
		}
		j := i
		var aChanged, bChanged []int
		for ; j < len(c.Lines) && c.Lines[j].op != opEqual; j++ {
			if c.Lines[j].op == opDelete {
				aChanged = append(aChanged, c.Lines[j].a)
			} else {
				bChanged = append(bChanged, c.Lines[j].b)
			}
		}
		paths := append(changedFields(refLines, aChanged), changedFields(liveLines, bChanged)...)
		paths = outermost(paths)
		h := hunkOf(hs, i)
		for _, p := range paths {
			key := p.String()
			k, seen := byPath[key]
			if !seen {
				k = len(out)
				byPath[key] = k
				out = append(out, driftField{path: p})
			}
			if !slices.Contains(out[k].hunks, h) {
				out[k].hunks = append(out[k].hunks, h)
			}
		}
		i = j
	}
	return out
}

func hunkOf(hs []hunk, line int) hunk {
	for _, h := range hs {
		if line >= h.start && line < h.end {
			return h
		}
	}
	return hunk{}
}

// changedFields attributes changed lines of one side to fields.
func changedFields(lp *linePaths, lines []int) []manifest.Path {
	if len(lines) == 0 {
		return nil
	}
	changed := map[int]bool{}
	for _, l := range lines {
		changed[l] = true
	}
	var covered []fieldSpan
	for _, s := range lp.spans {
		all := true
		for l := s.start; l <= s.end; l++ {
			if !changed[l] {
				all = false
				break
			}
		}
		if all {
			covered = append(covered, s)
		}
	}
	var out []manifest.Path
	for _, s := range covered {
		out = append(out, s.path)
	}
	out = outermost(out)
	for _, l := range lines {
		inCovered := slices.ContainsFunc(covered, func(s fieldSpan) bool { return l >= s.start && l <= s.end })
		if !inCovered && l < len(lp.line) {
			out = append(out, lp.line[l])
		}
	}
	return out
}

// outermost drops duplicates and paths below another path of the list,
// keeping the order of first appearance.
func outermost(paths []manifest.Path) []manifest.Path {
	var out []manifest.Path
	for i, p := range paths {
		drop := false
		for j, q := range paths {
			if i != j && len(q) < len(p) && p.HasPrefix(q) {
				drop = true
				break
			}
		}
		if drop || slices.ContainsFunc(out, p.Equal) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// fieldDiff prints the hunks showing one drifted field.
func (c *Compared) fieldDiff(f driftField, header string) string {
	var b strings.Builder
	b.WriteString(header)
	for _, h := range f.hunks {
		writeHunk(&b, c.Lines, h)
	}
	return b.String()
}
