package github

import (
	"slices"
	"strconv"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/report"
)

// Bounds of one comment about several problems: beyond them the next
// problem on the line starts a comment of its own, so that no comment
// outgrows GitHub's 65,536 characters (a base shared by hundreds of
// overlays puts a fingerprint per overlay in the marker).
const (
	maxCommentProblems     = 20
	maxCommentFingerprints = 600
)

// problem is a finding and the findings alike in other render targets,
// with what the suggester said about it.
type problem struct {
	f     *finding.Finding
	alike []*finding.Finding
	sec   section
}

func (p problem) fingerprints() []string { return fingerprintsOf(p.f, p.alike) }

func fingerprintsOf(f *finding.Finding, alike []*finding.Finding) []string {
	fps := make([]string, 0, 1+len(alike))
	fps = append(fps, f.Fingerprint)
	for _, a := range alike {
		fps = append(fps, a.Fingerprint)
	}
	return fps
}

// draft is one review comment being planned: the problems on one line
// (or, for a file comment, about one line of the file), most important
// first, and the one suggested change it carries.
type draft struct {
	where    where
	anchor   Anchor
	line     int // the line a file comment is about
	problems []problem
	// carrier is the index in problems of the one whose suggestion the
	// comment carries (-1: none).
	carrier int
	fps     int
}

// addToDraft adds a problem to the comment it belongs to, else to a new
// one:
//
//   - a problem whose suggestion another planned comment carries (the
//     joint suggestion of findings whose edits touch the same lines) joins
//     that comment: no comment only points at another's suggestion;
//   - problems on the same line (the last line GitHub shows the comment
//     under) share one comment: one checklist, not a stack of comments.
func addToDraft(drafts []*draft, w where, anchor Anchor, p problem) []*draft {
	line := anchor.Line
	if w == onFile {
		line = p.f.Location.Line
	}
	n := len(p.fingerprints())
	fits := func(d *draft) bool {
		return len(d.problems) < maxCommentProblems && d.fps+n <= maxCommentFingerprints
	}
	var into *draft
	if c := p.sec.coveredBy; c != nil {
		for _, d := range drafts {
			if d.where == w && fits(d) && d.holds(c) {
				into = d
				break
			}
		}
	}
	for _, d := range drafts {
		// Suggestions never overlap (the suggester sees to it), so a
		// comment never has two; should it, the problem keeps its own.
		if into == nil && d.where == w && fits(d) && d.anchor.Path == anchor.Path && d.line == line && !(p.sec.suggested && d.carrier >= 0) {
			into = d
		}
	}
	if into != nil {
		if p.sec.suggested {
			// The suggestion replaces exactly its anchored lines.
			into.anchor, into.carrier = anchor, len(into.problems)
		}
		into.problems = append(into.problems, p)
		into.fps += n
		return drafts
	}
	d := &draft{where: w, anchor: anchor, line: line, problems: []problem{p}, carrier: -1, fps: n}
	if p.sec.suggested {
		d.carrier = 0
	}
	return append(drafts, d)
}

// holds reports whether the comment is about finding f.
func (d *draft) holds(f *finding.Finding) bool {
	for _, p := range d.problems {
		if p.f == f {
			return true
		}
		for _, a := range p.alike {
			if a == f {
				return true
			}
		}
	}
	return false
}

// comment is the review comment of the draft: the comment about one
// problem as ever, or one about several — a checklist, the joint
// suggestion once, "How to fix" per rule folded.
func (d *draft) comment() draftComment {
	var fps []string
	for _, p := range d.problems {
		fps = append(fps, p.fingerprints()...)
	}
	dc := draftComment{fingerprints: fps, anchor: d.anchor, suggested: d.carrier >= 0, problems: len(d.problems)}
	intro := ""
	if d.where == onFile {
		intro = fileCommentIntro(d.problems[0].f) + "\n\n"
	}
	if len(d.problems) == 1 {
		p := d.problems[0]
		dc.body = findingCommentBody(intro+report.FindingCommentWith(p.f, p.alike, p.sec.markdown), fps)
		return dc
	}
	fixedHere := map[*finding.Finding]bool{}
	extra := ""
	if d.carrier >= 0 {
		c := d.problems[d.carrier]
		fixedHere[c.f] = true
		var elsewhere []*finding.Finding
		for _, g := range c.sec.also {
			if d.holds(g) {
				fixedHere[g] = true
			} else {
				elsewhere = append(elsewhere, g)
			}
		}
		// The joint change does what each of its findings' fixes does.
		descs := []string{c.sec.desc}
		for _, p := range d.problems {
			if p.f != c.f && (fixedHere[p.f] || p.sec.coveredBy != nil && d.holds(p.sec.coveredBy)) && p.f.Fix != nil {
				if desc := report.MarkdownText(p.f.Fix.Description); desc != "" && !slices.Contains(descs, desc) {
					descs = append(descs, desc)
				}
			}
		}
		extra = "**Suggested change:** " + strings.Join(descs, "; ") + alsoFixes(c.f, elsewhere) + ".\n\n" + c.sec.block
	}
	items := make([]report.CommentItem, 0, len(d.problems))
	for _, p := range d.problems {
		var notes []string
		if l := p.f.Location; d.where == onLine && l.File == d.anchor.Path && l.Line > 0 && !d.anchor.covers(l.Line) {
			// A problem that joined for the suggestion says where it is.
			notes = append(notes, "on line "+strconv.Itoa(l.Line))
		}
		switch {
		case fixedHere[p.f] || (p.sec.coveredBy != nil && d.holds(p.sec.coveredBy)):
			notes = append(notes, "_the suggested change below fixes it_")
		case p.sec.markdown != "" && !p.sec.suggested:
			notes = append(notes, strings.TrimSuffix(p.sec.markdown, "."))
		}
		note := strings.Join(notes, "; ")
		items = append(items, report.CommentItem{Finding: p.f, Alike: p.alike, Note: note})
	}
	dc.body = findingCommentBody(intro+report.FindingsComment(items, extra), fps)
	return dc
}

// covers reports whether line is one of the anchor's lines.
func (a Anchor) covers(line int) bool {
	start := a.StartLine
	if start == 0 {
		start = a.Line
	}
	return start <= line && line <= a.Line
}
