package github

import (
	"fmt"
	"strconv"
	"strings"

	gogithub "github.com/google/go-github/v60/github"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/report"
)

// Review comment limits.
const (
	// CommentsPerReview is how many comments one review request carries:
	// larger reviews trip GitHub's secondary rate limits (reviewdog's
	// experience, research/peers.md §4).
	CommentsPerReview = 30
	// DefaultMaxComments bounds plumb's review comments on a pull request,
	// those already there included.
	DefaultMaxComments = 90
	// maxFileComments bounds plumb's file comments on a pull request
	// (reviewdog's cap): more would bury the line comments.
	maxFileComments = 10
	// maxBodyLines bounds the findings one review body lists.
	maxBodyLines = 20
)

// ReviewResult counts what happened to the review comments.
type ReviewResult struct {
	Posted int // new comments on lines
	// PostedProblems are the problems the new line comments are about:
	// the problems on one line share a comment.
	PostedProblems int
	// Files are new file comments: new findings on lines the pull request
	// did not change, in files it changes.
	Files int
	// Listed are new findings in files the pull request does not change,
	// listed in a review's body.
	Listed      int
	Suggestions int // new comments that carry a suggested change
	Kept        int // findings whose comment (or listing) was already there
	Deleted     int // plumb's comments that no longer apply, removed
	// Resolved are threads of fixed findings that had replies: answered
	// "fixed in" and resolved.
	Resolved int
	// Replaced are plumb's comments that nobody replied to, replaced by
	// one comment about every problem of their line when a push brought a
	// new problem there (counted apart from Deleted).
	Replaced int
	// Discussed are new problems on a line whose plumb comment has
	// replies: listed in the review's body, the conversation left as it
	// is.
	Discussed   int
	OutsideDiff int // open findings on lines the pull request did not change, not new
	OverLimit   int // left out by the caps
	// (Kept, OutsideDiff and OverLimit count problems: findings alike in
	// several render targets once, as the summary does.)
	Rejected int // anchors GitHub refused even so (the diff moved meanwhile)
	// NotPosted were planned but not posted because posting stopped (a
	// rate limit, an error).
	NotPosted int
}

// draftComment is a review comment to post: on a line (anchor.Line > 0)
// or on a whole file, about findings that read alike (one finding, or the
// same one in several render targets).
type draftComment struct {
	fingerprints []string
	anchor       Anchor
	body         string
	suggested    bool
	problems     int // the problems it is about (findings alike count once)
}

// listing is a line of a review body about findings that read alike.
type listing struct {
	fingerprints []string
	text         string
	// discussed: a new finding on a line whose plumb comment has replies
	// (see sameLine), not one in a file the pull request does not change.
	discussed bool
}

// reviewPlan is what SyncReview will do, decided before any write.
type reviewPlan struct {
	create []draftComment // line comments, posted in reviews
	files  []draftComment // file comments, posted one by one
	listed []listing      // findings listed in the first review's body
	delete []int64
	// fixed are plumb's comments with replies whose finding is gone: they
	// get a "fixed in" reply and their thread is resolved.
	fixed []*gogithub.PullRequestComment
	// replaced are the comments of delete that a comment about every
	// problem of their line replaces (see sameLine).
	replaced map[int64]bool
	result   ReviewResult
}

// planInput is what planReview decides from.
type planInput struct {
	// findings are the open findings, most important first.
	findings []*finding.Finding
	diff     *Diff
	// existing are the pull request's review comments.
	existing []*gogithub.PullRequestComment
	// listed are the findings plumb's earlier review bodies list.
	listed map[string]bool
	// max bounds plumb's comments on the pull request (0: the default).
	max int
	// ours tells plumb's comments from others that carry its markers (nil:
	// every marked comment is plumb's).
	ours func(*gogithub.User) bool
}

// where a finding can be brought to the author.
type where int

const (
	nowhere where = iota
	onLine        // a comment on its line
	onFile        // a comment on its file (new, on a line the diff does not show)
	inBody        // a line in a review body (new, in a file the pull request does not change)
)

// place decides where a finding goes, and the anchor of a line comment.
//
//   - A finding gets a line comment only when the pull request is what it
//     is about: one of its lines was added or changed, or (in pull-request
//     mode) the finding is new — the change caused it even where the line
//     itself is unchanged. Its first line must also be shown in a hunk of
//     the diff (GitHub rejects the whole review otherwise). An old finding
//     on a context line next to an edit is counted, not commented: the
//     reviewer did not ask about it.
//   - A new finding on a line the diff does not show (removing limits:
//     makes an unchanged container line a finding) still reaches the
//     author: a comment on its file when the pull request changes the file,
//     else a line in the review's body.
//   - A finding with a fix is commented where the fix edits, when the
//     diff shows those lines (and the same rule holds for them): that is
//     the line to change (an overlay patch's value, where the finding
//     points at the base's container), and the suggested change can go
//     there.
func place(f *finding.Finding, diff *Diff) (where, Anchor) {
	loc := f.Location
	if !fingerprintLike.MatchString(f.Fingerprint) || f.Side == finding.SideBase {
		// A line of the base revision (a deleted object) is not a line
		// of the head: the summary comment lists it. So does it a finding
		// without a fingerprint plumb makes: the fingerprint goes into the
		// comment's hidden marker, and a report posted from a fork's
		// artifact could otherwise end the marker and add mentions or
		// links to the comment.
		return nowhere, Anchor{}
	}
	anchor, ok := diff.Anchor(loc.File, loc.Line, loc.EndLine)
	if ok && f.Status != finding.StatusNew {
		ok = diff.ChangedWithin(loc.File, loc.Line, loc.EndLine)
	}
	if f.Fixable() && len(f.Fix.Edits) == 1 {
		// (In the finding's own file the suggestion spans both.)
		if e := f.Fix.Edits[0]; !ok || e.File != loc.File {
			if a, editable := diff.Span(e.File, e.StartLine, e.EndLine); editable && (f.Status == finding.StatusNew || diff.ChangedWithin(e.File, e.StartLine, e.EndLine)) {
				return onLine, a
			}
		}
	}
	switch {
	case ok:
		return onLine, anchor
	case f.Status != finding.StatusNew || loc.File == "":
		return nowhere, Anchor{}
	case diff.Stale(loc.File):
		// The checkout is not the head's version of the file: the line in
		// the comment could be wrong.
		return nowhere, Anchor{}
	case diff.File(loc.File) != nil:
		return onFile, Anchor{Path: loc.File}
	}
	return inBody, Anchor{}
}

// planReview decides which findings get a new comment and what becomes of
// plumb's earlier comments.
//
//   - A finding that already has plumb's comment (same fingerprint, on a
//     line or a file, or outdated with replies) or listing gets none:
//     reruns never post twice.
//   - The cap counts plumb's comments already on the pull request: a rerun
//     with nothing new posts nothing, however many findings there are.
//   - plumb's comments that nobody replied to are deleted when their
//     finding is gone, or when they are outdated (the finding is then
//     commented again where it now is). One with replies whose finding is
//     gone gets a "fixed in" reply and its thread resolved, once.
func planReview(in planInput) reviewPlan {
	var plan reviewPlan
	max := in.max
	if max <= 0 {
		max = DefaultMaxComments
	}
	ours := map[string][]*gogithub.PullRequestComment{}
	replies := map[int64]int{}
	answered := map[int64]bool{} // threads plumb already said "fixed in" to
	var ourOrder []*gogithub.PullRequestComment
	isOurs := func(u *gogithub.User) bool { return in.ours == nil || in.ours(u) }
	for _, c := range in.existing {
		if c.InReplyTo != nil {
			replies[c.GetInReplyTo()]++
			if isFixedReply(c.GetBody()) && isOurs(c.User) {
				answered[c.GetInReplyTo()] = true
			}
			continue
		}
		if fps := commentFingerprints(c.GetBody()); len(fps) > 0 && isOurs(c.User) {
			for _, fp := range fps {
				ours[fp] = append(ours[fp], c)
			}
			ourOrder = append(ourOrder, c)
		}
	}

	// First pass: what is already there.
	keep := map[int64]bool{}
	open := map[string]bool{}
	// The counts are of problems, as the summary's: findings alike in
	// several render targets count once.
	outside, kept := map[string]bool{}, map[string]bool{}
	var pending []todo
	var keptOn []keptTodo
	for i, f := range in.findings {
		if open[f.Fingerprint] {
			continue
		}
		open[f.Fingerprint] = true
		w, anchor := place(f, in.diff)
		if w == nowhere {
			countOnce(outside, f, &plan.result.OutsideDiff)
			continue
		}
		if c := existingComment(ours[f.Fingerprint], replies); c != nil {
			keep[c.GetID()] = true
			keptOn = append(keptOn, keptTodo{todo{f, w, anchor, i, false}, c})
			continue
		}
		if w == inBody && in.listed[f.Fingerprint] {
			countOnce(kept, f, &plan.result.Kept)
			continue
		}
		pending = append(pending, todo{f, w, anchor, i, false})
	}
	// One comment per line: a new problem on a line plumb already
	// commented on joins that comment (see sameLine).
	var replaced map[*finding.Finding]bool
	pending, keptOn, replaced = sameLine(pending, keptOn, keep, replies, in.listed)
	for _, k := range keptOn {
		countOnce(kept, k.f, &plan.result.Kept)
	}

	// The cap counts plumb's comments that stay.
	keptComments, keptFiles := 0, 0
	for _, c := range ourOrder {
		if keep[c.GetID()] {
			keptComments++
			if c.GetSubjectType() == "file" {
				keptFiles++
			}
		}
	}

	// Second pass: new comments, most important first, within the caps;
	// findings that read alike in several render targets (a base shared by
	// overlays: the same line, rule and message) are one problem, and the
	// problems on the same line share one comment (see draftComments).
	budget := max - keptComments
	fileBudget := maxFileComments - keptFiles
	sug := newSuggester(in, ourOrder, keep)
	type group struct {
		todo
		alike []*finding.Finding
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, p := range pending {
		f := p.f
		k := fmt.Sprintf("%d\x00%t\x00%s\x00%d\x00%d\x00%s", p.where, p.discussed, p.anchor.Path, p.anchor.StartLine, p.anchor.Line, problemKey(f))
		if g := byKey[k]; g != nil {
			g.alike = append(g.alike, f)
			continue
		}
		g := &group{todo: p}
		byKey[k] = g
		groups = append(groups, g)
	}
	var drafts []*draft
	for _, g := range groups {
		if g.discussed {
			// (Listed whatever the cap on listings: it stands for a
			// comment the pull request already has.)
			plan.listed = append(plan.listed, listing{fingerprints: fingerprintsOf(g.f, g.alike), text: discussedText(g.f, g.alike, g.anchor.Line), discussed: true})
			continue
		}
		switch g.where {
		case onLine:
			anchor, sec := sug.suggest(g.f, g.anchor)
			drafts = addToDraft(drafts, onLine, anchor, problem{f: g.f, alike: g.alike, sec: sec})
		case onFile:
			drafts = addToDraft(drafts, onFile, g.anchor, problem{f: g.f, alike: g.alike})
		default:
			if len(plan.listed) < maxBodyLines {
				plan.listed = append(plan.listed, listing{fingerprints: fingerprintsOf(g.f, g.alike), text: listingText(g.f, g.alike)})
			} else {
				plan.result.OverLimit++
			}
		}
	}
	for _, d := range drafts {
		switch {
		case d.where == onLine && d.replaces(replaced):
			// It takes the place of the comment it replaces: the cap
			// does not change.
			plan.create = append(plan.create, d.comment())
		case d.where == onLine && len(plan.create)+len(plan.files) < budget:
			plan.create = append(plan.create, d.comment())
		case d.where == onFile && len(plan.files) < fileBudget && len(plan.create)+len(plan.files) < budget:
			plan.files = append(plan.files, d.comment())
		default:
			plan.result.OverLimit += len(d.problems)
		}
	}

	for _, c := range ourOrder {
		switch {
		case keep[c.GetID()] || in.diff.Stale(c.GetPath()):
		case replies[c.GetID()] == 0:
			plan.delete = append(plan.delete, c.GetID())
			if replacedComment(c, replaced) {
				if plan.replaced == nil {
					plan.replaced = map[int64]bool{}
				}
				plan.replaced[c.GetID()] = true
			}
		case !anyOpen(commentFingerprints(c.GetBody()), open) && !answered[c.GetID()]:
			plan.fixed = append(plan.fixed, c)
		}
	}
	return plan
}

// problemKey is what findings alike share: the same line, rule, message,
// status and level (a base shared by overlays).
func problemKey(f *finding.Finding) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%v", manifest.FormatLocation(f.Location), f.RuleID, f.Message, f.Status, f.Level)
}

// countOnce adds one to n for the first finding of each problem.
func countOnce(seen map[string]bool, f *finding.Finding, n *int) {
	if k := problemKey(f); !seen[k] {
		seen[k] = true
		*n++
	}
}

func anyOpen(fps []string, open map[string]bool) bool {
	for _, fp := range fps {
		if open[fp] {
			return true
		}
	}
	return false
}

// existingComment picks the comment that already covers a finding: one
// still attached to a line or on a file, else an outdated one with
// replies.
func existingComment(cs []*gogithub.PullRequestComment, replies map[int64]int) *gogithub.PullRequestComment {
	for _, c := range cs {
		if c.Line != nil || c.GetSubjectType() == "file" {
			return c
		}
	}
	for _, c := range cs {
		if replies[c.GetID()] > 0 {
			return c
		}
	}
	return nil
}

// fileCommentIntro opens a file comment: the line it is about, which the
// pull request did not change.
func fileCommentIntro(f *finding.Finding) string {
	if f.Location.Line <= 0 {
		return "**New in this pull request**, about this file as a whole:"
	}
	return fmt.Sprintf("**New in this pull request**, on line %d, which it did not change (so the comment is on the file):", f.Location.Line)
}

// listingText is one line of a review body about findings (alike) in a
// file the pull request does not change.
func listingText(f *finding.Finding, alike []*finding.Finding) string {
	level := map[finding.Level]string{finding.Error: "❌", finding.Warning: "⚠️", finding.Note: "ℹ️"}[f.Level]
	loc := f.Location.File
	if f.Location.Line > 0 {
		loc += ":" + strconv.Itoa(f.Location.Line)
	}
	text := fmt.Sprintf("- %s %s %s — %s", level, report.MarkdownCode(loc), report.MarkdownCode(f.RuleID), report.MarkdownText(f.Message))
	if !f.Object.IsZero() {
		text += " (" + report.MarkdownText(report.AlikeObjects(f, alike)) + ")"
	}
	return text
}

// reviewBody is the body of the review with comments offset+1..offset+n
// of total line comments; the first one also counts the file comments and
// lists the findings in listed.
func reviewBody(offset, n, total, files int, listed []listing) string {
	var b strings.Builder
	b.WriteString(reviewMarker + "\n")
	if offset > 0 || total > CommentsPerReview {
		fmt.Fprintf(&b, "plumb: comments %d–%d of %d on lines this pull request changed.", offset+1, offset+n, total)
		if offset > 0 {
			return b.String()
		}
	} else {
		var parts []string
		if total > 0 {
			parts = append(parts, fmt.Sprintf("%d %s on lines this pull request changed", total, noun(total, "comment")))
		}
		if files > 0 {
			parts = append(parts, fmt.Sprintf("%d %s on %s it changed, about new findings on lines it did not change", files, noun(files, "comment"), noun(files, "a file")))
		}
		discussed := 0
		for _, l := range listed {
			if l.discussed {
				discussed++
			}
		}
		if n := len(listed) - discussed; n > 0 {
			parts = append(parts, fmt.Sprintf("%d new %s in files it does not change, listed below", n, noun(n, "finding")))
		}
		if discussed > 0 {
			parts = append(parts, fmt.Sprintf("%d new %s on lines where plumb's earlier comment has replies, listed below", discussed, noun(discussed, "finding")))
		}
		b.WriteString("plumb: " + strings.Join(parts, "; ") + ".")
	}
	if len(listed) > 0 {
		b.WriteString("\n\n")
		for _, l := range listed {
			b.WriteString(l.text + " <!-- plumb:listed=" + strings.Join(l.fingerprints, ",") + " -->\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func noun(n int, word string) string {
	if n == 1 {
		return word
	}
	if strings.HasPrefix(word, "a ") {
		return strings.TrimPrefix(word, "a ") + "s"
	}
	return word + "s"
}
