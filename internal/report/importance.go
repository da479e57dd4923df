package report

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/plumb-ci/plumb/internal/finding"
)

// Sinks that must leave findings out (GitHub's caps on annotations, SARIF
// results and comment sizes) keep the most important ones. Importance is:
// unsuppressed before suppressed, findings present at head before fixed ones,
// problems with plumb's own inputs first, then input errors, then new before unchanged (in pull-request mode the
// summary leads with what the change introduced), then by level (errors
// first), and finally the report order, so the choice is deterministic.
func compareImportance(a, b *finding.Finding) int {
	if c := cmp.Compare(rankSuppressed(a), rankSuppressed(b)); c != 0 {
		return c
	}
	if c := cmp.Compare(rankFixed(a), rankFixed(b)); c != 0 {
		return c
	}
	if a.ConfigError != b.ConfigError {
		if a.ConfigError {
			return -1
		}
		return 1
	}
	if a.InputError != b.InputError {
		if a.InputError {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(rankStatus(a.Status), rankStatus(b.Status)); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Level, b.Level); c != 0 {
		return c
	}
	return finding.Compare(a, b)
}

func rankSuppressed(f *finding.Finding) int {
	if f.Suppressed != nil {
		return 1
	}
	return 0
}

func rankFixed(f *finding.Finding) int {
	if f.Status == finding.StatusFixed {
		return 1
	}
	return 0
}

func rankStatus(s string) int {
	switch s {
	case finding.StatusNew:
		return 0
	case "":
		return 1
	case finding.StatusUnchanged:
		return 2
	}
	return 3
}

// CompareImportance orders two findings most important first.
func CompareImportance(a, b *finding.Finding) int { return compareImportance(a, b) }

// ByImportance returns pointers to the findings that keep returns true for
// (all when keep is nil), most important first.
func ByImportance(fs []finding.Finding, keep func(*finding.Finding) bool) []*finding.Finding {
	return byImportance(fs, keep)
}

// IsOpen reports whether a finding asks for action: not suppressed and
// still present at head.
func IsOpen(f *finding.Finding) bool { return isOpen(f) }

func byImportance(fs []finding.Finding, keep func(*finding.Finding) bool) []*finding.Finding {
	out := make([]*finding.Finding, 0, len(fs))
	for i := range fs {
		if keep == nil || keep(&fs[i]) {
			out = append(out, &fs[i])
		}
	}
	slices.SortStableFunc(out, compareImportance)
	return out
}

// isOpen reports whether a finding is one to act on: not suppressed and
// still present at head.
func isOpen(f *finding.Finding) bool {
	return f.Suppressed == nil && f.Status != finding.StatusFixed
}

// truncateRunes cuts s to at most n runes, marking the cut with an ellipsis.
func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	runes := []rune(s)
	return strings.TrimRight(string(runes[:n-1]), " ") + "…"
}
