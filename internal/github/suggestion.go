package github

import (
	"slices"
	"strings"

	gogithub "github.com/google/go-github/v60/github"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/report"
)

// suggester decides which new line comments carry a GitHub suggested
// change: the finding's fix edit, shown as the text that replaces exactly
// the comment's anchored lines, so a reviewer applies it with one click.
//
// A suggestion is made only when every line it changes lies within the
// comment's anchor, and the anchor within one hunk of the diff (the
// anchor grows from the finding's lines to cover the edit's). Two
// suggestions on the same lines would clash once both are applied (two
// findings adding settings to one container would each add a
// securityContext), so findings whose edits touch the same lines share one
// joint suggestion, carried by the most important one's comment (the
// others join that comment, see planReview), and no suggestion goes on
// lines where one of plumb's comments already has one.
type suggester struct {
	diff *Diff
	// busy are the line ranges, by file, that already carry a suggestion.
	busy map[string][]busySpan
	// carriedBy is the finding whose comment carries a joint suggestion,
	// by the joint's first fingerprint.
	carriedBy map[string]*finding.Finding
	byFP      map[string]*finding.Finding
}

// busySpan is a range of lines a suggestion replaces: one of plumb's
// comments already there, or one planned in this run (with its edit and
// the finding whose comment carries it).
type busySpan struct {
	start, end int
	edits      []finding.Edit
	by         *finding.Finding
}

// section is what a suggestion adds to a comment.
type section struct {
	// markdown is the section of a comment about this finding alone.
	markdown  string
	suggested bool
	// coveredBy, when set, is the finding whose planned comment carries
	// the suggestion that fixes this one too (a joint suggestion, or the
	// same edit in another render target): this finding joins that
	// comment rather than get one that only points there.
	coveredBy *finding.Finding
	// For a comment about several problems: the suggestion's description
	// and fenced block, and the other findings the joint fixes.
	desc, block string
	also        []*finding.Finding
}

func newSuggester(in planInput, ours []*gogithub.PullRequestComment, keep map[int64]bool) *suggester {
	s := &suggester{diff: in.diff, busy: map[string][]busySpan{}, carriedBy: map[string]*finding.Finding{},
		byFP: make(map[string]*finding.Finding, len(in.findings))}
	for _, c := range ours {
		if keep[c.GetID()] && c.Line != nil && hasSuggestion(c.GetBody()) {
			start := c.GetStartLine()
			if start == 0 {
				start = c.GetLine()
			}
			s.busy[c.GetPath()] = append(s.busy[c.GetPath()], busySpan{start: start, end: c.GetLine()})
		}
	}
	for _, f := range in.findings {
		if s.byFP[f.Fingerprint] == nil {
			s.byFP[f.Fingerprint] = f
		}
	}
	return s
}

// suggest returns the comment's anchor and what to add to its body. The
// suggestion replaces exactly the anchored lines: the fix's span (its edit
// widened to the finding's lines) when one hunk shows it, else the edit's
// own lines (the comment then sits on them).
func (s *suggester) suggest(f *finding.Finding, anchor Anchor) (Anchor, section) {
	if !f.Fixable() {
		return anchor, section{}
	}
	edits, span := f.Fix.Edits, f.Fix.Span
	var also []*finding.Finding
	jointKey := ""
	if j := f.Fix.Joint; j != nil && len(j.Findings) > 1 && len(j.Edits) > 0 {
		jointKey = j.Findings[0]
		if by, ok := s.carriedBy[jointKey]; ok {
			return anchor, section{coveredBy: by, markdown: "The suggested change in plumb's comment about " + describe(by) + " on these lines fixes this too."}
		}
		edits, span = j.Edits, j.Span
		for _, fp := range j.Findings {
			if g := s.byFP[fp]; g != nil && fp != f.Fingerprint {
				also = append(also, g)
			}
		}
	}
	desc := report.MarkdownText(f.Fix.Description)
	fallback := section{markdown: "`plumb fix` makes this change at the source: " + desc + "."}
	if len(edits) != 1 {
		return anchor, fallback
	}
	e := edits[0]
	if a, ok := s.diff.Span(e.File, e.StartLine, e.EndLine); ok {
		anchor = a
	} else {
		return anchor, fallback
	}
	if span != nil {
		if a, ok := s.diff.Span(span.File, span.StartLine, span.EndLine); ok {
			e, anchor = *span, a
		}
	}
	if b := s.overlap(e.File, e.StartLine, e.EndLine); b != nil {
		if b.by != nil && slices.Equal(b.edits, edits) {
			// The same edit (a base shared by several overlays).
			return anchor, section{coveredBy: b.by, markdown: "The suggested change in plumb's comment about " + describe(b.by) + " on these lines fixes this too."}
		}
		return anchor, fallback
	}
	if strings.ContainsRune(e.New, '\r') {
		return anchor, fallback // GitHub's suggestions are line-based text
	}
	text := strings.TrimSuffix(e.New, "\n")
	s.busy[e.File] = append(s.busy[e.File], busySpan{start: e.StartLine, end: e.EndLine, edits: edits, by: f})
	if jointKey != "" {
		s.carriedBy[jointKey] = f
	}
	fence := report.MarkdownFence(text)
	block := fence + "suggestion\n" + text + "\n" + fence
	md := "**Suggested change:** " + desc + alsoFixes(f, also) + ".\n\n" + block
	return anchor, section{markdown: md, suggested: true, desc: desc, block: block, also: also}
}

// alsoFixes says which other findings a joint suggestion fixes: "; it
// also fixes `check/B` and `check/C` here" ("" for none).
func alsoFixes(f *finding.Finding, also []*finding.Finding) string {
	if len(also) == 0 {
		return ""
	}
	names := make([]string, 0, len(also))
	for _, g := range also {
		if g.Object == f.Object {
			names = append(names, report.MarkdownCode(g.RuleID))
		} else {
			names = append(names, describe(g))
		}
	}
	return "; it also fixes " + joinAnd(names) + " here"
}

// describe names a finding in a comment: its rule and object.
func describe(f *finding.Finding) string {
	s := report.MarkdownCode(f.RuleID)
	if !f.Object.IsZero() {
		s += " (" + report.MarkdownText(f.Object.String()) + ")"
	}
	return s
}

// overlap returns a suggestion already on some of lines start..end.
func (s *suggester) overlap(path string, start, end int) *busySpan {
	for i, b := range s.busy[path] {
		if start <= b.end && b.start <= end {
			return &s.busy[path][i]
		}
	}
	return nil
}

// joinAnd lists items as people write them: "a, b and c".
func joinAnd(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
