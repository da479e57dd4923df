package redact

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
)

// Transport returns a transport that sends through base (nil: the
// default) every request with its body redacted: the comments, reviews,
// check runs and GraphQL calls plumb sends to GitHub. Headers are left as
// they are (the Authorization header carries the token on purpose).
func (s *Set) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	if s.Empty() {
		return base
	}
	return transport{set: s, base: base}
}

type transport struct {
	set  *Set
	base http.RoundTripper
}

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return t.base.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the request body: %w", err)
	}
	red := t.set.Bytes(body)
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(red))
	out.ContentLength = int64(len(red))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(red)), nil }
	return t.base.RoundTrip(out)
}
