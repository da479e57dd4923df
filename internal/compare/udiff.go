package compare

import (
	"strconv"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// diffContext is the number of unchanged lines around a change, as diff -u.
const diffContext = 3

func newDMP() *diffmatchpatch.DiffMatchPatch {
	dmp := diffmatchpatch.New()
	// No timeout: a timed-out diff is valid but not minimal, so results
	// would depend on machine load.
	dmp.DiffTimeout = 0
	return dmp
}

type lineOp byte

const (
	opEqual  lineOp = ' '
	opDelete lineOp = '-'
	opInsert lineOp = '+'
)

// diffLine is one line of a line diff with its 1-based numbers in the
// reference (a) and input (b) texts (0 where it is absent).
type diffLine struct {
	op   lineOp
	text string // without the newline
	a, b int
}

// lineDiff diffs two texts line by line: go-diff's line mode (each distinct
// line becomes one rune), then the lines numbered on each side.
func lineDiff(a, b string) []diffLine {
	dmp := newDMP()
	ra, rb, lineArray := dmp.DiffLinesToRunes(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(ra, rb, false), lineArray)
	var out []diffLine
	an, bn := 0, 0
	for _, d := range diffs {
		for _, text := range splitLines(d.Text) {
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				an++
				bn++
				out = append(out, diffLine{opEqual, text, an, bn})
			case diffmatchpatch.DiffDelete:
				an++
				out = append(out, diffLine{opDelete, text, an, 0})
			case diffmatchpatch.DiffInsert:
				bn++
				out = append(out, diffLine{opInsert, text, 0, bn})
			}
		}
	}
	return out
}

// splitLines splits a text into lines without their newlines.
func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// hunk is lines[start:end] of a line diff.
type hunk struct{ start, end int }

// hunks groups changes with their context; changes closer than twice the
// context share a hunk, as in diff -u.
func hunks(lines []diffLine) []hunk {
	var out []hunk
	for i := 0; i < len(lines); {
		if lines[i].op == opEqual {
			i++
			continue
		}
		start := max(0, i-diffContext)
		end := i + 1
		for j := i; j < len(lines); j++ {
			if lines[j].op != opEqual {
				end = j + 1
				continue
			}
			if j-end >= 2*diffContext {
				break
			}
		}
		end = min(len(lines), end+diffContext)
		out = append(out, hunk{start, end})
		i = end
	}
	return out
}

// writeHunk prints one hunk with its @@ header.
func writeHunk(b *strings.Builder, lines []diffLine, h hunk) {
	aStart, bStart, aLen, bLen := 0, 0, 0, 0
	aBefore, bBefore := 0, 0
	for i := h.start; i < h.end; i++ {
		l := lines[i]
		if l.op != opInsert {
			if aLen == 0 {
				aStart = l.a
			}
			aLen++
		}
		if l.op != opDelete {
			if bLen == 0 {
				bStart = l.b
			}
			bLen++
		}
	}
	// An empty side is numbered after the line it follows.
	for i := h.start - 1; i >= 0 && (aBefore == 0 || bBefore == 0); i-- {
		if aBefore == 0 && lines[i].a > 0 {
			aBefore = lines[i].a
		}
		if bBefore == 0 && lines[i].b > 0 {
			bBefore = lines[i].b
		}
	}
	b.WriteString("@@ -")
	b.WriteString(hunkRange(aStart, aLen, aBefore))
	b.WriteString(" +")
	b.WriteString(hunkRange(bStart, bLen, bBefore))
	b.WriteString(" @@\n")
	for i := h.start; i < h.end; i++ {
		b.WriteByte(byte(lines[i].op))
		b.WriteString(lines[i].text)
		b.WriteByte('\n')
	}
}

func hunkRange(start, n, before int) string {
	switch n {
	case 0:
		return strconv.Itoa(before) + ",0"
	case 1:
		return strconv.Itoa(start)
	}
	return strconv.Itoa(start) + "," + strconv.Itoa(n)
}

// unifiedDiff prints the whole diff with the given header lines.
func unifiedDiff(lines []diffLine, header string) string {
	hs := hunks(lines)
	if len(hs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(header)
	for _, h := range hs {
		writeHunk(&b, lines, h)
	}
	return b.String()
}

// diffScore is kube-compare's tie-breaker between candidate templates: the
// number of bytes in the changed segments of a character diff.
func diffScore(a, b string) int {
	if a == b {
		return 0
	}
	score := 0
	for _, d := range newDMP().DiffMain(a, b, false) {
		if d.Type != diffmatchpatch.DiffEqual {
			score += len(d.Text)
		}
	}
	return score
}
