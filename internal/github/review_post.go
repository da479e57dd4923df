package github

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	gogithub "github.com/google/go-github/v60/github"

	"github.com/plumb-ci/plumb/internal/finding"
)

// ReviewOptions tune SyncReview.
type ReviewOptions struct {
	// MaxComments bounds plumb's review comments on the pull request, those
	// already there included (0: DefaultMaxComments).
	MaxComments int
}

// SyncReview brings plumb's review comments on pr in line with findings
// (open findings, most important first): new comments in reviews of at most
// CommentsPerReview, file comments and review-body listings for new
// findings on lines the diff does not show, outdated comments deleted,
// threads of fixed findings answered and resolved. It returns what it did
// so far with the error that stopped it; a permission error means the
// token cannot write here (see IsNoPermission), a rate limit that GitHub
// refuses for now (IsRateLimited).
func (c *Client) SyncReview(ctx context.Context, pr *PullRequest, diff *Diff, findings []*finding.Finding, opts ReviewOptions) (*ReviewResult, error) {
	existing, err := c.reviewComments(ctx, pr.Number)
	if err != nil {
		return &ReviewResult{}, err
	}
	for _, cm := range existing {
		if commentFingerprint(cm.GetBody()) != "" || isFixedReply(cm.GetBody()) {
			if err := c.learnSelf(ctx); err != nil {
				return &ReviewResult{}, err
			}
			break
		}
	}
	listed, read, err := c.listedFindings(ctx, pr.Number, findings, diff)
	if err != nil {
		return &ReviewResult{}, err
	}
	in := planInput{findings: findings, diff: diff, existing: existing, listed: listed,
		max: opts.MaxComments, ours: c.ours}
	plan := planReview(in)
	if plan.discussed() && !read {
		// A new problem on a line whose comment has replies is listed in
		// a review's body, once: what earlier reviews list is needed now.
		if in.listed, err = c.readListed(ctx, pr.Number); err != nil {
			return &ReviewResult{}, err
		}
		plan = planReview(in)
	}
	res := plan.result
	if plan.writes() {
		if err := c.ensureHead(ctx, pr); err != nil {
			res.NotPosted += len(plan.create) + len(plan.files) + len(plan.listed)
			return &res, err
		}
	}
	if err := c.postPlan(ctx, pr, &plan, &res); err != nil {
		return &res, err
	}
	// Delete only after posting: if the token cannot write, nothing that
	// was there is lost.
	for _, id := range plan.delete {
		_, err := c.gh.PullRequests.DeleteComment(ctx, c.owner, c.repo, id)
		if err != nil && StatusOf(err) != http.StatusNotFound {
			return &res, fmt.Errorf("deleting review comment %d: %w", id, err)
		}
		if plan.replaced[id] {
			res.Replaced++
		} else {
			res.Deleted++
		}
	}
	if err := c.closeFixed(ctx, pr, plan.fixed, &res); err != nil {
		return &res, err
	}
	return &res, nil
}

// listedFindings reads which findings plumb's earlier review bodies list,
// when a finding may need a listing (a new one in a file the pull request
// does not change): only then are the reviews read (read says whether).
func (c *Client) listedFindings(ctx context.Context, number int, findings []*finding.Finding, diff *Diff) (map[string]bool, bool, error) {
	need := false
	for _, f := range findings {
		if w, _ := place(f, diff); w == inBody {
			need = true
			break
		}
	}
	if !need {
		return map[string]bool{}, false, nil
	}
	listed, err := c.readListed(ctx, number)
	return listed, true, err
}

// readListed reads the findings plumb's review bodies list.
func (c *Client) readListed(ctx context.Context, number int) (map[string]bool, error) {
	reviews, err := c.reviews(ctx, number)
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	for _, rv := range reviews {
		fps := listedFingerprints(rv.GetBody())
		if len(fps) == 0 {
			continue
		}
		if err := c.learnSelf(ctx); err != nil {
			return nil, err
		}
		if c.ours(rv.User) {
			for _, fp := range fps {
				listed[fp] = true
			}
		}
	}
	return listed, nil
}

// discussed reports whether the plan lists a new problem on a line whose
// comment has replies.
func (p *reviewPlan) discussed() bool {
	return slices.ContainsFunc(p.listed, func(l listing) bool { return l.discussed })
}

// postPlan posts the reviews (line comments in batches, the listings in
// the first one's body) and the file comments. When posting stops, what
// was not posted is counted in res.NotPosted.
func (c *Client) postPlan(ctx context.Context, pr *PullRequest, plan *reviewPlan, res *ReviewResult) error {
	if len(plan.create) > 0 || len(plan.files) > 0 || len(plan.listed) > 0 {
		if err := c.dropPostedMeanwhile(ctx, pr, plan, res); err != nil {
			res.NotPosted += len(plan.create) + len(plan.files) + len(plan.listed)
			return err
		}
	}
	total := len(plan.create)
	listed := plan.listed
	left := func(from int) int {
		n := total - from + len(plan.files) + len(listed)
		return n
	}
	for start := 0; start < total || (start == 0 && len(listed) > 0); start += CommentsPerReview {
		batch := plan.create[start:min(start+CommentsPerReview, total)]
		body := reviewBody(start, len(batch), total, len(plan.files), listed)
		posted, rejected, err := c.postBatch(ctx, pr, batch, body, listed)
		res.Posted += posted
		res.Rejected += rejected
		for _, d := range batch[:min(posted, len(batch))] {
			if d.suggested {
				res.Suggestions++
			}
			res.PostedProblems += d.problems
		}
		if err != nil {
			res.NotPosted += left(start) - posted - rejected
			return err
		}
		for _, l := range listed {
			if l.discussed {
				res.Discussed++
			} else {
				res.Listed++
			}
		}
		listed = nil
	}
	for i, d := range plan.files {
		err := c.postComment(ctx, pr, d)
		switch {
		case err == nil:
			res.Files++
		case StatusOf(err) == http.StatusUnprocessableEntity:
			res.Rejected++
		default:
			res.NotPosted += len(plan.files) - i
			return err
		}
	}
	return nil
}

// postBatch posts one review. When GitHub rejects it (422: an anchor it
// does not accept, e.g. because the pull request moved on since the diff
// was read), the comments are posted one by one so one bad anchor costs one
// comment, not the review, and the body's listings follow in a review of
// their own.
func (c *Client) postBatch(ctx context.Context, pr *PullRequest, batch []draftComment, body string, listed []listing) (posted, rejected int, err error) {
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
	err = c.create(ctx, "posting a review", func() error {
		_, _, err := c.gh.PullRequests.CreateReview(ctx, c.owner, c.repo, pr.Number, req)
		return err
	}, func() (bool, error) {
		if len(batch) == 0 {
			return c.isListed(ctx, pr.Number, listed[0].fingerprints[0])
		}
		return c.hasComment(ctx, pr.Number, batch[0].fingerprints[0])
	})
	if err == nil {
		return len(batch), 0, nil
	}
	if StatusOf(err) != http.StatusUnprocessableEntity || len(batch) == 0 {
		return 0, 0, fmt.Errorf("posting a review on pull request #%d: %w", pr.Number, err)
	}
	for _, d := range batch {
		err := c.postComment(ctx, pr, d)
		switch {
		case err == nil:
			posted++
		case StatusOf(err) == http.StatusUnprocessableEntity:
			rejected++
		default:
			return posted, rejected, err
		}
	}
	if len(listed) > 0 {
		p, r, err := c.postBatch(ctx, pr, nil, reviewBody(0, 0, 0, 0, listed), listed)
		return posted + p, rejected + r, err
	}
	return posted, rejected, nil
}

// postComment posts one comment on a line, or on a file (anchor.Line 0).
func (c *Client) postComment(ctx context.Context, pr *PullRequest, d draftComment) error {
	pc := &gogithub.PullRequestComment{
		CommitID: gogithub.String(pr.HeadSHA),
		Path:     gogithub.String(d.anchor.Path),
		Body:     gogithub.String(d.body),
	}
	if d.anchor.Line > 0 {
		pc.Line = gogithub.Int(d.anchor.Line)
		pc.Side = gogithub.String("RIGHT")
		if d.anchor.StartLine > 0 {
			pc.StartLine = gogithub.Int(d.anchor.StartLine)
			pc.StartSide = gogithub.String("RIGHT")
		}
	} else {
		pc.SubjectType = gogithub.String("file")
	}
	err := c.create(ctx, "posting a review comment", func() error {
		_, _, err := c.gh.PullRequests.CreateComment(ctx, c.owner, c.repo, pr.Number, pc)
		return err
	}, func() (bool, error) { return c.hasComment(ctx, pr.Number, d.fingerprints[0]) })
	if err != nil {
		return fmt.Errorf("posting a review comment on pull request #%d: %w", pr.Number, err)
	}
	return nil
}

// hasComment reports whether plumb's comment about a finding is on the
// pull request (on a line or a file).
func (c *Client) hasComment(ctx context.Context, number int, fingerprint string) (bool, error) {
	cs, err := c.reviewComments(ctx, number)
	if err != nil {
		return false, err
	}
	for _, cm := range cs {
		if cm.InReplyTo != nil || !slices.Contains(commentFingerprints(cm.GetBody()), fingerprint) || (cm.Line == nil && cm.GetSubjectType() != "file") {
			continue
		}
		if err := c.learnSelf(ctx); err != nil {
			return false, err
		}
		if c.ours(cm.User) {
			return true, nil
		}
	}
	return false, nil
}

// isListed reports whether one of plumb's review bodies lists a finding.
func (c *Client) isListed(ctx context.Context, number int, fingerprint string) (bool, error) {
	reviews, err := c.reviews(ctx, number)
	if err != nil {
		return false, err
	}
	for _, rv := range reviews {
		if !slices.Contains(listedFingerprints(rv.GetBody()), fingerprint) {
			continue
		}
		if err := c.learnSelf(ctx); err != nil {
			return false, err
		}
		if c.ours(rv.User) {
			return true, nil
		}
	}
	return false, nil
}

// closeFixed answers the threads of plumb's comments whose finding is gone
// and that someone replied to: a "fixed in" reply, then the thread
// resolved, so no open thread claims a problem that is gone. A thread
// someone already resolved is left alone.
func (c *Client) closeFixed(ctx context.Context, pr *PullRequest, fixed []*gogithub.PullRequestComment, res *ReviewResult) error {
	if len(fixed) == 0 {
		return nil
	}
	threads, err := c.reviewThreads(ctx, pr.Number)
	if err != nil {
		return err
	}
	body := fixedMarker + "\nFixed in `" + shortSHA(pr.HeadSHA) + "`: plumb no longer finds this."
	for _, cm := range fixed {
		th, ok := threads[cm.GetID()]
		if !ok || th.resolved {
			continue
		}
		id := cm.GetID()
		err := c.create(ctx, "replying in a review thread", func() error {
			_, _, err := c.gh.PullRequests.CreateCommentInReplyTo(ctx, c.owner, c.repo, pr.Number, body, id)
			return err
		}, func() (bool, error) { return c.hasFixedReply(ctx, pr.Number, id) })
		if err != nil {
			return fmt.Errorf("replying to review comment %d: %w", id, err)
		}
		if err := c.resolveThread(ctx, th.id); err != nil {
			return err
		}
		res.Resolved++
	}
	return nil
}

// hasFixedReply reports whether plumb already said "fixed in" in the
// thread of comment id.
func (c *Client) hasFixedReply(ctx context.Context, number int, id int64) (bool, error) {
	cs, err := c.reviewComments(ctx, number)
	if err != nil {
		return false, err
	}
	for _, cm := range cs {
		if cm.GetInReplyTo() == id && isFixedReply(cm.GetBody()) && c.ours(cm.User) {
			return true, nil
		}
	}
	return false, nil
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// writes reports whether the plan changes anything on the pull request.
func (p *reviewPlan) writes() bool {
	return len(p.create) > 0 || len(p.files) > 0 || len(p.listed) > 0 || len(p.delete) > 0 || len(p.fixed) > 0
}

// dropPostedMeanwhile is the check just before posting: when one of
// plumb's reviews of this very head is on the pull request (another run
// for the same commit posted while this one was planning), the comments
// and listings it already holds are not posted again. With no such review
// the plan stands as made.
func (c *Client) dropPostedMeanwhile(ctx context.Context, pr *PullRequest, plan *reviewPlan, res *ReviewResult) error {
	reviews, err := c.reviews(ctx, pr.Number)
	if err != nil {
		return err
	}
	found := false
	for _, rv := range reviews {
		if rv.GetCommitID() != pr.HeadSHA || !strings.HasPrefix(normalizeNewlines(rv.GetBody()), reviewMarker+"\n") {
			continue
		}
		if err := c.learnSelf(ctx); err != nil {
			return err
		}
		if c.ours(rv.User) {
			found = true
			break
		}
	}
	if !found {
		return nil
	}
	commented, err := c.commentedFingerprints(ctx, pr.Number, plan.replaced)
	if err != nil {
		return err
	}
	listed := map[string]bool{}
	for _, rv := range reviews {
		if c.ours(rv.User) {
			for _, fp := range listedFingerprints(rv.GetBody()) {
				listed[fp] = true
			}
		}
	}
	keep := func(ds []draftComment) []draftComment {
		return slices.DeleteFunc(ds, func(d draftComment) bool {
			if commented[d.fingerprints[0]] {
				res.Kept++
				return true
			}
			return false
		})
	}
	plan.create, plan.files = keep(plan.create), keep(plan.files)
	plan.listed = slices.DeleteFunc(plan.listed, func(l listing) bool {
		if listed[l.fingerprints[0]] {
			res.Kept++
			return true
		}
		return false
	})
	return nil
}

// commentedFingerprints are the findings plumb's top-level review
// comments on the pull request are about, but for the comments the plan
// replaces (their findings get the new comment that replaces them).
func (c *Client) commentedFingerprints(ctx context.Context, number int, replaced map[int64]bool) (map[string]bool, error) {
	cs, err := c.reviewComments(ctx, number)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, cm := range cs {
		if cm.InReplyTo != nil || (cm.Line == nil && cm.GetSubjectType() != "file") || replaced[cm.GetID()] {
			continue
		}
		fps := commentFingerprints(cm.GetBody())
		if len(fps) == 0 {
			continue
		}
		if err := c.learnSelf(ctx); err != nil {
			return nil, err
		}
		if c.ours(cm.User) {
			for _, fp := range fps {
				out[fp] = true
			}
		}
	}
	return out, nil
}
