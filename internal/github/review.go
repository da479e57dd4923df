package github

import (
	"context"
	"fmt"
	"net/http"

	gogithub "github.com/google/go-github/v60/github"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/report"
)

// Review comment limits.
const (
	// CommentsPerReview is how many comments one review request carries:
	// larger reviews trip GitHub's secondary rate limits (reviewdog's
	// experience, research/peers.md §4).
	CommentsPerReview = 30
	// DefaultMaxComments bounds the new comments of one run.
	DefaultMaxComments = 90
)

// ReviewResult counts what happened to the review comments.
type ReviewResult struct {
	Posted      int // new comments
	Kept        int // findings whose comment was already there
	Deleted     int // plumb's comments that no longer apply, removed
	OutsideDiff int // open findings on lines the pull request did not change
	OverLimit   int // left out by the per-run cap
	Rejected    int // anchors GitHub refused even so (the diff moved meanwhile)
}

// draftComment is a comment to post.
type draftComment struct {
	fingerprint string
	anchor      Anchor
	body        string
}

// reviewPlan is what SyncReview will do, decided before any write.
type reviewPlan struct {
	create []draftComment
	delete []int64
	result ReviewResult
}

// planReview decides which findings get a new comment and which of plumb's
// earlier comments go.
//
//   - A finding gets a comment only when the pull request is what it is
//     about: one of its lines was added or changed, or (in pull-request
//     mode) the finding is new — the change caused it even where the line
//     itself is unchanged. Its first line must also be shown in a hunk of
//     the diff (GitHub rejects the whole review otherwise). An old finding
//     on a context line next to an edit is counted, not commented: the
//     reviewer did not ask about it.
//   - A finding that already has plumb's comment (same fingerprint, still
//     attached to a line) gets none: reruns never post twice. An outdated
//     comment that someone replied to also counts as already there.
//   - plumb's comments that nobody replied to are deleted when their
//     finding is gone, or when they are outdated (the finding is then
//     commented again where it now is).
//
// findings come most important first; at most max new comments are planned.
// wroteIt tells plumb's comments from others that carry its markers (nil:
// every marked comment is plumb's).
func planReview(findings []*finding.Finding, diff *Diff, existing []*gogithub.PullRequestComment, max int, wroteIt func(*gogithub.User) bool) reviewPlan {
	var plan reviewPlan
	ours := map[string][]*gogithub.PullRequestComment{}
	replies := map[int64]int{}
	var ourOrder []*gogithub.PullRequestComment
	for _, c := range existing {
		if c.InReplyTo != nil {
			replies[c.GetInReplyTo()]++
		}
		if fp := commentFingerprint(c.GetBody()); fp != "" && c.InReplyTo == nil && (wroteIt == nil || wroteIt(c.User)) {
			ours[fp] = append(ours[fp], c)
			ourOrder = append(ourOrder, c)
		}
	}
	keep := map[int64]bool{}
	seen := map[string]bool{}
	for _, f := range findings {
		if seen[f.Fingerprint] {
			continue
		}
		seen[f.Fingerprint] = true
		anchor, ok := diff.Anchor(f.Location.File, f.Location.Line, f.Location.EndLine)
		if ok && f.Status != finding.StatusNew {
			ok = diff.ChangedWithin(f.Location.File, f.Location.Line, f.Location.EndLine)
		}
		if !ok || f.Fingerprint == "" {
			plan.result.OutsideDiff++
			continue
		}
		if c := existingComment(ours[f.Fingerprint], replies); c != nil {
			keep[c.GetID()] = true
			plan.result.Kept++
			continue
		}
		if len(plan.create) >= max {
			plan.result.OverLimit++
			continue
		}
		plan.create = append(plan.create, draftComment{
			fingerprint: f.Fingerprint,
			anchor:      anchor,
			body:        findingCommentBody(report.FindingComment(f), f.Fingerprint),
		})
	}
	for _, c := range ourOrder {
		if !keep[c.GetID()] && replies[c.GetID()] == 0 && !diff.Stale(c.GetPath()) {
			plan.delete = append(plan.delete, c.GetID())
		}
	}
	return plan
}

// existingComment picks the comment that already covers a finding: one
// still attached to a line, else an outdated one with replies.
func existingComment(cs []*gogithub.PullRequestComment, replies map[int64]int) *gogithub.PullRequestComment {
	for _, c := range cs {
		if c.Line != nil {
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

// SyncReview brings plumb's review comments on pr in line with findings
// (open findings, most important first): new comments in reviews of at most
// CommentsPerReview, outdated ones deleted. It returns what it did so far
// with the error that stopped it; a permission error means the token
// cannot write here (see IsNoPermission).
func (c *Client) SyncReview(ctx context.Context, pr *PullRequest, diff *Diff, findings []*finding.Finding, maxComments int) (*ReviewResult, error) {
	if maxComments <= 0 {
		maxComments = DefaultMaxComments
	}
	existing, err := c.reviewComments(ctx, pr.Number)
	if err != nil {
		return &ReviewResult{}, err
	}
	plan := planReview(findings, diff, existing, maxComments, func(u *gogithub.User) bool { return c.wroteIt(ctx, u) })
	res := plan.result
	for start := 0; start < len(plan.create); start += CommentsPerReview {
		batch := plan.create[start:min(start+CommentsPerReview, len(plan.create))]
		posted, rejected, err := c.postBatch(ctx, pr, batch, start, len(plan.create))
		res.Posted += posted
		res.Rejected += rejected
		if err != nil {
			return &res, err
		}
	}
	// Delete only after posting: if the token cannot write, nothing that
	// was there is lost.
	for _, id := range plan.delete {
		_, err := c.gh.PullRequests.DeleteComment(ctx, c.owner, c.repo, id)
		if err != nil && StatusOf(err) != http.StatusNotFound {
			return &res, fmt.Errorf("deleting review comment %d: %w", id, err)
		}
		res.Deleted++
	}
	return &res, nil
}

// postBatch posts one review. When GitHub rejects it (422: an anchor it
// does not accept, e.g. because the pull request moved on since the diff
// was read), the comments are posted one by one so one bad anchor costs one
// comment, not the review.
func (c *Client) postBatch(ctx context.Context, pr *PullRequest, batch []draftComment, offset, total int) (posted, rejected int, err error) {
	body := reviewMarker + "\n"
	if total <= CommentsPerReview {
		body += fmt.Sprintf("plumb: %d %s on lines this pull request changed.", total, noun(total, "comment"))
	} else {
		body += fmt.Sprintf("plumb: comments %d–%d of %d on lines this pull request changed.", offset+1, offset+len(batch), total)
	}
	req := &gogithub.PullRequestReviewRequest{
		CommitID: gogithub.String(pr.HeadSHA),
		Body:     gogithub.String(body),
		Event:    gogithub.String("COMMENT"),
	}
	for _, d := range batch {
		rc := &gogithub.DraftReviewComment{
			Path: gogithub.String(d.anchor.Path),
			Body: gogithub.String(d.body),
			Line: gogithub.Int(d.anchor.Line),
			Side: gogithub.String("RIGHT"),
		}
		if d.anchor.StartLine > 0 {
			rc.StartLine = gogithub.Int(d.anchor.StartLine)
			rc.StartSide = gogithub.String("RIGHT")
		}
		req.Comments = append(req.Comments, rc)
	}
	_, _, err = c.gh.PullRequests.CreateReview(ctx, c.owner, c.repo, pr.Number, req)
	if err == nil {
		return len(batch), 0, nil
	}
	if StatusOf(err) != http.StatusUnprocessableEntity {
		return 0, 0, fmt.Errorf("posting a review on pull request #%d: %w", pr.Number, err)
	}
	for _, d := range batch {
		pc := &gogithub.PullRequestComment{
			CommitID: gogithub.String(pr.HeadSHA),
			Path:     gogithub.String(d.anchor.Path),
			Body:     gogithub.String(d.body),
			Line:     gogithub.Int(d.anchor.Line),
			Side:     gogithub.String("RIGHT"),
		}
		if d.anchor.StartLine > 0 {
			pc.StartLine = gogithub.Int(d.anchor.StartLine)
			pc.StartSide = gogithub.String("RIGHT")
		}
		_, _, err := c.gh.PullRequests.CreateComment(ctx, c.owner, c.repo, pr.Number, pc)
		switch {
		case err == nil:
			posted++
		case StatusOf(err) == http.StatusUnprocessableEntity:
			rejected++
		default:
			return posted, rejected, fmt.Errorf("posting a review comment on pull request #%d: %w", pr.Number, err)
		}
	}
	return posted, rejected, nil
}

func noun(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
