package github

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Clock is time as the transport sees it; tests replace it so retries and
// pacing take no real time.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Transport retries what GitHub asks to be retried, waits for rate limits
// and paces the requests that create content, so a run stays within
// GitHub's limits without blocking a CI step for long:
//
//   - 429 and 5xx responses, and 403 responses that are rate limits
//     (a Retry-After header, X-RateLimit-Remaining: 0, or a "secondary rate
//     limit" message), are retried with backoff, honouring Retry-After and
//     X-RateLimit-Reset;
//   - a successful answer that says the quota is spent
//     (X-RateLimit-Remaining: 0) is followed by a wait for the reset, so the
//     next request is not refused;
//   - a POST that creates a comment or review is never sent again after a
//     5xx or a dropped connection: GitHub may have stored it all the same,
//     and the Client looks before it posts again (see Client.create);
//   - every wait is announced (Announce) and all of them together stay
//     within WaitBudget; a wait that would exceed it is not made, and the
//     response is returned as it is (LimitedUntil says until when GitHub
//     refuses);
//   - other 403s (a read-only token) and 4xx are returned at once;
//   - POST, PATCH, PUT and DELETE requests are spaced by MinGap and at most
//     PerMinute of them go out in any minute (GitHub: at most 80
//     content-creating requests a minute, and a second between them).
type Transport struct {
	Base        http.RoundTripper
	Clock       Clock
	MaxAttempts int // tries per request (default 4)
	// WaitBudget bounds the time one run spends waiting for GitHub: retry
	// backoff, Retry-After, rate-limit resets (default 2m).
	WaitBudget time.Duration
	PerMinute  int           // content-creating requests per minute (default 80)
	MinGap     time.Duration // between content-creating requests (default 1s)
	// AttemptTimeout bounds one attempt, answer included (default 60s).
	AttemptTimeout time.Duration
	// Announce, when set, hears about every wait in a sentence for the
	// step log.
	Announce func(string)

	mu     sync.Mutex
	recent []time.Time // send times of the content-creating requests of the last minute
	waited time.Duration
	// limitedUntil is when GitHub stops refusing, after a rate limit the
	// transport did not wait for.
	limitedUntil time.Time
}

// Defaults of Transport.
const (
	defaultMaxAttempts    = 4
	defaultWaitBudget     = 2 * time.Minute
	defaultPerMinute      = 80
	defaultMinGap         = time.Second
	defaultAttemptTimeout = 60 * time.Second
	// secondaryLimitWait is how long GitHub asks clients to wait after a
	// secondary rate limit that names no time.
	secondaryLimitWait = time.Minute
)

func (t *Transport) clock() Clock {
	if t.Clock == nil {
		return realClock{}
	}
	return t.Clock
}

func (t *Transport) base() http.RoundTripper {
	if t.Base == nil {
		return http.DefaultTransport
	}
	return t.Base
}

// Waited is the time the transport has spent waiting so far.
func (t *Transport) Waited() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.waited
}

// LimitedUntil is when GitHub's rate limit lets requests through again,
// after the transport gave up waiting for it; zero when it never did.
func (t *Transport) LimitedUntil() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.limitedUntil
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	mutating := isMutating(req.Method)
	replayable := !createsContent(req)
	attempts := orDefault(t.MaxAttempts, defaultMaxAttempts)
	if until := t.LimitedUntil(); t.clock().Now().Before(until) {
		// GitHub said when it lets requests through again: asking before
		// that only spends requests.
		return nil, &LimitError{Until: until}
	}
	for attempt := 1; ; attempt++ {
		if mutating {
			if err := t.pace(ctx); err != nil {
				return nil, err
			}
		}
		r := req
		if attempt > 1 {
			var err error
			if r, err = cloneRequest(req); err != nil {
				return nil, err
			}
		}
		resp, err := t.send(r)
		if err != nil {
			// A network error or a timeout. A creation may have landed:
			// its caller looks before sending it again.
			if ctx.Err() != nil || !replayable || attempt >= attempts {
				return nil, err
			}
			if t.wait(ctx, backoff(attempt), fmt.Sprintf("GitHub API: %s %s failed (%v); retrying in %s", req.Method, req.URL.Path, err, backoff(attempt))) != nil {
				return nil, err
			}
			continue
		}
		wait, retry, limited := t.retryAfter(resp, attempt)
		if !retry {
			t.waitForSpentQuota(ctx, resp)
			return resp, nil
		}
		if !limited && !replayable {
			return resp, nil // a 5xx to a creation: see above
		}
		if attempt >= attempts || !t.fits(wait) {
			if !limited {
				return resp, nil
			}
			until := t.clock().Now().Add(wait)
			t.noteLimit(until)
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // drained for reuse of the connection
			resp.Body.Close()
			return nil, &LimitError{Until: until, Status: resp.Status}
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // drained for reuse of the connection
		resp.Body.Close()
		what := fmt.Sprintf("GitHub API: %s %s answered %s; retrying in %s", req.Method, req.URL.Path, resp.Status, wait)
		if limited {
			what = fmt.Sprintf("GitHub's API rate limit: %s %s was refused (%s); waiting %s, until %s", req.Method, req.URL.Path, resp.Status, wait, clockTime(t.clock().Now().Add(wait)))
		}
		if err := t.wait(ctx, wait, what); err != nil {
			return nil, err
		}
	}
}

// send makes one attempt within AttemptTimeout; the deadline covers
// reading the answer too, so it ends when the body is closed.
func (t *Transport) send(r *http.Request) (*http.Response, error) {
	timeout := t.AttemptTimeout
	if timeout <= 0 {
		timeout = defaultAttemptTimeout
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	resp, err := t.base().RoundTrip(r.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, nil
}

type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// waitForSpentQuota waits for the reset when an answer says the quota is
// spent, so the next request goes through; the answer's rate-limit headers
// are dropped after the wait, as they no longer hold (go-github would
// otherwise refuse the next request by itself). When the reset is too far
// away, the transport notes it and the next request fails at once.
func (t *Transport) waitForSpentQuota(ctx context.Context, resp *http.Response) {
	reset, ok := spentUntil(resp)
	if !ok {
		return
	}
	now := t.clock().Now()
	wait := reset.Sub(now) + time.Second
	if wait <= 0 {
		return
	}
	if !t.fits(wait) {
		t.noteLimit(reset)
		return
	}
	msg := fmt.Sprintf("GitHub's API rate limit: the quota is spent until %s; waiting %s before the next request", clockTime(reset), wait)
	if t.wait(ctx, wait, msg) != nil {
		t.noteLimit(reset)
		return
	}
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Used", "X-RateLimit-Reset"} {
		resp.Header.Del(h)
	}
}

// spentUntil reads X-RateLimit-Remaining: 0 and its reset time.
func spentUntil(resp *http.Response) (time.Time, bool) {
	if resp.Header.Get("X-RateLimit-Remaining") != "0" {
		return time.Time{}, false
	}
	reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(reset, 0), true
}

// fits reports whether a wait of d stays within the budget.
func (t *Transport) fits(d time.Duration) bool {
	budget := t.WaitBudget
	if budget <= 0 {
		budget = defaultWaitBudget
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.waited+d <= budget
}

func (t *Transport) noteLimit(until time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if until.After(t.limitedUntil) {
		t.limitedUntil = until
	}
}

// wait sleeps d within the budget, after announcing why.
func (t *Transport) wait(ctx context.Context, d time.Duration, why string) error {
	if !t.fits(d) {
		return errWaitBudget
	}
	t.mu.Lock()
	t.waited += d
	t.mu.Unlock()
	if t.Announce != nil {
		t.Announce(why)
	}
	return t.clock().Sleep(ctx, d)
}

// LimitError is a request GitHub refuses for a rate limit until Until,
// which is later than the run may wait (or Status is "" and the request was
// not sent: an earlier answer said so).
type LimitError struct {
	Until  time.Time
	Status string
}

func (e *LimitError) Error() string {
	if e.Status != "" {
		return fmt.Sprintf("GitHub's API rate limit (%s) until %s", e.Status, clockTime(e.Until))
	}
	return "GitHub's API rate limit until " + clockTime(e.Until)
}

// errWaitBudget is a wait the budget has no room for.
var errWaitBudget = fmt.Errorf("the time plumb may wait for GitHub in one run is used up")

// retryAfter decides whether a response should be retried, after how
// long, and whether GitHub refused it for a rate limit.
func (t *Transport) retryAfter(resp *http.Response, attempt int) (wait time.Duration, retry, limited bool) {
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		limited = true
	case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
	case resp.StatusCode == http.StatusForbidden:
		if !isRateLimited(resp) {
			return 0, false, false // a permission problem: retrying will not help
		}
		limited = true
	default:
		return 0, false, false
	}
	if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), t.clock().Now()); ok {
		return d, true, limited
	}
	if reset, ok := spentUntil(resp); ok && limited {
		return max(reset.Sub(t.clock().Now())+time.Second, time.Second), true, true
	}
	if limited {
		return secondaryLimitWait, true, true
	}
	return backoff(attempt), true, false
}

// isRateLimited tells a rate-limit 403 from a permission 403. It peeks at
// the body and puts it back.
func isRateLimited(resp *http.Response) bool {
	if resp.Header.Get("Retry-After") != "" || resp.Header.Get("X-RateLimit-Remaining") == "0" {
		return true
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false
	}
	lower := strings.ToLower(string(body))
	return strings.Contains(lower, "rate limit") || strings.Contains(lower, "abuse detection")
}

// parseRetryAfter reads seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

func backoff(attempt int) time.Duration {
	return time.Second << min(attempt-1, 5)
}

// pace blocks until a content-creating request may go out. The one-second
// gaps are not announced; a wait for the per-minute window is, and counts
// against the budget.
func (t *Transport) pace(ctx context.Context) error {
	perMinute := orDefault(t.PerMinute, defaultPerMinute)
	gap := t.MinGap
	if gap == 0 {
		gap = defaultMinGap
	}
	clock := t.clock()
	for {
		t.mu.Lock()
		now := clock.Now()
		// Forget sends older than a minute.
		i := 0
		for i < len(t.recent) && now.Sub(t.recent[i]) >= time.Minute {
			i++
		}
		t.recent = t.recent[i:]
		var gapWait, windowWait time.Duration
		if n := len(t.recent); n > 0 && gap > 0 {
			gapWait = gap - now.Sub(t.recent[n-1])
		}
		if len(t.recent) >= perMinute {
			windowWait = time.Minute - now.Sub(t.recent[0])
		}
		if gapWait <= 0 && windowWait <= 0 {
			t.recent = append(t.recent, now)
			t.mu.Unlock()
			return nil
		}
		t.mu.Unlock()
		if windowWait > gapWait {
			msg := fmt.Sprintf("GitHub API: %d content-creating requests in the last minute, GitHub's limit; waiting %s", len(t.recent), windowWait)
			if err := t.wait(ctx, windowWait, msg); err != nil {
				t.noteLimit(now.Add(windowWait))
				return err
			}
			continue
		}
		if err := clock.Sleep(ctx, gapWait); err != nil {
			return err
		}
	}
}

func isMutating(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// createsContent reports whether sending req twice could create two
// comments or reviews: a REST POST. (PATCH, PUT and DELETE are idempotent;
// GraphQL requests are queries or idempotent mutations.)
func createsContent(req *http.Request) bool {
	return req.Method == http.MethodPost && !strings.HasSuffix(req.URL.Path, "/graphql")
}

// cloneRequest gives each attempt a fresh body.
func cloneRequest(req *http.Request) (*http.Request, error) {
	r := req.Clone(req.Context())
	if req.Body != nil && req.Body != http.NoBody {
		if req.GetBody == nil {
			return nil, fmt.Errorf("%s %s: the request body cannot be replayed", req.Method, req.URL.Path)
		}
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	return r, nil
}

func orDefault(v, d int) int {
	if v > 0 {
		return v
	}
	return d
}

// clockTime prints a time as people read it in a log, in UTC.
func clockTime(t time.Time) string { return t.UTC().Format("15:04:05 UTC") }
