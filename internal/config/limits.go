package config

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// resolveLimits merges the limits section with the limit flags (flags win).
// A limit must be positive: zero or a negative number would silently mean
// "the default", which is not what anyone writing it meant.
func resolveLimits(file *File, fl *Flags) (manifest.Limits, error) {
	l := manifest.DefaultLimits
	var errs []error
	// value reads a limit written as text (a size, a duration) from the
	// file, then from its flag, which wins.
	value := func(key, flag, fromFile, fromFlag string, parse func(string) error) {
		if fromFile != "" {
			if err := parse(fromFile); err != nil {
				errs = append(errs, file.src.errorf(key, "%s: %v", key, err))
			}
		}
		if fl.changed(flag) {
			if err := parse(fromFlag); err != nil {
				errs = append(errs, fmt.Errorf("--%s: %w", flag, err))
			}
		}
	}
	size := func(into *int64) func(string) error {
		return func(s string) (err error) { *into, err = ParseSize(s); return err }
	}
	value("limits.max_file_size", "max-file-size", file.Limits.MaxFileSize, fl.MaxFileSize, size(&l.MaxFileBytes))
	value("limits.max_target_size", "max-target-size", file.Limits.MaxTargetSize, fl.MaxTargetSize, size(&l.MaxTargetBytes))
	value("limits.max_target_time", "max-target-time", file.Limits.MaxTargetTime, fl.MaxTargetTime,
		func(s string) (err error) { l.MaxTargetTime, err = parseBudgetTime(s); return err })
	count := func(key, flag string, fromFile, fromFlag int, into *int) {
		if file.src.sets(key) || fromFile != 0 {
			if fromFile <= 0 {
				errs = append(errs, file.src.errorf(key, "%s %d: want a positive number", key, fromFile))
			}
			*into = fromFile
		}
		if fl.changed(flag) {
			if fromFlag <= 0 {
				errs = append(errs, fmt.Errorf("--%s %d: want a positive number", flag, fromFlag))
			}
			*into = fromFlag
		}
	}
	count("limits.max_depth", "max-depth", file.Limits.MaxDepth, fl.MaxDepth, &l.MaxDepth)
	count("limits.max_alias_nodes", "max-alias-nodes", file.Limits.MaxAliasNodes, fl.MaxAliasNodes, &l.MaxAliasNodes)
	return l, errors.Join(errs...)
}

// checkExcludes refuses exclude patterns that are not valid doublestar
// patterns: such a pattern matches nothing, so the files it was meant to
// skip would be checked without a word.
func checkExcludes(file *File, fl *Flags) []error {
	var errs []error
	for i, p := range file.Exclude {
		if !doublestar.ValidatePattern(p) {
			errs = append(errs, file.src.errorf(fmt.Sprintf("exclude[%d]", i), "exclude %q: not a valid pattern (doublestar syntax, e.g. 'charts/**')", p))
		}
	}
	for _, p := range fl.Exclude {
		if !doublestar.ValidatePattern(p) {
			errs = append(errs, fmt.Errorf("--exclude %q: not a valid pattern (doublestar syntax, e.g. 'charts/**')", p))
		}
	}
	return errs
}

// checkIncludes refuses include patterns that are not valid doublestar
// patterns, for the same reason as checkExcludes.
func checkIncludes(file *File) []error {
	var errs []error
	for i, p := range file.Include {
		if !doublestar.ValidatePattern(p) {
			errs = append(errs, file.src.errorf(fmt.Sprintf("include[%d]", i), "include %q: not a valid pattern (doublestar syntax, e.g. 'testdata/**')", p))
		}
	}
	return errs
}

// parseBudgetTime reads a time budget: a Go duration such as 90s or 2m.
func parseBudgetTime(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("duration %q: want a positive duration such as 90s or 2m", s)
	}
	return d, nil
}
