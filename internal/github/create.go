package github

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	gogithub "github.com/google/go-github/v60/github"
)

// maxCreateAttempts bounds how often one comment or review is sent.
const maxCreateAttempts = 3

// create sends a request that creates a comment or review. GitHub can
// store it and still answer 5xx, or the connection can drop after the
// write: then sending it again could post it twice. So after such an
// answer create waits a moment, asks landed whether it is there, and sends
// it again only when it is not. When landed cannot tell, create gives up
// rather than risk a duplicate.
func (c *Client) create(ctx context.Context, what string, send func() error, landed func() (bool, error)) error {
	for attempt := 1; ; attempt++ {
		err := send()
		if err == nil || !uncertain(ctx, err) {
			return err
		}
		if attempt >= maxCreateAttempts {
			return err
		}
		wait := backoff(attempt)
		why := fmt.Sprintf("GitHub API: %s got no clear answer (%s); looking in %s whether it was stored before sending it again", what, shortError(err), wait)
		if c.tr.wait(ctx, wait, why) != nil {
			return err
		}
		ok, lerr := landed()
		if lerr != nil {
			return fmt.Errorf("%w (and whether it was stored cannot be told: %v)", err, lerr)
		}
		if ok {
			return nil
		}
	}
}

// uncertain reports whether a failed creation may have been stored all the
// same: a 5xx answer, a dropped connection, a timeout.
func uncertain(ctx context.Context, err error) bool {
	if ctx.Err() != nil || IsRateLimited(err) {
		return false
	}
	if s := StatusOf(err); s >= 500 {
		return true
	}
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

func shortError(err error) string {
	if s := StatusOf(err); s != 0 {
		return fmt.Sprintf("%d %s", s, http.StatusText(s))
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// IsRateLimited reports whether GitHub refused a call for a rate limit, or
// the transport stopped waiting for one.
func IsRateLimited(err error) bool {
	if err == nil {
		return false
	}
	var rl *gogithub.RateLimitError
	var al *gogithub.AbuseRateLimitError
	var le *LimitError
	if errors.As(err, &le) || errors.As(err, &rl) || errors.As(err, &al) || errors.Is(err, errWaitBudget) {
		return true
	}
	return StatusOf(err) == http.StatusTooManyRequests
}

// RateLimitedUntil is when GitHub lets requests through again after err, a
// rate limit; zero when unknown.
func (c *Client) RateLimitedUntil(err error) time.Time {
	if c == nil {
		return time.Time{}
	}
	until := c.tr.LimitedUntil()
	var rl *gogithub.RateLimitError
	if errors.As(err, &rl) && rl.Rate.Reset.After(until) {
		until = rl.Rate.Reset.Time
	}
	return until
}
