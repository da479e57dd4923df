package github

import (
	"context"
	"errors"
	"fmt"
)

// StaleError says a run is for a commit that is no longer the pull
// request's head: a push came after it started. Its results describe an
// older state, so plumb writes nothing; the run for the new head reports.
type StaleError struct {
	Number int
	// Run is the commit this run checked; Head is the pull request's head
	// now.
	Run, Head string
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("this run checked commit %s, but pull request #%d is now at %s; the run for %s reports",
		shortSHA(e.Run), e.Number, shortSHA(e.Head), shortSHA(e.Head))
}

// IsStale reports whether err is a StaleError.
func IsStale(err error) bool {
	var se *StaleError
	return errors.As(err, &se)
}

// ensureHead reads the pull request's current head and returns a
// StaleError when it is not the commit this run checked. Called just
// before each group of writes, so a run that finishes after a newer one
// started cannot overwrite the newer state with its own.
func (c *Client) ensureHead(ctx context.Context, pr *PullRequest) error {
	if pr.HeadSHA == "" {
		return nil
	}
	now, _, err := c.gh.PullRequests.Get(ctx, c.owner, c.repo, pr.Number)
	if err != nil {
		return fmt.Errorf("reading the head of pull request #%d: %w", pr.Number, err)
	}
	if head := now.GetHead().GetSHA(); head != "" && head != pr.HeadSHA {
		return &StaleError{Number: pr.Number, Run: pr.HeadSHA, Head: head}
	}
	return nil
}
