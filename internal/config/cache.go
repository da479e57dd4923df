package config

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"
)

// CacheFile is the cache: section of .plumb.yaml.
type CacheFile struct {
	// Dir is the persistent cache directory, relative to the repository
	// root when not absolute.
	Dir string `yaml:"dir"`
	// MaxSize bounds it (a size such as 1GiB).
	MaxSize string `yaml:"max_size"`
}

// cacheFlags are --cache-dir, --cache-max-size and --no-cache.
type cacheFlags struct {
	CacheDir     string
	CacheMaxSize string
	NoCache      bool
}

func bindCacheFlags(fs *pflag.FlagSet, fl *Flags) {
	fs.StringVar(&fl.CacheDir, "cache-dir", "", "directory of the persistent render and analysis cache (default $XDG_CACHE_HOME/plumb, or ~/.cache/plumb)")
	fs.StringVar(&fl.CacheMaxSize, "cache-max-size", "1GiB", "largest size of the cache directory; the least recently used entries go first")
	fs.BoolVar(&fl.NoCache, "no-cache", false, "neither read nor write the persistent cache")
}

// CacheSettings is the resolved cache configuration.
type CacheSettings struct {
	// Dir is the cache directory (absolute); "" when the cache is off.
	Dir string
	// MaxBytes bounds the directory.
	MaxBytes int64
	// Refused, when set, says why the directory the workflow named is not
	// used (cachedir.go): the run goes on without the cache, with it as a
	// warning.
	Refused string
}

// DefaultCacheDir is the cache directory when none is configured:
// $XDG_CACHE_HOME/plumb (on Linux; the platform's user cache directory
// elsewhere), "" when the platform has none.
func DefaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "plumb")
}

// resolveCache picks --no-cache, else --cache-dir (relative to the working
// directory), else the file's cache.dir (relative to the repository root,
// and confined when the file is the repository's: cachedir.go), else the
// default. A cache directory inside the repository that is used is
// excluded from the inputs.
func resolveCache(cfg *Config, file *File, fl *Flags, root, cwd string) error {
	var s CacheSettings
	size := fl.CacheMaxSize
	switch {
	case fl.changed("cache-max-size"):
	case file.Cache.MaxSize != "":
		size = file.Cache.MaxSize
	}
	if size == "" {
		size = "1GiB"
	}
	n, err := ParseSize(size)
	if err != nil || n <= 0 {
		if fl.changed("cache-max-size") || file.Cache.MaxSize == "" {
			return fmt.Errorf("--cache-max-size %q: want a size such as 512MiB or 2GiB", size)
		}
		return file.src.errorf("cache.max_size", "cache.max_size %q: want a size such as 512MiB or 2GiB", size)
	}
	s.MaxBytes = n
	switch {
	case fl.NoCache:
	case fl.CacheDir != "":
		s.Dir = absUnder(cwd, fl.CacheDir)
	case file.Cache.Dir != "":
		if file.path != "" && InRepository(root, file.path) {
			if err := confineCacheDir(root, cfg.Paths, file.Cache.Dir); err != nil {
				return file.src.errorf("cache.dir", "cache.dir %q: %v", file.Cache.Dir, err)
			}
		}
		s.Dir = absUnder(root, file.Cache.Dir)
	default:
		s.Dir = DefaultCacheDir()
	}
	if s.Dir != "" {
		s.Refused = refuseCache(root, s.Dir)
	}
	cfg.Cache = s
	if s.Dir == "" || s.Refused != "" {
		return nil
	}
	if InRepository(root, s.Dir) {
		rel, _ := filepath.Rel(root, s.Dir)
		if rel == "." {
			return fmt.Errorf("the cache directory %s is the repository root: give it a directory of its own", s.Dir)
		}
		cfg.Exclude = append(cfg.Exclude, filepath.ToSlash(rel)+"/**")
	}
	return nil
}

// absUnder makes p absolute, relative to dir.
func absUnder(dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}
