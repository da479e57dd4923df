package source

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"path"
	"strings"
	"testing/fstest"

	"github.com/Masterminds/semver/v3"
	"sigs.k8s.io/yaml"

	"github.com/plumb-ci/plumb/internal/cache"
)

// Chart is a chart archive fetched from a chart repository, its digest
// checked.
type Chart struct {
	Name, Version string
	// Repository is the repository's URL, URL the archive's.
	Repository, URL string
	// Digest is "sha256:<hex>".
	Digest  string
	Archive []byte
}

// repoIndex is a chart repository's index.yaml, the parts read.
type repoIndex struct {
	Entries map[string][]indexVersion `json:"entries"`
}

type indexVersion struct {
	Name    string   `json:"name"`
	Version string   `json:"version"`
	URLs    []string `json:"urls"`
	Digest  string   `json:"digest"`
}

// HelmChart resolves chart name at version (a Helm/Flux semver constraint;
// "" or "*" for the highest stable version) in the chart repository at
// repoURL, and returns its archive, its digest checked against the index.
// Online, the index is fetched once per run and the archive read from the
// cache when the cache holds it under its URL and digest; --offline reads
// both from the cache.
func (f *Fetcher) HelmChart(ctx context.Context, repoURL, name, version string) (*Chart, error) {
	key := repoURL + "\x00" + name + "\x00" + version
	return f.charts.do(key, func() (*Chart, error) { return f.helmChart(ctx, repoURL, name, version) })
}

func (f *Fetcher) helmChart(ctx context.Context, repoURL, name, version string) (*Chart, error) {
	base, err := repoBase(repoURL)
	if err != nil {
		return nil, err
	}
	idx, err := f.index(ctx, base)
	if err != nil {
		return nil, err
	}
	v, err := pickVersion(idx, name, version)
	if err != nil {
		return nil, fmt.Errorf("chart repository %s: %w", repoURL, err)
	}
	if len(v.URLs) == 0 {
		return nil, fmt.Errorf("chart repository %s: %s %s has no URL in the index", repoURL, name, v.Version)
	}
	au, err := base.Parse(v.URLs[0])
	if err != nil {
		return nil, fmt.Errorf("chart repository %s: %s %s: the archive URL %q does not parse", repoURL, name, v.Version, v.URLs[0])
	}
	want := strings.ToLower(strings.TrimPrefix(v.Digest, "sha256:"))
	data, cached, err := f.archive(ctx, au, want)
	if err != nil {
		return nil, err
	}
	if err := CheckArchive(data, f.opts.MaxBytes); err != nil {
		return nil, fmt.Errorf("%s %s from %s: %w", name, v.Version, au.Redacted(), err)
	}
	c := &Chart{Name: name, Version: v.Version, Repository: repoURL, URL: au.Redacted(), Digest: "sha256:" + sha256Hex(data), Archive: data}
	f.record(Fetched{Kind: "helm-chart", Name: name, Version: v.Version, Repository: repoURL, URL: c.URL, Digest: c.Digest, Cached: cached})
	return c, nil
}

// repoBase is the repository URL as a base for its index and relative
// archive URLs (with a trailing slash, as Helm makes it).
func repoBase(repoURL string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(repoURL))
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("chart repository %q is not a URL", repoURL)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u, nil
}

// index is the repository's index, fetched once per run (online) or read
// from the cache (--offline, or when the fetch fails: never; a failed
// fetch is the failure, so an outage is seen, not masked by an old index).
func (f *Fetcher) index(ctx context.Context, base *url.URL) (*repoIndex, error) {
	iu := base.ResolveReference(&url.URL{Path: "index.yaml"})
	return f.indexes.do(iu.String(), func() (*repoIndex, error) { return f.loadIndex(ctx, iu) })
}

func (f *Fetcher) loadIndex(ctx context.Context, iu *url.URL) (*repoIndex, error) {
	var data []byte
	if f.opts.Offline {
		if f.opts.Store == nil || !f.opts.Store.Lookup(cacheNS, indexSlot(iu.String()), func(p []byte) bool { data = p; return true }) {
			return nil, &RefusedError{Why: fmt.Sprintf("the index %s is not in the cache, and --offline fetches nothing", iu.Redacted())}
		}
	} else {
		var err error
		if data, err = f.get(ctx, iu, "the index"); err != nil {
			return nil, err
		}
	}
	var idx repoIndex
	if err := yaml.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("the index %s is not a chart repository index: %v", iu.Redacted(), firstLine(err.Error()))
	}
	if !f.opts.Offline && f.opts.Store != nil {
		_ = f.opts.Store.Put(cacheNS, indexSlot(iu.String()), cache.Digest(data), data) // a failed write is a later miss
	}
	return &idx, nil
}

// archive is the archive at u, whose SHA-256 must be want (hex; "" when
// the index gives none): from the cache when it holds it, else fetched.
func (f *Fetcher) archive(ctx context.Context, u *url.URL, want string) (data []byte, cached bool, err error) {
	if want != "" && f.opts.Store != nil {
		f.opts.Store.Lookup(cacheNS, archiveSlot(u.String(), want), func(p []byte) bool {
			if sha256Hex(p) == want {
				data = p
				return true
			}
			return false
		})
		if data != nil {
			return data, true, nil
		}
	}
	if want == "" && f.opts.Offline {
		return nil, false, &RefusedError{Why: fmt.Sprintf("%s: the index gives no digest, so the cache cannot vouch for a copy, and --offline fetches nothing", u.Redacted())}
	}
	if data, err = f.get(ctx, u, "the chart archive"); err != nil {
		return nil, false, err
	}
	got := sha256Hex(data)
	if want != "" && got != want {
		return nil, false, fmt.Errorf("%s: the archive's digest is sha256:%s, the index says sha256:%s; the archive is refused", u.Redacted(), got, want)
	}
	if want != "" && f.opts.Store != nil {
		_ = f.opts.Store.Put(cacheNS, archiveSlot(u.String(), want), cache.Digest(data), data)
	}
	return data, false, nil
}

// pickVersion is the highest version of name matching constraint, as Flux
// and helm pull choose ("" and "*": the highest stable version).
func pickVersion(idx *repoIndex, name, constraint string) (indexVersion, error) {
	entries := idx.Entries[name]
	if len(entries) == 0 {
		return indexVersion{}, fmt.Errorf("no chart %s in the index", name)
	}
	constraint = strings.TrimSpace(constraint)
	if constraint == "" {
		constraint = "*"
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return indexVersion{}, fmt.Errorf("version %q of chart %s is not a semver constraint: %v", constraint, name, err)
	}
	var best indexVersion
	var bestV *semver.Version
	for _, e := range entries {
		v, err := semver.NewVersion(e.Version)
		if err != nil || !c.Check(v) {
			continue
		}
		if bestV == nil || v.GreaterThan(bestV) {
			best, bestV = e, v
		}
	}
	if bestV == nil {
		return indexVersion{}, fmt.Errorf("no version of chart %s matches %q", name, constraint)
	}
	return best, nil
}

// CheckArchive reads a chart archive through, refusing one that
// decompresses to more than max bytes (a gzip bomb) or that holds anything
// but regular files and directories under one top directory, at relative
// paths.
func CheckArchive(data []byte, max int64) error {
	_, _, err := walkArchive(data, max, nil)
	return err
}

// ChartFS is the archive's files as a file system with the chart in its
// top directory (returned as dir), for the chart loader.
func ChartFS(data []byte, max int64) (fs.FS, string, error) {
	m := fstest.MapFS{}
	top, _, err := walkArchive(data, max, func(name string, content []byte) {
		m[name] = &fstest.MapFile{Data: content, Mode: 0o644}
	})
	if err != nil {
		return nil, "", err
	}
	return m, top, nil
}

// walkArchive reads every member of a .tgz, giving each regular file to
// file (when not nil).
func walkArchive(data []byte, max int64, file func(name string, content []byte)) (top string, total int64, err error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return "", 0, fmt.Errorf("not a gzip archive: %v", err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	for {
		hd, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", total, fmt.Errorf("a damaged archive: %v", err)
		}
		switch hd.Typeflag {
		case tar.TypeXGlobalHeader, tar.TypeXHeader, tar.TypeDir:
			continue
		case tar.TypeReg:
		default:
			return "", total, fmt.Errorf("the archive holds %s, which is not a regular file (links are refused)", hd.Name)
		}
		name := path.Clean(strings.TrimPrefix(hd.Name, "./"))
		if !fs.ValidPath(name) || !strings.Contains(name, "/") {
			return "", total, fmt.Errorf("the archive holds %q, not a file under the chart's directory", hd.Name)
		}
		first, _, _ := strings.Cut(name, "/")
		if top == "" {
			top = first
		} else if first != top {
			return "", total, fmt.Errorf("the archive holds %s and %s/…, two top directories", top, first)
		}
		content, err := io.ReadAll(io.LimitReader(tr, max-total+1))
		if err != nil {
			return "", total, fmt.Errorf("a damaged archive: %v", err)
		}
		total += int64(len(content))
		if total > max {
			return "", total, fmt.Errorf("the archive decompresses to more than %d bytes, the budget of a remote chart (stopped in %s)", max, hd.Name)
		}
		if file != nil {
			file(name, content)
		}
	}
	if top == "" {
		return "", total, errors.New("the archive holds no file")
	}
	return top, total, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
