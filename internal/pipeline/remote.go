package pipeline

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/redact"
	"github.com/plumb-ci/plumb/internal/report"
	"github.com/plumb-ci/plumb/internal/source"
)

// newFetcher is the run's fetcher of remote charts, from hosts; nil when
// nothing may be fetched and --offline is off. The chart repositories'
// credentials are read only then, and their passwords join the set no
// output may hold. A configuration of Helm's that does not read is a
// warning: the run goes on without credentials.
func newFetcher(cfg *config.Config, hosts source.Hosts, store *cache.Store) (*source.Fetcher, string) {
	if hosts.Empty() && !cfg.Remote.Offline {
		return nil, ""
	}
	creds, err := source.LoadCredentials(os.Getenv)
	warning := ""
	if err != nil {
		warning = err.Error() + "; charts are fetched without credentials"
		creds = nil
	}
	if secrets := creds.Secrets(); len(secrets) > 0 {
		redact.Install(redact.Process().With(secrets...))
	}
	opts := source.Options{Hosts: hosts, Offline: cfg.Remote.Offline, Store: store, Credentials: creds}
	if cfg.Limits.MaxTargetBytes > 0 {
		opts.MaxBytes = cfg.Limits.MaxTargetBytes
	}
	if cfg.Limits.MaxTargetTime > 0 {
		opts.Timeout = cfg.Limits.MaxTargetTime
	}
	return source.New(opts), warning
}

// reportFetched lists what the fetcher used, for the report.
func reportFetched(f *source.Fetcher) []report.Fetched {
	if f == nil {
		return nil
	}
	return f.Fetched()
}

// baseRemoteHosts are the hosts the base revision's .plumb.yaml allows
// (the file at the path the working tree's was read from, else .plumb.yaml
// at the root); none when it has none or it does not read.
func baseRemoteHosts(cfg *config.Config, base fs.FS) source.Hosts {
	rel := ".plumb.yaml"
	switch {
	case cfg.Remote.File != "":
		r, err := filepath.Rel(cfg.Root, cfg.Remote.File)
		if err != nil || !filepath.IsLocal(r) {
			return source.Hosts{}
		}
		rel = r
	case cfg.File != "" && filepath.IsLocal(cfg.File):
		rel = cfg.File
	}
	data, err := manifest.ReadRegular(base, filepath.ToSlash(rel), 1<<20)
	if err != nil {
		return source.Hosts{}
	}
	hosts, err := config.BaseRemoteHosts(data)
	if err != nil {
		return source.Hosts{}
	}
	return hosts
}
