package diff

import (
	"strconv"
	"strings"
)

// Format prints an edit script as a unified diff (the format of diff -u and
// git diff) with context unchanged lines around each change; "" when the
// script changes nothing. A negative context means DefaultContext.
func Format(from, to string, lines []Line, context int) string {
	if context < 0 {
		context = DefaultContext
	}
	hunks := hunks(lines, context)
	if len(hunks) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("--- ")
	b.WriteString(from)
	b.WriteString("\n+++ ")
	b.WriteString(to)
	b.WriteByte('\n')
	for _, h := range hunks {
		h.write(&b, lines)
	}
	return b.String()
}

// hunk is a run of lines[start:end]; aStart and bStart are the 0-based line
// numbers of its first line in each text.
type hunk struct {
	start, end     int
	aStart, bStart int
}

// hunks groups the changes of a script with their context; changes closer
// than twice the context share a hunk, as in diff -u.
func hunks(lines []Line, context int) []hunk {
	var out []hunk
	aLine, bLine := 0, 0
	// aAt and bAt record each line's position in a and b.
	aAt := make([]int, len(lines))
	bAt := make([]int, len(lines))
	for i, l := range lines {
		aAt[i], bAt[i] = aLine, bLine
		if l.Op != Insert {
			aLine++
		}
		if l.Op != Delete {
			bLine++
		}
	}
	for i := 0; i < len(lines); {
		if lines[i].Op == Equal {
			i++
			continue
		}
		start := max(0, i-context)
		// Extend past every change whose leading context touches this one.
		end := i
		for j := i; j < len(lines); j++ {
			if lines[j].Op != Equal {
				end = j + 1
				continue
			}
			if j-end >= 2*context {
				break
			}
		}
		end = min(len(lines), end+context)
		out = append(out, hunk{start: start, end: end, aStart: aAt[start], bStart: bAt[start]})
		i = end
	}
	return out
}

func (h hunk) write(b *strings.Builder, lines []Line) {
	aLen, bLen := 0, 0
	for _, l := range lines[h.start:h.end] {
		if l.Op != Insert {
			aLen++
		}
		if l.Op != Delete {
			bLen++
		}
	}
	b.WriteString("@@ -")
	b.WriteString(hunkRange(h.aStart, aLen))
	b.WriteString(" +")
	b.WriteString(hunkRange(h.bStart, bLen))
	b.WriteString(" @@\n")
	for _, l := range lines[h.start:h.end] {
		switch l.Op {
		case Equal:
			b.WriteByte(' ')
		case Delete:
			b.WriteByte('-')
		case Insert:
			b.WriteByte('+')
		}
		b.WriteString(l.Text)
		if !strings.HasSuffix(l.Text, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange prints a hunk's start and length the way diff -u does: 1-based,
// the length omitted when it is 1, and an empty range placed after the line
// it follows.
func hunkRange(start, n int) string {
	switch n {
	case 0:
		return strconv.Itoa(start) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	default:
		return strconv.Itoa(start+1) + "," + strconv.Itoa(n)
	}
}
