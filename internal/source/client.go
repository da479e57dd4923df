package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"
)

// RefusedError is a fetch plumb did not make: a host the allow-list does
// not name, an address only a named host may have, --offline.
type RefusedError struct{ Why string }

func (e *RefusedError) Error() string { return e.Why }

// newClient is the HTTP client of a Fetcher: every connection is to an
// allowed host, at an address checked when it is dialled (after the name
// resolved, so a name that resolves to 169.254.169.254 is refused as the
// address itself would be); redirects are held to the same list; no proxy
// from the environment (a proxy would dial for plumb, unchecked); the
// credentials of a host are added to the requests to that host only, by
// the transport, so a redirect elsewhere never carries them.
func newClient(hosts Hosts, creds *Credentials, timeout time.Duration, maxBytes int64) *http.Client {
	dialer := &net.Dialer{Timeout: min(timeout, 30*time.Second)}
	base := &http.Transport{
		Proxy:                 nil,
		DialContext:           guardedDial(hosts, dialer),
		TLSHandshakeTimeout:   min(timeout, 30*time.Second),
		ResponseHeaderTimeout: timeout,
		MaxIdleConnsPerHost:   4,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport: &authTransport{base: base, creds: creds, max: maxBytes},
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("more than 5 redirects")
			}
			return allowedURL(hosts, req.URL)
		},
	}
}

// allowedURL refuses a URL whose host the list does not allow, or that is
// not http(s).
func allowedURL(hosts Hosts, u *url.URL) error {
	if u.Scheme != "https" && u.Scheme != "http" {
		return &RefusedError{Why: fmt.Sprintf("%s: only http and https URLs are fetched", u.Redacted())}
	}
	if !hosts.Allows(u.Hostname(), portOf(u)) {
		return &RefusedError{Why: fmt.Sprintf("%s is not an allowed remote host (allowed: %s); add it with --remote-host %s, the action input remote-hosts, or remote.hosts in the base revision's .plumb.yaml",
			u.Host, hosts, u.Hostname())}
	}
	return nil
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "http" {
		return "80"
	}
	return "443"
}

// guardedDial dials addr ("host:port" of the request) only when the list
// allows it, and checks the address the connection is made to.
func guardedDial(hosts Hosts, d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if !hosts.Allows(host, port) {
			return nil, &RefusedError{Why: fmt.Sprintf("%s is not an allowed remote host (allowed: %s)", addr, hosts)}
		}
		named := hosts.named(host, port)
		dd := *d
		dd.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return &RefusedError{Why: fmt.Sprintf("%s: cannot read the address %q it resolved to", host, address)}
			}
			if why := special(ap.Addr()); why != "" && !named {
				return &RefusedError{Why: fmt.Sprintf("%s resolved to %s, %s, which plumb reaches only when an allowed host names it (--remote-host %s)",
					host, ap.Addr(), why, host)}
			}
			return nil
		}
		return dd.DialContext(ctx, network, addr)
	}
}

// authTransport adds a host's credentials to the requests sent to it, and
// bounds every response body (the registry client reads blobs whole).
type authTransport struct {
	base  http.RoundTripper
	creds *Credentials
	max   int64
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if c, ok := t.creds.For(req.URL); ok && req.Header.Get("Authorization") == "" {
		req = req.Clone(req.Context())
		req.SetBasicAuth(c.Username, c.Password)
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil && t.max > 0 {
		resp.Body = &boundedBody{ReadCloser: resp.Body, left: t.max, max: t.max - 1, what: req.URL.Redacted()}
	}
	return resp, err
}

// boundedBody fails a body that goes on past its budget.
type boundedBody struct {
	io.ReadCloser
	left, max int64
	what      string
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, &tooLargeError{what: b.what, max: b.max}
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n, &tooLargeError{what: b.what, max: b.max}
	}
	return n, err
}

// errTooLarge is a response over its budget.
type tooLargeError struct {
	what string
	max  int64
}

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("%s is larger than %d bytes, the budget of a remote artifact (raise it with --max-target-size)", e.what, e.max)
}

// readAll reads a response body up to max bytes.
func readAll(r io.Reader, max int64, what string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &tooLargeError{what: what, max: max}
	}
	return data, nil
}
