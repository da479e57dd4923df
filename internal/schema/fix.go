package schema

import (
	"slices"
	"strconv"
	"strings"

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

// unquoteFix writes the number a string holds as a number: an integer,
// or for number fields any decimal number. Only a plain decimal is a
// number for certain: "5s" and "" are not, and "1e3", "+5", "0x1F",
// "NaN" or "010" (octal to YAML 1.1, which kubectl reads) would be a
// guess at what was meant; "1.5" is no integer.
func unquoteFix(p manifest.Path, s string, anyNumber bool) *finding.Fix {
	whole, ok := plainDecimal(s)
	switch {
	case !ok:
		return nil
	case whole:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return setFix(p, n, "write "+s+" without quotes")
		}
	case anyNumber:
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return setFix(p, f, "write "+s+" without quotes")
		}
	}
	return nil
}

// plainDecimal reports whether s is a decimal number as people write one
// (an optional minus, digits without a leading zero, an optional
// fraction), and whether it is whole.
func plainDecimal(s string) (whole, ok bool) {
	s = strings.TrimPrefix(s, "-")
	intPart, frac, hasFrac := strings.Cut(s, ".")
	if !digits(intPart) || len(intPart) > 1 && intPart[0] == '0' || hasFrac && !digits(frac) {
		return false, false
	}
	return !hasFrac, true
}

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
