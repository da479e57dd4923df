package report

import (
	"github.com/plumb-ci/plumb/internal/finding"
)

// PushFingerprintLen is how many hex digits of a finding's fingerprint
// the record of a push keeps: the same identity the base comparison uses
// (rule, object with its target, field path), cut to 64 bits so that the
// record stays small. Two findings of one pull request sharing 64 bits by
// chance is not a case worth bytes.
const PushFingerprintLen = 16

// ChangeProblems are what one head's change did against its base, as the
// summary comment records it for the next push: the problems it
// introduced (status new) and those of the base it fixed. Each problem is
// the fingerprints of its findings alike (a base shared by overlays), cut
// to PushFingerprintLen. Only the change is recorded, not the backlog
// already on the base: the record stays small however large the backlog.
type ChangeProblems struct {
	New, Fixed [][]string
}

// PushDelta is what a push did compared with the previous head: problems
// open at the previous head and gone now (Fixed), and problems open now
// that were not open then (Introduced). Counted as the summary counts:
// findings alike in several targets are one problem.
type PushDelta struct {
	Fixed, Introduced int
}

// ChangeProblemsOf records the change's problems of a report.
func ChangeProblemsOf(r *Report) ChangeProblems {
	var cp ChangeProblems
	open, fixed := openAndFixedGroups(r)
	for _, g := range open {
		if fps := pushFingerprints(g); g.Status == finding.StatusNew && len(fps) > 0 {
			cp.New = append(cp.New, fps)
		}
	}
	for _, g := range fixed {
		if fps := pushFingerprints(g); len(fps) > 0 {
			cp.Fixed = append(cp.Fixed, fps)
		}
	}
	return cp
}

// SinceLastPush compares the report's head with the previous head's
// record. What the previous head had open is known from its record and
// the base: its new problems, plus the base's problems except those it
// fixed. So:
//
//   - introduced: a problem open now that the previous head had fixed, or
//     one new now that was not new then;
//   - fixed: a problem new at the previous head that is open no more, or
//     one of the base fixed now that the previous head had not fixed (nor
//     introduced).
//
// The second half of each assumes the base did not move between the
// pushes; the caller says so when it did.
func SinceLastPush(r *Report, prev ChangeProblems) PushDelta {
	open, fixed := openAndFixedGroups(r)
	prevNew, prevFixed := fingerprintSet(prev.New), fingerprintSet(prev.Fixed)
	openNow := map[string]bool{}
	for _, g := range open {
		for _, fp := range pushFingerprints(g) {
			openNow[fp] = true
		}
	}
	var d PushDelta
	for _, g := range open {
		fps := pushFingerprints(g)
		if len(fps) == 0 {
			continue
		}
		if anyIn(fps, prevFixed) || (g.Status == finding.StatusNew && !anyIn(fps, prevNew)) {
			d.Introduced++
		}
	}
	for _, fps := range prev.New {
		if len(fps) > 0 && !anyIn(fps, openNow) {
			d.Fixed++
		}
	}
	for _, g := range fixed {
		fps := pushFingerprints(g)
		if len(fps) > 0 && !anyIn(fps, prevFixed) && !anyIn(fps, prevNew) {
			d.Fixed++
		}
	}
	return d
}

// openAndFixedGroups are the report's open and fixed problems, grouped as
// the summary groups them.
func openAndFixedGroups(r *Report) (open, fixed []annotation) {
	var fixedFs []*finding.Finding
	for i := range r.Findings {
		if f := &r.Findings[i]; f.Suppressed == nil && f.Status == finding.StatusFixed {
			fixedFs = append(fixedFs, f)
		}
	}
	return groupAlike(byImportance(r.Findings, isOpen)), groupAlike(fixedFs)
}

// pushFingerprints are a problem's fingerprints as a push record keeps
// them. A finding without a fingerprint plumb makes (lowercase hex, as
// finding.Fingerprint writes) has no identity across pushes: a report
// posted from a fork's artifact is not trusted, and what it says goes into
// a hidden line of the comment.
func pushFingerprints(g annotation) []string {
	out := make([]string, 0, 1+len(g.alike))
	for _, f := range append([]*finding.Finding{g.Finding}, g.alike...) {
		if fp := f.Fingerprint; len(fp) >= PushFingerprintLen && isLowerHex(fp[:PushFingerprintLen]) {
			out = append(out, fp[:PushFingerprintLen])
		}
	}
	return out
}

func isLowerHex(s string) bool {
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func fingerprintSet(groups [][]string) map[string]bool {
	set := map[string]bool{}
	for _, g := range groups {
		for _, fp := range g {
			set[fp] = true
		}
	}
	return set
}

func anyIn(fps []string, set map[string]bool) bool {
	for _, fp := range fps {
		if set[fp] {
			return true
		}
	}
	return false
}
