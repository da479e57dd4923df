package source

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v4/pkg/registry"
	"sigs.k8s.io/yaml"

	"github.com/plumb-ci/plumb/internal/cache"
)

// OCIRef is what a chart in an OCI registry is asked for: Flux's
// OCIRepository ref (tag, semver, digest; none is the tag latest), or a
// HelmRepository of type oci's chart and version (a semver constraint).
type OCIRef struct {
	Tag, Semver, Digest string
	// PlainHTTP talks http, not https (Flux's spec.insecure).
	PlainHTTP bool
}

// ociResolution is what the cache keeps of a reference resolved online,
// for --offline: the tag chosen and the manifest's digest.
type ociResolution struct {
	Tag    string `json:"tag"`
	Digest string `json:"digest"`
}

// OCIChart fetches the chart at repoURL (oci://host/path/name) as ref
// asks, with Helm's registry client over plumb's guarded HTTP client: the
// manifest and layers are digest-checked by the client, and the chart
// layer is stored in the cache under the repository and the manifest's
// digest. Credentials are the registry client's own (Helm's registry
// configuration, then Docker's), sent by it to the registry and its token
// service only.
func (f *Fetcher) OCIChart(ctx context.Context, repoURL string, ref OCIRef) (*Chart, error) {
	key := "oci\x00" + repoURL + "\x00" + ref.Tag + "\x00" + ref.Semver + "\x00" + ref.Digest
	return f.charts.do(key, func() (*Chart, error) { return f.ociChart(ctx, repoURL, ref) })
}

func (f *Fetcher) ociChart(ctx context.Context, repoURL string, ref OCIRef) (*Chart, error) {
	u, err := url.Parse(strings.TrimSpace(repoURL))
	if err != nil || u.Scheme != "oci" || u.Host == "" || strings.Trim(u.Path, "/") == "" {
		return nil, fmt.Errorf("%q is not an oci://HOST/REPOSITORY URL", repoURL)
	}
	repo := u.Host + "/" + strings.Trim(u.Path, "/")
	scheme := "https"
	if ref.PlainHTTP {
		scheme = "http"
	}
	if err := allowedURL(f.opts.Hosts, &url.URL{Scheme: scheme, Host: u.Host}); err != nil && !f.opts.Offline {
		return nil, err
	}
	wanted := ref.Tag + ref.Semver + ref.Digest
	resKey := cache.NewHasher("oci-resolution").String(repo).String(ref.Tag).String(ref.Semver).String(ref.Digest).Sum()
	if f.opts.Offline {
		return f.ociOffline(repo, repoURL, resKey)
	}
	client, err := f.registryClient(ref.PlainHTTP)
	if err != nil {
		return nil, err
	}
	tag, err := f.ociTag(client, repo, ref)
	if err != nil {
		return nil, err
	}
	target := repo + ":" + tag
	if ref.Digest != "" {
		target = repo + "@" + ref.Digest
	}
	desc, err := client.Resolve(target)
	if err != nil {
		return nil, registryError(err, "resolving %s%s", target, orEmpty(wanted))
	}
	manifest := desc.Digest.String()
	if ref.Digest != "" && manifest != ref.Digest {
		return nil, fmt.Errorf("%s resolved to %s, not the digest asked for; refused", target, manifest)
	}
	c, cached := f.ociCached(repo, manifest)
	if c == nil {
		res, err := client.Pull(repo+"@"+manifest, registry.PullOptWithChart(true))
		if err != nil {
			return nil, registryError(err, "pulling %s", target)
		}
		if res.Manifest.Digest != manifest {
			return nil, fmt.Errorf("pulling %s: the registry gave manifest %s, not %s; refused", target, res.Manifest.Digest, manifest)
		}
		c = &Chart{Archive: res.Chart.Data}
		if f.opts.Store != nil {
			_ = f.opts.Store.Put(cacheNS, ociSlot(repo, manifest), cache.Digest(res.Chart.Data), res.Chart.Data)
		}
	}
	if f.opts.Store != nil {
		data, _ := json.Marshal(ociResolution{Tag: tag, Digest: manifest})
		_ = f.opts.Store.Put(cacheNS, resKey, cache.Digest(data), data)
	}
	return f.finishOCI(c, repoURL, repo, tag, manifest, cached)
}

// ociTag is the tag ref asks for: its tag, the highest tag its semver
// constraint matches (as Flux chooses), or latest.
func (f *Fetcher) ociTag(client *registry.Client, repo string, ref OCIRef) (string, error) {
	switch {
	case ref.Digest != "":
		return ref.Tag, nil
	case ref.Semver != "":
		c, err := semver.NewConstraint(ref.Semver)
		if err != nil {
			return "", fmt.Errorf("semver %q is not a constraint: %v", ref.Semver, err)
		}
		tags, err := client.Tags(repo)
		if err != nil {
			return "", registryError(err, "listing the tags of %s", repo)
		}
		for _, t := range tags { // highest first
			if v, err := semver.NewVersion(t); err == nil && c.Check(v) {
				return strings.ReplaceAll(t, "+", "_"), nil
			}
		}
		return "", fmt.Errorf("no tag of %s matches %q", repo, ref.Semver)
	case ref.Tag != "":
		return ref.Tag, nil
	}
	return "latest", nil
}

func (f *Fetcher) ociCached(repo, manifest string) (*Chart, bool) {
	if f.opts.Store == nil {
		return nil, false
	}
	var data []byte
	f.opts.Store.Lookup(cacheNS, ociSlot(repo, manifest), func(p []byte) bool { data = p; return true })
	if data == nil {
		return nil, false
	}
	return &Chart{Archive: data}, true
}

func (f *Fetcher) ociOffline(repo, repoURL string, resKey cache.Key) (*Chart, error) {
	var res ociResolution
	if f.opts.Store == nil || !f.opts.Store.Lookup(cacheNS, resKey, func(p []byte) bool { return json.Unmarshal(p, &res) == nil }) {
		return nil, &RefusedError{Why: fmt.Sprintf("%s is not in the cache, and --offline fetches nothing", repoURL)}
	}
	c, _ := f.ociCached(repo, res.Digest)
	if c == nil {
		return nil, &RefusedError{Why: fmt.Sprintf("%s@%s is not in the cache, and --offline fetches nothing", repoURL, res.Digest)}
	}
	return f.finishOCI(c, repoURL, repo, res.Tag, res.Digest, true)
}

// finishOCI checks the archive and records it.
func (f *Fetcher) finishOCI(c *Chart, repoURL, repo, tag, manifest string, cached bool) (*Chart, error) {
	if int64(len(c.Archive)) > f.opts.MaxBytes {
		return nil, &tooLargeError{what: "the chart layer of " + repo, max: f.opts.MaxBytes}
	}
	name, version, err := chartMeta(c.Archive, f.opts.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("%s:%s: %w", repo, tag, err)
	}
	c.Name, c.Version, c.Repository, c.URL = name, version, repoURL, "oci://"+repo+"@"+manifest
	c.Digest = manifest
	f.record(Fetched{Kind: "helm-chart", Name: name, Version: version, Repository: repoURL, URL: c.URL, Digest: manifest, Cached: cached})
	return c, nil
}

// chartMeta reads name and version from the archive's Chart.yaml.
func chartMeta(archive []byte, max int64) (name, version string, err error) {
	var meta struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	var found bool
	top, _, err := walkArchive(archive, max, func(n string, content []byte) {
		if strings.Count(n, "/") == 1 && strings.HasSuffix(n, "/Chart.yaml") && !found {
			found = yamlUnmarshal(content, &meta) == nil
		}
	})
	if err != nil {
		return "", "", err
	}
	if !found || meta.Name == "" {
		return "", "", fmt.Errorf("the chart layer has no %s/Chart.yaml with a name", top)
	}
	return meta.Name, meta.Version, nil
}

func ociSlot(repo, manifest string) cache.Key {
	return cache.NewHasher("oci-chart").String(repo).String(manifest).Sum()
}

// registryClient is Helm's registry client over plumb's guarded client.
func (f *Fetcher) registryClient(plainHTTP bool) (*registry.Client, error) {
	opts := []registry.ClientOption{registry.ClientOptHTTPClient(f.client), registry.ClientOptEnableCache(true)}
	if plainHTTP {
		opts = append(opts, registry.ClientOptPlainHTTP())
	}
	c, err := registry.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("the registry client: %v", err)
	}
	return c, nil
}

// registryError says what failed; a refusal stays one through the
// client's wrapping, so it is reported as a refusal.
func registryError(err error, format string, args ...any) error {
	var re *RefusedError
	if errors.As(err, &re) {
		return re
	}
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		return fmt.Errorf(format+": no answer in time", args...)
	}
	return fmt.Errorf(format+": %v", append(args, err)...)
}

var yamlUnmarshal = yaml.Unmarshal

func orEmpty(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}
