package pipeline

import (
	"fmt"

	"github.com/plumb-ci/plumb/internal/cache"
	"github.com/plumb-ci/plumb/internal/config"
)

// openCache opens the persistent cache the configuration names; nil when
// it is off. A cache that cannot be opened is not a reason to fail: the
// run goes on without it, and the warning says why.
func openCache(cfg *config.Config) (*cache.Store, string) {
	if cfg.Cache.Dir == "" {
		return nil, ""
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
