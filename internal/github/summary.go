package github

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	gogithub "github.com/google/go-github/v60/github"
)

// MaxCommentChars is GitHub's limit on a comment body (422 "Body is too
// long (maximum is 65536 characters)").
const MaxCommentChars = 65536

// SummaryBudget is the room the summary's Markdown may take in the
// comment, next to the hidden marker.
// and the record of its head's findings (MaxPushRecord).
const SummaryBudget = MaxCommentChars - len(summaryMarker) - 1 - MaxPushRecord - 1

// What UpsertSummary did.
const (
	SummaryCreated   = "created"
	SummaryUpdated   = "updated"
	SummaryUnchanged = "unchanged"
)

// UpsertSummary keeps one summary comment on the pull request: the comment
// that starts with plumb's marker, written by the token's own account, is
// edited in place (not touched when the text is the same), or created when
// there is none. It returns what it did and the comment's URL.
//
// Runs can overlap (two pushes in quick succession, a rerun) and finish in
// any order: before writing it reads the pull request's head and writes
// nothing for an older one (a StaleError), and after creating the comment
// it lists again and keeps exactly one, the oldest, should another run
// have created one at the same moment.
func (c *Client) UpsertSummary(ctx context.Context, pr *PullRequest, markdown string) (string, string, error) {
	return c.UpsertSummaryFunc(ctx, pr, func(*PushRecord) (string, *PushRecord) { return markdown, nil })
}

// UpsertSummaryFunc is UpsertSummary with the Markdown made from what the
// current summary comment recorded about its head (nil: there is no
// comment, or no record in it); the record render returns is kept in the
// comment for the next push (nil: none).
func (c *Client) UpsertSummaryFunc(ctx context.Context, pr *PullRequest, render func(prev *PushRecord) (string, *PushRecord)) (string, string, error) {
	mine, err := c.ourSummaries(ctx, pr.Number)
	if err != nil {
		return "", "", err
	}
	var prev *PushRecord
	if len(mine) > 0 {
		if rec, ok := parsePushRecord(mine[0].GetBody()); ok {
			prev = &rec
		}
	}
	markdown, rec := render(prev)
	body := summaryBody(markdown, rec)
	if utf8.RuneCountInString(body) > MaxCommentChars {
		// The Markdown sink keeps within SummaryBudget; this is a last
		// guard so an oversized body never costs the whole comment.
		body = string([]rune(body)[:MaxCommentChars-40]) + "\n\n_(cut to GitHub's size limit)_"
	}
	if len(mine) > 0 && normalizeNewlines(mine[0].GetBody()) == body && len(mine) == 1 {
		return SummaryUnchanged, mine[0].GetHTMLURL(), nil
	}
	if err := c.ensureHead(ctx, pr); err != nil {
		return "", "", err
	}
	if len(mine) == 0 {
		created, err := c.createSummary(ctx, pr, body)
		if err != nil {
			return "", "", err
		}
		// Another run may have created one at the same moment: list again
		// and keep exactly one, the oldest.
		kept, err := c.keepOneSummary(ctx, pr, created, body)
		if err != nil {
			return "", "", err
		}
		if kept != nil && kept.GetID() != created.GetID() {
			return SummaryUpdated, kept.GetHTMLURL(), nil
		}
		return SummaryCreated, created.GetHTMLURL(), nil
	}
	kept, err := c.keepOne(ctx, pr, mine, body)
	if err != nil {
		return "", "", err
	}
	return SummaryUpdated, kept.GetHTMLURL(), nil
}

// createSummary posts a new summary comment.
func (c *Client) createSummary(ctx context.Context, pr *PullRequest, body string) (*gogithub.IssueComment, error) {
	var created *gogithub.IssueComment
	err := c.create(ctx, "creating the summary comment", func() error {
		cm, _, err := c.gh.Issues.CreateComment(ctx, c.owner, c.repo, pr.Number, &gogithub.IssueComment{Body: gogithub.String(body)})
		created = cm
		return err
	}, func() (bool, error) {
		cm, err := c.findSummary(ctx, pr.Number)
		created = cm
		return cm != nil, err
	})
	if err != nil {
		return nil, fmt.Errorf("creating the summary comment on pull request #%d: %w", pr.Number, err)
	}
	return created, nil
}

// keepOneSummary lists plumb's summary comments again and keeps one.
// When the comment just created is the only marked one, there is nothing
// to decide (and no need to learn the token's account).
func (c *Client) keepOneSummary(ctx context.Context, pr *PullRequest, created *gogithub.IssueComment, body string) (*gogithub.IssueComment, error) {
	comments, err := c.issueComments(ctx, pr.Number)
	if err != nil {
		return nil, err
	}
	var marked []*gogithub.IssueComment
	for _, cm := range comments {
		if isSummary(cm.GetBody()) {
			marked = append(marked, cm)
		}
	}
	if len(marked) == 1 && marked[0].GetID() == created.GetID() {
		return created, nil
	}
	mine, err := c.oursOf(ctx, marked)
	if err != nil || len(mine) == 0 {
		return nil, err
	}
	return c.keepOne(ctx, pr, mine, body)
}

// keepOne keeps the oldest of plumb's summary comments (mine, by id),
// deletes the others (left by runs that created one at the same moment)
// and makes the kept one say body. Two runs doing this at once agree on
// which to keep; a comment the other run deleted first is gone already.
func (c *Client) keepOne(ctx context.Context, pr *PullRequest, mine []*gogithub.IssueComment, body string) (*gogithub.IssueComment, error) {
	kept := mine[0]
	for _, extra := range mine[1:] {
		_, err := c.gh.Issues.DeleteComment(ctx, c.owner, c.repo, extra.GetID())
		if err != nil && StatusOf(err) != http.StatusNotFound {
			return nil, fmt.Errorf("deleting the extra summary comment %d on pull request #%d: %w", extra.GetID(), pr.Number, err)
		}
	}
	if normalizeNewlines(kept.GetBody()) == body {
		return kept, nil
	}
	cm, _, err := c.gh.Issues.EditComment(ctx, c.owner, c.repo, kept.GetID(), &gogithub.IssueComment{Body: gogithub.String(body)})
	if err != nil {
		return nil, fmt.Errorf("editing the summary comment on pull request #%d: %w", pr.Number, err)
	}
	return cm, nil
}

// ourSummaries returns plumb's summary comments, oldest (lowest id) first.
// Whose a marked comment is needs the token's account, learnt only when
// there is one.
func (c *Client) ourSummaries(ctx context.Context, number int) ([]*gogithub.IssueComment, error) {
	comments, err := c.issueComments(ctx, number)
	if err != nil {
		return nil, err
	}
	return c.oursOf(ctx, comments)
}

// oursOf keeps plumb's summary comments of comments, oldest first.
func (c *Client) oursOf(ctx context.Context, comments []*gogithub.IssueComment) ([]*gogithub.IssueComment, error) {
	var mine []*gogithub.IssueComment
	for _, cm := range comments {
		if !isSummary(cm.GetBody()) {
			continue
		}
		if err := c.learnSelf(ctx); err != nil {
			return nil, err
		}
		if c.ours(cm.User) {
			mine = append(mine, cm)
		}
	}
	slices.SortFunc(mine, func(a, b *gogithub.IssueComment) int { return cmp.Compare(a.GetID(), b.GetID()) })
	return mine, nil
}

// findSummary returns plumb's oldest summary comment, nil when there is
// none.
func (c *Client) findSummary(ctx context.Context, number int) (*gogithub.IssueComment, error) {
	mine, err := c.ourSummaries(ctx, number)
	if err != nil || len(mine) == 0 {
		return nil, err
	}
	return mine[0], nil
}

func normalizeNewlines(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
