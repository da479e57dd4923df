package github

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v60/github"

	"github.com/plumb-ci/plumb/internal/github/fakegithub"
)

func newFake(t *testing.T) *fakegithub.Server {
	t.Helper()
	srv := fakegithub.New("acme", "shop")
	t.Cleanup(srv.Close)
	return srv
}

func testClient(t *testing.T, srv *fakegithub.Server, token string) *Client {
	t.Helper()
	c, err := NewClient(srv.URL, token, "acme", "shop", &Transport{Clock: srv.Clock})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func requestLines(srv *fakegithub.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		out = append(out, r.String())
	}
	return out
}

func TestRetriesSecondaryLimitHonouringRetryAfter(t *testing.T) {
	srv := newFake(t)
	srv.AddPR(&fakegithub.PR{Number: 1, HeadSHA: "h1"})
	srv.Inject(fakegithub.Fault{Method: "POST", Path: `/issues/1/comments$`, Count: 2, Status: 403,
		Header: map[string]string{"Retry-After": "7"},
		Body:   `{"message":"You have exceeded a secondary rate limit."}`})
	c := testClient(t, srv, "write-token")
	what, _, err := c.UpsertSummary(context.Background(), &PullRequest{Number: 1, HeadSHA: "h1"}, "hello")
	if err != nil || what != SummaryCreated {
		t.Fatalf("%s %v", what, err)
	}
	posts := 0
	for _, r := range srv.Requests() {
		if r.Method == "POST" && r.GraphQL == "" {
			posts++
		}
	}
	if posts != 3 {
		t.Errorf("%d POSTs, want 3 (two refused, one accepted)", posts)
	}
	slept := srv.Clock.Slept()
	waited := 0
	for _, d := range slept {
		if d == 7*time.Second {
			waited++
		}
	}
	if waited != 2 {
		t.Errorf("sleeps %v: want two waits of Retry-After (7s)", slept)
	}
}

func TestRetries429And5xxWithBackoff(t *testing.T) {
	srv := newFake(t)
	srv.AddPR(&fakegithub.PR{Number: 1, HeadSHA: "h1"})
	srv.Inject(fakegithub.Fault{Method: "GET", Path: `/pulls/1/files$`, Count: 1, Status: 502, Body: `{"message":"Bad Gateway"}`})
	srv.Inject(fakegithub.Fault{Method: "GET", Path: `/pulls/1/files$`, Count: 1, Status: 429, Header: map[string]string{"Retry-After": "3"}, Body: `{"message":"slow down"}`})
	c := testClient(t, srv, "write-token")
	if _, err := c.Diff(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if got := len(srv.Requests()); got != 3 {
		t.Errorf("%d requests, want 3", got)
	}
	if s := srv.Clock.Slept(); len(s) != 2 || s[0] != time.Second || s[1] != 3*time.Second {
		t.Errorf("sleeps %v, want [1s 3s]", s)
	}
}

func TestGivesUpAfterMaxAttempts(t *testing.T) {
	srv := newFake(t)
	srv.AddPR(&fakegithub.PR{Number: 1, HeadSHA: "h1"})
	srv.Inject(fakegithub.Fault{Method: "GET", Path: `/pulls/1/files$`, Count: 10, Status: 503, Body: `{"message":"unavailable"}`})
	c := testClient(t, srv, "write-token")
	_, err := c.Diff(context.Background(), 1)
	if StatusOf(err) != 503 {
		t.Fatalf("err = %v", err)
	}
	if got := len(srv.Requests()); got != defaultMaxAttempts {
		t.Errorf("%d requests, want %d", got, defaultMaxAttempts)
	}
}

func TestPermissionDeniedIsNotRetried(t *testing.T) {
	srv := newFake(t)
	srv.AddPR(&fakegithub.PR{Number: 1, HeadSHA: "h1"})
	c := testClient(t, srv, "read-token")
	_, _, err := c.UpsertSummary(context.Background(), &PullRequest{Number: 1, HeadSHA: "h1"}, "hello")
	if !IsNoPermission(err) || !strings.Contains(err.Error(), "Resource not accessible by integration") {
		t.Fatalf("err = %v", err)
	}
	want := []string{"GET /repos/acme/shop/issues/1/comments?per_page=100", "GET /repos/acme/shop/pulls/1", "POST /repos/acme/shop/issues/1/comments"}
	if got := requestLines(srv); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests %v, want %v", got, want)
	}
	if len(srv.Clock.Slept()) != 0 {
		t.Error("a permission error was waited on")
	}
}

func TestLongRetryAfterIsNotWaitedFor(t *testing.T) {
	srv := newFake(t)
	srv.AddPR(&fakegithub.PR{Number: 1, HeadSHA: "h1"})
	srv.Inject(fakegithub.Fault{Method: "GET", Path: `/pulls/1/files$`, Count: 1, Status: 403,
		Header: map[string]string{"Retry-After": "3600"}, Body: `{"message":"You have exceeded a secondary rate limit."}`})
	c := testClient(t, srv, "write-token")
	_, err := c.Diff(context.Background(), 1)
	if !IsRateLimited(err) || len(srv.Clock.Slept()) != 0 {
		t.Fatalf("err = %v, sleeps %v", err, srv.Clock.Slept())
	}
	if until := c.RateLimitedUntil(err); !until.Equal(srv.Clock.Now().Add(time.Hour)) {
		t.Errorf("limited until %s, want in an hour", until)
	}
}

func TestPrimaryRateLimitWaitsForReset(t *testing.T) {
	srv := newFake(t)
	srv.AddPR(&fakegithub.PR{Number: 1, HeadSHA: "h1"})
	reset := srv.Clock.Now().Add(20 * time.Second).Unix()
	srv.Inject(fakegithub.Fault{Method: "GET", Path: `/pulls/1/files$`, Count: 1, Status: 403,
		Header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": fmt.Sprint(reset)},
		Body:   `{"message":"API rate limit exceeded"}`})
	c := testClient(t, srv, "write-token")
	if _, err := c.Diff(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
	if s := srv.Clock.Slept(); len(s) != 1 || s[0] != 21*time.Second {
		t.Errorf("sleeps %v, want [21s]", s)
	}
}

// 200 content-creating requests go through without tripping the fake's
// 80-a-minute secondary limit: the transport paces them.
func TestPacingStaysUnderTheContentCreationLimit(t *testing.T) {
	srv := newFake(t)
	srv.AddPR(&fakegithub.PR{Number: 1, HeadSHA: "h1"})
	c := testClient(t, srv, "write-token")
	ctx := context.Background()
	start := srv.Clock.Now()
	for i := 0; i < 200; i++ {
		if _, _, err := c.gh.Issues.CreateComment(ctx, "acme", "shop", 1, &gogithub.IssueComment{Body: gogithub.String(fmt.Sprint(i))}); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	for _, r := range srv.Requests() {
		if r.Method != "POST" {
			t.Fatalf("unexpected %s", r)
		}
	}
	if n := len(srv.Requests()); n != 200 {
		t.Errorf("%d requests: some were refused and retried", n)
	}
	if elapsed := srv.Clock.Now().Sub(start); elapsed < 2*time.Minute {
		t.Errorf("200 creations took %s of clock time; at most 80 a minute needs at least 2m", elapsed)
	}
}

// Without the minimum gap, the per-minute window alone keeps to the limit.
func TestPerMinuteWindow(t *testing.T) {
	clock := fakegithub.NewClock(time.Unix(0, 0))
	tr := &Transport{Clock: clock, PerMinute: 3, MinGap: -1, Base: okTransport{}}
	for i := 0; i < 7; i++ {
		req, _ := http.NewRequest("POST", "http://x/y", nil)
		if _, err := tr.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
	}
	// 3 at t=0, 3 at t=60s, 1 at t=120s.
	if got := clock.Now().Sub(time.Unix(0, 0)); got != 2*time.Minute {
		t.Errorf("clock advanced %s, want 2m", got)
	}
}

type okTransport struct{}

func (okTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Body: http.NoBody, Header: http.Header{}}, nil
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if d, ok := parseRetryAfter("12", now); !ok || d != 12*time.Second {
		t.Errorf("seconds: %v %v", d, ok)
	}
	if d, ok := parseRetryAfter(now.Add(90*time.Second).Format(http.TimeFormat), now); !ok || d != 90*time.Second {
		t.Errorf("date: %v %v", d, ok)
	}
	if _, ok := parseRetryAfter("soon", now); ok {
		t.Error("garbage accepted")
	}
}

// GraphQL says no with status 200 and an error of type FORBIDDEN: that is
// a token that may not write, like a REST 403.
func TestGraphQLForbiddenIsNoPermission(t *testing.T) {
	srv := newFake(t)
	srv.AddPR(&fakegithub.PR{Number: 1, HeadSHA: "h1"})
	c := testClient(t, srv, "read-token")
	err := c.resolveThread(context.Background(), "PRRT_1")
	if !IsNoPermission(err) || !strings.Contains(err.Error(), "Resource not accessible by integration") {
		t.Fatalf("err = %v", err)
	}
}
