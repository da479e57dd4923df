package pipeline

import (
	"fmt"

	"github.com/plumb-ci/plumb/internal/analyzer"
	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/compare"
	"github.com/plumb-ci/plumb/internal/config"
)

// openCache opens the persistent cache the configuration names; nil when
// it is off. A cache that cannot be opened, or that the configuration
// refused (config.CacheSettings.Refused), is not a reason to fail: the run
// goes on without it, and the warning says why.
func openCache(cfg *config.Config) (*cache.Store, string) {
	if cfg.Cache.Dir == "" {
		return nil, ""
	}
	if cfg.Cache.Refused != "" {
		return nil, cfg.Cache.Refused
	}
	store, err := cache.Open(cfg.Cache.Dir, cache.Options{MaxBytes: cfg.Cache.MaxBytes, Identity: cache.Identity(Version)})
	if err != nil {
		return nil, fmt.Sprintf("the cache directory cannot be used, running without it: %v", err)
	}
	return store, ""
}

// closeCache ends a run's use of the cache (eviction); a failure only
// costs space, and is a warning.
func closeCache(store *cache.Store) string {
	if store == nil {
		return ""
	}
	if err := store.Finish(); err != nil {
		return fmt.Sprintf("cleaning the cache directory: %v", err)
	}
	return ""
}

// targetCache is the analyzers' analyzer.TargetCache over the persistent
// cache: a target's entries are keyed by what the target was made from
// (render.Target.Inputs), its environment, the run's configuration and
// plumb's build.
type targetCache struct {
	store *cache.Store
	keys  map[string]cache.Key // by target name; absent: not cached
	// off lists the engines that must not use the cache in this run (the
	// reference comparison of a reference read from a URL).
	off map[string]bool
}

// nsAnalysis is the cache namespace of analyzers' per-target results.
const nsAnalysis = "analysis"

// runAnalysisKey is a run's analysisConfigKey when the cache is on and
// the configuration can be keyed, else nil.
func runAnalysisKey(cfg *config.Config, store *cache.Store) *cache.Key {
	if store == nil {
		return nil
	}
	conf, ok := analysisConfigKey(cfg)
	if !ok {
		return nil
	}
	return &conf
}

// newTargetCache keys the targets of one revision's analysis under the
// run's analysis key; nil when the cache is off or the configuration
// cannot be keyed (conf nil).
func newTargetCache(store *cache.Store, conf *cache.Key, cfg *config.Config, in *analyzer.Input) analyzer.TargetCache {
	if store == nil || conf == nil {
		return nil
	}
	tc := &targetCache{store: store, keys: map[string]cache.Key{}, off: map[string]bool{}}
	if isURL(cfg.Reference.Path) {
		tc.off[(*compare.Analyzer)(nil).Name()] = true
	}
	for _, t := range in.Targets {
		if t.Inputs == (cache.Key{}) {
			continue
		}
		e := &cache.Encoder{}
		if err := e.Value(map[string]any(in.EnvFor(t.Name))); err != nil {
			continue // an environment value the codec cannot write: not cached
		}
		tc.keys[t.Name] = cache.NewHasher(nsAnalysis).Key(*conf).String(t.Name).String(string(t.Kind)).
			Key(t.Inputs).Bytes(e.Bytes()).Bool(in.Sharded).Sum()
	}
	return tc
}

func (tc *targetCache) slot(engine, target string) (cache.Key, bool) {
	k, ok := tc.keys[target]
	if !ok || tc.off[engine] {
		return cache.Key{}, false
	}
	return cache.NewHasher(engine).Key(k).Sum(), true
}

// Load implements analyzer.TargetCache.
func (tc *targetCache) Load(engine, target string) ([]byte, bool) {
	slot, ok := tc.slot(engine, target)
	if !ok {
		return nil, false
	}
	var out []byte
	found := tc.store.Lookup(nsAnalysis, slot, func(p []byte) bool {
		out = p
		return true
	})
	return out, found
}

// Store implements analyzer.TargetCache.
func (tc *targetCache) Store(engine, target string, payload []byte) {
	if slot, ok := tc.slot(engine, target); ok {
		_ = tc.store.Put(nsAnalysis, slot, cache.Key{}, payload) // a failed write is a later miss
	}
}
