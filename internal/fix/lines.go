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
	lines := r.files[e.File].lines
	if end > len(lines) {
		return nil
	}
	for l := start; l <= end; l++ {
		if secret[e.File][l] && (l < e.StartLine || l > e.EndLine) {
			return nil
		}
	}
	before := joinLinesAfter(lines, start-1, e.StartLine-1)
	after := joinLinesAfter(lines, e.EndLine, end)
	return &finding.Edit{File: e.File, StartLine: start, EndLine: end, Old: before + e.Old + after, New: before + e.New + after}
}

// joinLinesAfter is lines [from, to) of a file's lines (cut at "\n") with
// their line ends, as strings.SplitAfter would have them.
func joinLinesAfter(lines []string, from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		b.WriteString(lines[i])
		if i < len(lines)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// makeAll makes ops one after another and returns the draft of each file
// they touch.
func (r *resolver) makeAll(ops []sourceOp, verify bool) (map[string]*draft, error) {
	drafts := map[string]*draft{}
	for _, op := range ops {
		d := drafts[op.file]
		if d == nil {
			d = newDraft(r.files[op.file])
			drafts[op.file] = d
		}
		if err := r.applyTo(d, op, verify); err != nil {
			return nil, err
		}
	}
	return drafts, nil
}

// applyTo makes op in draft d.
func (r *resolver) applyTo(d *draft, op sourceOp, verify bool) error {
	chunk, ok := d.chunk(op.rng)
	if !ok {
		return notEditable("%s changed: the document is gone", op.file)
	}
	next, err := r.apply(chunk, op, verify)
	if err != nil {
		return err
	}
	d.set(op.rng, next)
	return nil
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
	la := strings.Split(a, "\n")
	return lineEditOf(file, la, spliced{base: la, from: 0, to: len(la), window: strings.Split(b, "\n")}, avoid)
}

// lineEditOf is lineEdit from lines la to lb, where lb is la with some
// lines replaced: the lines before and after the replaced ones are known
// to be alike, so the work is in proportion to the replaced lines (and
// any run of alike lines around them), not to the file.
func lineEditOf(file string, la []string, lb spliced, avoid map[int]bool) (e finding.Edit, changed, ok bool) {
	lenB := lb.len()
	p := lb.from
	for p < len(la) && p < lenB && la[p] == lb.at(p) {
		p++
	}
	s := max(0, min(len(la)-lb.to, len(la)-p, lenB-p))
	for s < len(la)-p && s < lenB-p && la[len(la)-1-s] == lb.at(lenB-1-s) {
		s++
	}
	if p == len(la) && p == lenB {
		return finding.Edit{}, false, true
	}
	start, end := p, len(la)-s // old lines [start, end)
	newEnd := lenB - s
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
		New:       joinLines(lb.lines(start, newEnd), newEnd, lenB),
	}, true, true
}
