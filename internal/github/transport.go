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

// Transport retries what GitHub asks to be retried and paces the requests
// that create content, so a run stays within GitHub's secondary rate limits:
//
//   - 429 and 5xx responses, and 403 responses that are rate limits
//     (a Retry-After header, X-RateLimit-Remaining: 0, or a "secondary rate
//     limit" message), are retried with backoff, honouring Retry-After and
//     X-RateLimit-Reset; a wait longer than MaxWait is not worth blocking a
//     CI step for, so that response is returned as it is;
//   - other 403s (a read-only token) and 4xx are returned at once;
//   - POST, PATCH, PUT and DELETE requests are spaced by MinGap and at most
//     PerMinute of them go out in any minute (GitHub: at most 80
//     content-creating requests a minute, and a second between them).
type Transport struct {
	Base        http.RoundTripper
	Clock       Clock
	MaxAttempts int           // tries per request (default 4)
	MaxWait     time.Duration // longest single wait honoured (default 2m)
	PerMinute   int           // content-creating requests per minute (default 80)
	MinGap      time.Duration // between content-creating requests (default 1s)
	// Log, when set, hears about every retry.
	Log func(string)

	mu     sync.Mutex
	recent []time.Time // send times of the content-creating requests of the last minute
}

// Defaults of Transport.
const (
	defaultMaxAttempts = 4
	defaultMaxWait     = 2 * time.Minute
	defaultPerMinute   = 80
	defaultMinGap      = time.Second
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

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	mutating := isMutating(req.Method)
	attempts := orDefault(t.MaxAttempts, defaultMaxAttempts)
	maxWait := t.MaxWait
	if maxWait <= 0 {
		maxWait = defaultMaxWait
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
		resp, err := t.base().RoundTrip(r)
		if err != nil {
			// A network error: retry reads; a write may have happened.
			if mutating || attempt >= attempts {
				return nil, err
			}
			if err := t.wait(ctx, backoff(attempt), fmt.Sprintf("%s %s: %v", req.Method, req.URL.Path, err)); err != nil {
				return nil, err
			}
			continue
		}
		wait, retry := t.retryAfter(resp, attempt)
		if !retry || attempt >= attempts || wait > maxWait {
			return resp, nil
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err := t.wait(ctx, wait, fmt.Sprintf("%s %s: %s", req.Method, req.URL.Path, resp.Status)); err != nil {
			return nil, err
		}
	}
}

func (t *Transport) wait(ctx context.Context, d time.Duration, why string) error {
	if t.Log != nil {
		t.Log(fmt.Sprintf("GitHub API: %s; retrying in %s", why, d))
	}
	return t.clock().Sleep(ctx, d)
}

// retryAfter decides whether a response should be retried and after how
// long.
func (t *Transport) retryAfter(resp *http.Response, attempt int) (time.Duration, bool) {
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
	case resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
	case resp.StatusCode == http.StatusForbidden:
		if !isRateLimited(resp) {
			return 0, false // a permission problem: retrying will not help
		}
	default:
		return 0, false
	}
	if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), t.clock().Now()); ok {
		return d, true
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return max(time.Unix(reset, 0).Sub(t.clock().Now())+time.Second, time.Second), true
		}
	}
	if resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusTooManyRequests {
		return secondaryLimitWait, true
	}
	return backoff(attempt), true
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
	return strings.Contains(lower, "secondary rate limit") || strings.Contains(lower, "abuse detection")
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

// pace blocks until a content-creating request may go out.
func (t *Transport) pace(ctx context.Context) error {
	perMinute := orDefault(t.PerMinute, defaultPerMinute)
	gap := t.MinGap
	if gap == 0 {
		gap = defaultMinGap
	}
	clock := t.clock()
	t.mu.Lock()
	defer t.mu.Unlock()
	for {
		now := clock.Now()
		// Forget sends older than a minute.
		i := 0
		for i < len(t.recent) && now.Sub(t.recent[i]) >= time.Minute {
			i++
		}
		t.recent = t.recent[i:]
		var wait time.Duration
		if n := len(t.recent); n > 0 && gap > 0 {
			wait = max(wait, gap-now.Sub(t.recent[n-1]))
		}
		if len(t.recent) >= perMinute {
			wait = max(wait, time.Minute-now.Sub(t.recent[0]))
		}
		if wait <= 0 {
			t.recent = append(t.recent, now)
			return nil
		}
		if err := clock.Sleep(ctx, wait); err != nil {
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
