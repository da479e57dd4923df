package schema

import (
	"slices"
	"strconv"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// Fixes for the problems whose correction is certain; the pipeline's fix
// stage turns them into source edits (suggested changes, plumb fix) where
// the edit is exact. A guess is no fix: an unknown field gets one only
// when a known name is close, a value outside a fixed set only when it
// differs from an accepted one in case, and a number where a string goes
// none (YAML has already lost how it was written: 1.10 reads as 1.1).

// renameFix renames the misspelt key at p to name, unless the mapping m
// that holds it has that key already (the rename would duplicate it).
func renameFix(p manifest.Path, name string, m map[string]any) *finding.Fix {
	if _, has := m[name]; has {
		return nil
	}
	return &finding.Fix{Description: "rename " + p[len(p)-1].Key + " to " + name,
		Changes: []finding.Change{{Op: finding.ChangeRename, Path: slices.Clone(p), To: name}}}
}

// setFix gives the field at p the value v.
func setFix(p manifest.Path, v any, description string) *finding.Fix {
	return &finding.Fix{Description: description, Changes: []finding.Change{{Op: finding.ChangeSet, Path: slices.Clone(p), Value: v}}}
}

// unquoteFix writes the number a string holds as a number: an integer, or
// for number fields any number.
func unquoteFix(p manifest.Path, s string, anyNumber bool) *finding.Fix {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return setFix(p, n, "write "+s+" without quotes")
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil && anyNumber {
		return setFix(p, f, "write "+s+" without quotes")
	}
	return nil
}
