package fix

import (
	"maps"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
)

// draft is a source file as operations leave it: the file's lines with
// some of its document ranges rewritten. Operations work on one document
// range each and never add or remove one, so a draft holds only what
// changed, and making an edit costs the size of the documents it touches,
// not of the file: a file of 20,000 objects and as many findings is not
// copied once per finding.
type draft struct {
	src *sourceFile
	// chunks are the rewritten document ranges, by ordinal: their text,
	// lines joined by "\n" as in the file.
	chunks map[int]string
}

func newDraft(src *sourceFile) *draft { return &draft{src: src, chunks: map[int]string{}} }

// restore is a way back to a draft's state before a set.
type restore struct {
	d       *draft
	rng     int
	text    string
	rewrote bool
}

// setUndoable is set, returning how to undo it.
func (d *draft) setUndoable(rng int, text string) restore {
	old, rewrote := d.chunks[rng]
	d.set(rng, text)
	return restore{d, rng, old, rewrote}
}

func (u restore) undo() {
	if u.rewrote {
		u.d.chunks[u.rng] = u.text
	} else {
		delete(u.d.chunks, u.rng)
	}
}

// chunk is the text of document range rng as the draft has it; ok is false
// when the file has no such range.
func (d *draft) chunk(rng int) (string, bool) {
	if rng < 0 || rng >= len(d.src.ranges) {
		return "", false
	}
	if c, ok := d.chunks[rng]; ok {
		return c, true
	}
	r := d.src.ranges[rng]
	return strings.Join(d.src.lines[r[0]:r[1]], "\n"), true
}

// set rewrites document range rng; the file's own text drops the entry.
func (d *draft) set(rng int, text string) {
	r := d.src.ranges[rng]
	if text == strings.Join(d.src.lines[r[0]:r[1]], "\n") {
		delete(d.chunks, rng)
		return
	}
	d.chunks[rng] = text
}

// text is the whole file as the draft has it.
func (d *draft) text() string {
	if len(d.chunks) == 0 {
		return d.src.text
	}
	var b strings.Builder
	b.Grow(len(d.src.text))
	for i, r := range d.src.ranges {
		if i > 0 {
			b.WriteByte('\n')
		}
		if c, ok := d.chunks[i]; ok {
			b.WriteString(c)
		} else {
			b.WriteString(strings.Join(d.src.lines[r[0]:r[1]], "\n"))
		}
	}
	return b.String()
}

// edit is the line edit from the file to the draft (see lineEdit), worked
// out over the rewritten ranges only.
func (d *draft) edit(avoid map[int]bool) (e finding.Edit, changed, ok bool) {
	if len(d.chunks) == 0 {
		return finding.Edit{}, false, true
	}
	changedRanges := slices.Sorted(maps.Keys(d.chunks))
	first, last := d.src.ranges[changedRanges[0]], d.src.ranges[changedRanges[len(changedRanges)-1]]
	var window []string
	for i := changedRanges[0]; i <= changedRanges[len(changedRanges)-1]; i++ {
		r := d.src.ranges[i]
		if c, ok := d.chunks[i]; ok {
			window = append(window, strings.Split(c, "\n")...)
		} else {
			window = append(window, d.src.lines[r[0]:r[1]]...)
		}
	}
	return lineEditOf(d.src.name, d.src.lines, spliced{d.src.lines, first[0], last[1], window}, avoid)
}

// spliced is a file's lines with lines [from, to) replaced by window.
type spliced struct {
	base     []string
	from, to int
	window   []string
}

func (s spliced) len() int { return len(s.base) - (s.to - s.from) + len(s.window) }

func (s spliced) at(i int) string {
	switch {
	case i < s.from:
		return s.base[i]
	case i < s.from+len(s.window):
		return s.window[i-s.from]
	}
	return s.base[i-len(s.window)+(s.to-s.from)]
}

// lines are lines [from, to) of s.
func (s spliced) lines(from, to int) []string {
	out := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		out = append(out, s.at(i))
	}
	return out
}
