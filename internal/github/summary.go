package github

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	gogithub "github.com/google/go-github/v60/github"
)

// MaxCommentChars is GitHub's limit on a comment body (422 "Body is too
// long (maximum is 65536 characters)").
const MaxCommentChars = 65536

// SummaryBudget is the room the summary's Markdown may take in the
// comment, next to the hidden marker.
const SummaryBudget = MaxCommentChars - len(summaryMarker) - 1

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
func (c *Client) UpsertSummary(ctx context.Context, pr *PullRequest, markdown string) (string, string, error) {
	body := summaryMarker + "\n" + markdown
	if utf8.RuneCountInString(body) > MaxCommentChars {
		// The Markdown sink keeps within SummaryBudget; this is a last
		// guard so an oversized body never costs the whole comment.
		body = string([]rune(body)[:MaxCommentChars-40]) + "\n\n_(cut to GitHub's size limit)_"
	}
	ours, err := c.findSummary(ctx, pr.Number)
	if err != nil {
		return "", "", err
	}
	if ours == nil {
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
			return "", "", fmt.Errorf("creating the summary comment on pull request #%d: %w", pr.Number, err)
		}
		return SummaryCreated, created.GetHTMLURL(), nil
	}
	if normalizeNewlines(ours.GetBody()) == body {
		return SummaryUnchanged, ours.GetHTMLURL(), nil
	}
	cm, _, err := c.gh.Issues.EditComment(ctx, c.owner, c.repo, ours.GetID(), &gogithub.IssueComment{Body: gogithub.String(body)})
	if err != nil {
		return "", "", fmt.Errorf("editing the summary comment on pull request #%d: %w", pr.Number, err)
	}
	return SummaryUpdated, cm.GetHTMLURL(), nil
}

// findSummary returns plumb's summary comment, nil when there is none.
// Whose a marked comment is needs the token's account, learnt only when
// there is one.
func (c *Client) findSummary(ctx context.Context, number int) (*gogithub.IssueComment, error) {
	comments, err := c.issueComments(ctx, number)
	if err != nil {
		return nil, err
	}
	for _, cm := range comments {
		if !isSummary(cm.GetBody()) {
			continue
		}
		if err := c.learnSelf(ctx); err != nil {
			return nil, err
		}
		if c.ours(cm.User) {
			return cm, nil
		}
	}
	return nil, nil
}

func normalizeNewlines(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
