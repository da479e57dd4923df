package fakegithub

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// quota is GitHub's primary rate limit: so many REST requests until the
// reset time, reported on every answer in X-RateLimit-* headers. The
// answer that spends the last request is a 200 that says remaining 0;
// requests after it are refused with 403 until the reset.
type quota struct {
	limit, remaining int
	reset            time.Time
}

// defaultQuota is GITHUB_TOKEN's hourly quota per repository.
const defaultQuota = 1000

func newQuota(now time.Time) quota {
	return quota{limit: defaultQuota, remaining: defaultQuota, reset: now.Add(time.Hour)}
}

// take counts one request and sets the rate-limit headers; false when the
// quota is spent.
func (q *quota) take(w http.ResponseWriter, now time.Time) bool {
	if !now.Before(q.reset) {
		q.remaining, q.reset = q.limit, now.Add(time.Hour)
	}
	ok := q.remaining > 0
	if ok {
		q.remaining--
	}
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(q.limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(q.remaining))
	h.Set("X-RateLimit-Used", strconv.Itoa(q.limit-q.remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(q.reset.Unix(), 10))
	h.Set("X-RateLimit-Resource", "core")
	return ok
}

// SetQuota leaves remaining REST requests until the quota resets in
// resetIn: the remaining-th request is answered normally with
// X-RateLimit-Remaining: 0, the ones after it get 403 until the reset.
func (s *Server) SetQuota(remaining int, resetIn time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.quota.remaining = remaining
	s.quota.reset = s.Clock.Now().Add(resetIn)
}

// Clock is a fake clock: Sleep advances it at once.
type Clock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

// NewClock starts a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep advances the clock.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.slept = append(c.slept, d)
	return nil
}

// Slept returns every sleep so far.
func (c *Clock) Slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.slept)
}
