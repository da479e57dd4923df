package fix

import (
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
)

// maxSpanExtra bounds the unchanged lines a span adds to its edit: a
// suggestion that repeats a screenful of lines hides its change, and the
// comment is then better on the edit's lines.
const maxSpanExtra = 6

// span widens a single edit to the finding's own lines in the same file,
// the lines between as they are; nil when that would take in a line of
// secret or more than maxSpanExtra lines, or there is nothing to widen.
func (r *resolver) span(edits []finding.Edit, loc finding.Location, secret lineSet) *finding.Edit {
	if len(edits) != 1 || edits[0].File != loc.File || loc.Line <= 0 {
		return nil
	}
	e := edits[0]
	start, end := min(loc.Line, e.StartLine), max(loc.Line, loc.EndLine, e.EndLine)
	if start == e.StartLine && end == e.EndLine || (e.StartLine-start)+(end-e.EndLine) > maxSpanExtra {
		return nil
	}
	lines := strings.SplitAfter(r.files[e.File].text, "\n")
	if end > len(lines) {
		return nil
	}
	for l := start; l <= end; l++ {
		if secret[e.File][l] && (l < e.StartLine || l > e.EndLine) {
			return nil
		}
	}
	before := strings.Join(lines[start-1:e.StartLine-1], "")
	after := strings.Join(lines[e.EndLine:end], "")
	return &finding.Edit{File: e.File, StartLine: start, EndLine: end, Old: before + e.Old + after, New: before + e.New + after}
}

// makeAll makes ops one after another and returns the new text of each
// file they touch.
func (r *resolver) makeAll(ops []sourceOp, verify bool) (map[string]string, error) {
	texts := map[string]string{}
	for _, op := range ops {
		text, ok := texts[op.file]
		if !ok {
			text = r.files[op.file].text
		}
		next, err := r.apply(text, op, verify)
		if err != nil {
			return nil, err
		}
		texts[op.file] = next
	}
	return texts, nil
}

// lineEdit is the edit that turns text a into b: the lines between their
// common beginning and end. A pure insertion also covers the line before
// it (or after it: at the top of the file, or when the line before is in
// avoid): an edit replaces at least one line, as a suggested change does.
// ok is false when the edit would replace a line in avoid; changed when a
// and b differ.
func lineEdit(file, a, b string, avoid map[int]bool) (e finding.Edit, changed, ok bool) {
	if a == b {
		return finding.Edit{}, false, true
	}
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	p := 0
	for p < len(la) && p < len(lb) && la[p] == lb[p] {
		p++
	}
	s := 0
	for s < len(la)-p && s < len(lb)-p && la[len(la)-1-s] == lb[len(lb)-1-s] {
		s++
	}
	start, end := p, len(la)-s // old lines [start, end)
	newEnd := len(lb) - s
	if start == end {
		// A pure insertion between lines start and start+1 (1-based).
		if start > 0 && !avoid[start] {
			start--
		} else {
			end++
			newEnd++
		}
	}
	if end > len(la) {
		return finding.Edit{}, true, false
	}
	for l := start + 1; l <= end; l++ {
		if avoid[l] {
			return finding.Edit{}, true, false
		}
	}
	joinLines := func(lines []string, to, total int) string {
		text := strings.Join(lines, "\n")
		if to < total {
			text += "\n"
		}
		return text
	}
	return finding.Edit{
		File:      file,
		StartLine: start + 1,
		EndLine:   end,
		Old:       joinLines(la[start:end], end, len(la)),
		New:       joinLines(lb[start:newEnd], newEnd, len(lb)),
	}, true, true
}
