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
	if file.Limits.MaxFileSize != "" {
		n, err := ParseSize(file.Limits.MaxFileSize)
		if err != nil {
			errs = append(errs, file.src.errorf("limits.max_file_size", "limits.max_file_size: %v", err))
		}
		l.MaxFileBytes = n
	}
	if fl.changed("max-file-size") {
		n, err := ParseSize(fl.MaxFileSize)
		if err != nil {
			errs = append(errs, fmt.Errorf("--max-file-size: %w", err))
		}
		l.MaxFileBytes = n
	}
	if file.Limits.MaxTargetSize != "" {
		n, err := ParseSize(file.Limits.MaxTargetSize)
		if err != nil {
			errs = append(errs, file.src.errorf("limits.max_target_size", "limits.max_target_size: %v", err))
		}
		l.MaxTargetBytes = n
	}
	if fl.changed("max-target-size") {
		n, err := ParseSize(fl.MaxTargetSize)
		if err != nil {
			errs = append(errs, fmt.Errorf("--max-target-size: %w", err))
		}
		l.MaxTargetBytes = n
	}
	if file.Limits.MaxTargetTime != "" {
		d, err := parseBudgetTime(file.Limits.MaxTargetTime)
		if err != nil {
			errs = append(errs, file.src.errorf("limits.max_target_time", "limits.max_target_time: %v", err))
		}
		l.MaxTargetTime = d
	}
	if fl.changed("max-target-time") {
		d, err := parseBudgetTime(fl.MaxTargetTime)
		if err != nil {
			errs = append(errs, fmt.Errorf("--max-target-time: %w", err))
		}
		l.MaxTargetTime = d
	}
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

// parseBudgetTime reads a time budget: a Go duration such as 90s or 2m.
func parseBudgetTime(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("duration %q: want a positive duration such as 90s or 2m", s)
	}
	return d, nil
}
