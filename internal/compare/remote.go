package compare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"
)

// Limits of a reference read over HTTP: each file is bounded like a local
// one (maxTemplateBytes), and the reference as a whole too.
const (
	maxRemoteReferenceBytes = 64 << 20
	remoteAttempts          = 5 // kube-compare retries each file 5 times
)

// IsURL reports whether a reference is given as an http(s) URL.
func IsURL(ref string) bool {
	return strings.HasPrefix(ref, "https://") || strings.HasPrefix(ref, "http://")
}

// LoadURL loads a reference from the http(s) URL of its metadata file, or
// of a directory (a URL ending in "/") holding metadata.yaml. The other
// files are fetched relative to the metadata file's directory, as
// kube-compare does (pkg/compare/parsing.go, the HTTP reference file
// system): each at most once, each bounded like a local file and the whole
// reference to 64 MiB, with up to five attempts on a network error or a
// server error. Files are only read and parsed: nothing fetched runs
// beyond the templates themselves.
func LoadURL(ctx context.Context, raw string, client *http.Client) (*Reference, Problems) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, Problems{{Location: loc(raw, 0), Message: "the reference URL is not a valid http(s) URL"}}
	}
	u.RawQuery, u.Fragment = "", ""
	entry := DefaultEntry
	if !strings.HasSuffix(u.Path, "/") {
		entry = path.Base(u.Path)
		u.Path = path.Dir(u.Path) + "/"
	}
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	fsys := &httpFS{ctx: ctx, base: u, client: client, files: map[string][]byte{}}
	display := strings.TrimSuffix(u.String(), "/")
	if _, err := fsys.fetch(entry); err != nil {
		msg := "Reference config file cannot be fetched: " + err.Error()
		if errors.Is(err, fs.ErrNotExist) {
			msg = "Reference config file doesn't exist"
		}
		return nil, Problems{{Location: loc(display+"/"+entry, 0), Message: msg}}
	}
	return Load(fsys, entry, display)
}

// httpFS is a read-only file system over the reference's directory URL.
type httpFS struct {
	ctx    context.Context
	base   *url.URL
	client *http.Client

	mu    sync.Mutex
	files map[string][]byte
	total int64
}

func (h *httpFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	data, err := h.fetch(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &memFile{name: path.Base(name), Reader: bytes.NewReader(data), size: int64(len(data))}, nil
}

// fetch reads one file, once.
func (h *httpFS) fetch(name string) ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if data, ok := h.files[name]; ok {
		return data, nil
	}
	ref, err := url.Parse(escapePath(name))
	if err != nil {
		return nil, fs.ErrInvalid
	}
	target := h.base.ResolveReference(ref)
	var data []byte
	for attempt := 1; ; attempt++ {
		var retry bool
		data, retry, err = h.get(target.String())
		if err == nil || !retry || attempt == remoteAttempts {
			break
		}
		select {
		case <-h.ctx.Done():
			return nil, h.ctx.Err()
		case <-time.After(time.Duration(attempt) * 200 * time.Millisecond):
		}
	}
	if err != nil {
		return nil, err
	}
	h.total += int64(len(data))
	if h.total > maxRemoteReferenceBytes {
		return nil, fmt.Errorf("the reference is over %d bytes", maxRemoteReferenceBytes)
	}
	h.files[name] = data
	return data, nil
}

// get makes one request; retry says whether another attempt may succeed.
func (h *httpFS) get(target string) (data []byte, retry bool, err error) {
	req, err := http.NewRequestWithContext(h.ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, false, err
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, h.ctx.Err() == nil, fmt.Errorf("fetching %s: %w", target, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, false, fs.ErrNotExist
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		return nil, true, fmt.Errorf("fetching %s: %s", target, resp.Status)
	case resp.StatusCode != http.StatusOK:
		return nil, false, fmt.Errorf("fetching %s: %s", target, resp.Status)
	}
	data, err = io.ReadAll(io.LimitReader(resp.Body, maxTemplateBytes+1))
	if err != nil {
		return nil, true, fmt.Errorf("fetching %s: %w", target, err)
	}
	if len(data) > maxTemplateBytes {
		return nil, false, fmt.Errorf("%s is over %d bytes", target, maxTemplateBytes)
	}
	return data, false, nil
}

// escapePath escapes each segment of a relative path for a URL.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// memFile is a fetched file.
type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func (f *memFile) Stat() (fs.FileInfo, error) { return memInfo{f.name, f.size}, nil }
func (f *memFile) Close() error               { return nil }

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o444 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
