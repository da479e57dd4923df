package config

import (
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
)

// changedFlag is --changed: the PATH arguments are the files a change
// touched (what a pre-commit hook passes), not what to read.
func bindChangedFlag(fs *pflag.FlagSet, fl *Flags) {
	fs.BoolVar(&fl.Changed, "changed", false, "the PATH arguments are changed files (a pre-commit hook's): check, among the configuration's paths, only the render targets that read one of them")
}

// resolveChanged turns the changed files given as arguments into
// repository-relative paths.
func resolveChanged(args []string, root, cwd string) ([]string, []error) {
	var files []string
	var errs []error
	for _, a := range args {
		rel, err := RepoPath(root, cwd, a)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		files = append(files, rel)
	}
	return files, errs
}

// settingsChanged reports a changed file that is part of plumb's own
// settings — the configuration file, a rules file, a checks catalog, the
// reference or the KubeVirt Template directories — and so can change the
// findings of every target; "" when none is.
func (cfg *Config) settingsChanged(cwd string) string {
	var settings []string
	add := func(p string) {
		if p == "" {
			return
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		settings = append(settings, filepath.Clean(p))
	}
	add(cfg.File)
	for _, r := range cfg.Rules.Files {
		add(r.Path)
	}
	for _, d := range cfg.Checks.Dirs {
		add(d.Path)
	}
	if cfg.Reference.Path != "" {
		ref := cfg.Reference.Path
		if strings.HasSuffix(ref, ".yaml") || strings.HasSuffix(ref, ".yml") {
			ref = filepath.Dir(ref) // the reference is its metadata's directory
		}
		add(ref)
	}
	add(cfg.Reference.DiffConfig)
	add(cfg.Reference.Overrides)
	for _, d := range cfg.KubeVirt.TemplateDirs {
		add(d)
	}
	for _, f := range cfg.Changed {
		abs := filepath.Join(cfg.Root, filepath.FromSlash(f))
		for _, s := range settings {
			if abs == s || strings.HasPrefix(abs, s+string(filepath.Separator)) {
				return f
			}
		}
	}
	return ""
}
