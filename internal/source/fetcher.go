package source

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/plumb-ci/plumb/internal/cache"
)

// Options configure a Fetcher.
type Options struct {
	// Hosts may be fetched from; empty: nothing is fetched.
	Hosts Hosts
	// Offline fetches nothing: what the cache holds is used, and what it
	// does not is not rendered.
	Offline bool
	// Store is the persistent cache (nil: none; --offline then has nothing).
	Store *cache.Store
	// Credentials of the chart repositories (nil: none).
	Credentials *Credentials
	// MaxBytes bounds an index, an archive and what an archive
	// decompresses to (DefaultMaxBytes when 0).
	MaxBytes int64
	// Timeout bounds one request, headers and body (DefaultTimeout when 0).
	Timeout time.Duration
}

// DefaultMaxBytes is Helm's own bound for a decompressed chart.
const DefaultMaxBytes = 100 << 20

// DefaultTimeout bounds one request.
const DefaultTimeout = time.Minute

// Fetched is one artifact a run used, for the report.
type Fetched struct {
	Kind    string `json:"kind"` // "helm-chart"
	Name    string `json:"name"`
	Version string `json:"version"`
	// Repository is the chart repository's URL, URL the archive's.
	Repository string `json:"repository"`
	URL        string `json:"url"`
	// Digest is "sha256:<hex>" of the archive.
	Digest string `json:"digest"`
	// Cached: read from the cache, not fetched in this run.
	Cached bool `json:"cached"`
}

// String is the report's line: "podinfo 6.5.0 from https://…, sha256:…".
func (f Fetched) String() string {
	s := fmt.Sprintf("%s %s from %s, %s", f.Name, f.Version, f.Repository, f.Digest)
	if f.Cached {
		s += " (from the cache)"
	}
	return s
}

// Fetcher fetches remote artifacts for one run; safe for concurrent use.
type Fetcher struct {
	opts   Options
	client *http.Client

	indexes memo[*repoIndex]
	charts  memo[*Chart]

	mu      sync.Mutex // guards fetched
	fetched []Fetched
}

// New returns a Fetcher.
func New(opts Options) *Fetcher {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	return &Fetcher{opts: opts, client: newClient(opts.Hosts, opts.Credentials, opts.Timeout, opts.MaxBytes+1)}
}

// Enabled reports whether the fetcher may get anything: a host is allowed,
// or --offline reads the cache.
func (f *Fetcher) Enabled() bool {
	return f != nil && (!f.opts.Hosts.Empty() || f.opts.Offline)
}

// Hosts is the allow-list, for messages.
func (f *Fetcher) Hosts() Hosts { return f.opts.Hosts }

// Fetched lists the artifacts used so far, in a stable order.
func (f *Fetcher) Fetched() []Fetched {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := slices.Clone(f.fetched)
	// By URL, then digest, so that the duplicates Compact drops are
	// neighbours.
	slices.SortFunc(out, func(a, b Fetched) int {
		return cmp.Or(strings.Compare(a.URL, b.URL), strings.Compare(a.Digest, b.Digest))
	})
	return slices.CompactFunc(out, func(a, b Fetched) bool { return a.URL == b.URL && a.Digest == b.Digest })
}

func (f *Fetcher) record(x Fetched) {
	f.mu.Lock()
	f.fetched = append(f.fetched, x)
	f.mu.Unlock()
}

// get fetches u within the budget.
func (f *Fetcher) get(ctx context.Context, u *url.URL, what string) ([]byte, error) {
	if f.opts.Offline {
		return nil, &RefusedError{Why: fmt.Sprintf("%s is not in the cache, and --offline fetches nothing", u.Redacted())}
	}
	if err := allowedURL(f.opts.Hosts, u); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := f.client.Do(req)
	if err != nil {
		var re *RefusedError
		if errors.As(err, &re) {
			return nil, re
		}
		if ne, ok := errors.AsType[net.Error](err); (ok && ne.Timeout()) || ctx.Err() != nil {
			return nil, fmt.Errorf("fetching %s: no answer within %s", u.Redacted(), f.opts.Timeout)
		}
		return nil, fmt.Errorf("fetching %s: %w", u.Redacted(), unwrapURLError(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetching %s: the server answered %s", u.Redacted(), resp.Status)
	}
	data, err := readAll(resp.Body, f.opts.MaxBytes, what+" "+u.Redacted())
	if ne, ok := errors.AsType[net.Error](err); (ok && ne.Timeout()) || (err != nil && ctx.Err() != nil) {
		return nil, fmt.Errorf("fetching %s: not received within %s", u.Redacted(), f.opts.Timeout)
	}
	return data, err
}

// unwrapURLError drops url.Error's "Get \"URL\":" prefix (the URL is
// named by the caller, redacted).
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// The cache's namespace and slot kinds.
const cacheNS = "source"

func indexSlot(u string) cache.Key { return cache.NewHasher("helm-index").String(u).Sum() }
func archiveSlot(u, digest string) cache.Key {
	return cache.NewHasher("helm-archive").String(u).String(digest).Sum()
}

// sha256Hex is the hex digest of data.
func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
