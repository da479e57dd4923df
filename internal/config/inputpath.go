package config

import (
	"path/filepath"
	"strings"
)

// configDir is the directory of the configuration file, against which the
// paths it names are resolved (the working directory when there is none).
func configDir(cwd, configFile string) string {
	if configFile == "" {
		return cwd
	}
	abs := configFile
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, configFile)
	}
	return filepath.Dir(abs)
}

// resolveInputPath makes p, relative to base, absolute, and names it for
// messages: repository-relative when it lies inside root, else as written.
func resolveInputPath(root, base, p string) (abs, display string) {
	abs = p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(base, p)
	}
	display = filepath.ToSlash(p)
	if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		display = filepath.ToSlash(rel)
	}
	return abs, display
}
