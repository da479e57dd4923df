package renderdiff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/mdtext"
)

// CommentLimit is the most characters GitHub accepts in a comment body.
const CommentLimit = 65536

// Markdown renders the section for a pull-request comment or job summary:
// one collapsed <details> block per target with its diff, in at most budget
// bytes (a byte count never under-counts GitHub's character limit). When
// the diffs do not fit, every target gets a fair share: small diffs are
// shown whole and large ones are cut at a line, with a note saying how
// much was left out; targets that do not fit at all are counted at the end.
// It returns "" when nothing changed.
func Markdown(s *Section, budget int) string {
	const tailReserve = 120 // for the "n more targets" line
	if s == nil || len(s.Targets) == 0 || budget < tailReserve {
		return ""
	}
	blocks := make([]block, len(s.Targets))
	for i := range s.Targets {
		blocks[i] = newBlock(&s.Targets[i])
	}
	// Water-filling: give the smallest blocks what they need first, then
	// share what is left equally among the larger ones.
	order := make([]int, len(blocks))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return blocks[a].full() - blocks[b].full() })
	remaining := budget - tailReserve
	for n, i := range order {
		share := remaining / (len(order) - n)
		blocks[i].fit(share)
		remaining -= blocks[i].size()
	}

	var b strings.Builder
	omitted := 0
	for i := range blocks {
		if blocks[i].omitted {
			omitted++
			continue
		}
		b.WriteString(blocks[i].render())
	}
	if omitted > 0 {
		fmt.Fprintf(&b, "\n… and %d more %s with changes: the full diff is in the JSON report.\n", omitted, plural(omitted, "target", "targets"))
	}
	return b.String()
}

// block is one target's <details> element, possibly cut.
type block struct {
	t       *Target
	head    string   // <details><summary>…</summary> and the opening fence
	tail    string   // the closing fence and </details>
	lines   []string // the diff's lines
	keep    int      // lines kept
	omitted bool     // nothing fits, not even the summary
}

func newBlock(t *Target) block {
	fence := mdtext.Fence(t.Diff)
	summary := fmt.Sprintf("<details><summary><code>%s</code> — %s (+%d −%d)</summary>\n\n%sdiff\n",
		mdtext.HTML(t.Name), describe(t), t.LinesAdded, t.LinesRemoved, fence)
	lines := strings.SplitAfter(t.Diff, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return block{t: t, head: summary, tail: fence + "\n\n</details>\n", lines: lines, keep: len(lines)}
}

func (b *block) full() int {
	n := len(b.head) + len(b.tail)
	for _, l := range b.lines {
		n += len(l)
	}
	return n
}

// cutNote is the line that replaces what was left out.
func (b *block) cutNote() string {
	if b.keep == len(b.lines) {
		return ""
	}
	return fmt.Sprintf("… %d more lines: the full diff is in the JSON report\n", len(b.lines)-b.keep)
}

func (b *block) size() int {
	if b.omitted {
		return 0
	}
	n := len(b.head) + len(b.tail) + len(b.cutNote())
	for _, l := range b.lines[:b.keep] {
		n += len(l)
	}
	return n
}

// fit keeps as many lines as fit in share bytes; when not even the frame
// fits, the block is omitted.
func (b *block) fit(share int) {
	if b.full() <= share {
		return
	}
	const noteMax = 64
	room := share - len(b.head) - len(b.tail) - noteMax
	if room < 0 {
		b.omitted, b.keep = true, 0
		return
	}
	b.keep = 0
	for b.keep < len(b.lines) && len(b.lines[b.keep]) <= room {
		room -= len(b.lines[b.keep])
		b.keep++
	}
}

func (b *block) render() string {
	var sb strings.Builder
	sb.WriteString(b.head)
	for _, l := range b.lines[:b.keep] {
		sb.WriteString(l)
	}
	sb.WriteString(b.cutNote())
	sb.WriteString(b.tail)
	return sb.String()
}

// describe summarises a target's changes in words.
func describe(t *Target) string {
	var parts []string
	if t.Status == TargetAdded {
		parts = append(parts, "new target")
	}
	if t.Status == TargetRemoved {
		parts = append(parts, "target removed")
	}
	if t.Changed > 0 {
		parts = append(parts, fmt.Sprintf("%d %s changed", t.Changed, plural(t.Changed, "object", "objects")))
	}
	if t.Added > 0 {
		parts = append(parts, fmt.Sprintf("%d added", t.Added))
	}
	if t.Removed > 0 {
		parts = append(parts, fmt.Sprintf("%d removed", t.Removed))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
