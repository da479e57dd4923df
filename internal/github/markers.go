package github

import (
	"regexp"
	"strings"
)

// plumb finds its own comments again by hidden HTML comments. A comment is
// plumb's only when the token's own account wrote it (see learnSelf) and
// the markers sit where plumb puts them — the first line, and for review
// comments also the last — so quoting one in a reply does not make the
// reply plumb's (and plumb never edits or deletes it).
const (
	summaryMarker = "<!-- plumb:summary -->"
	findingMarker = "<!-- plumb:finding -->"
	reviewMarker  = "<!-- plumb:review -->"
	// fixedMarker starts plumb's "fixed in" reply in a thread.
	fixedMarker = "<!-- plumb:fixed -->"
)

var (
	// fingerprintMarker ends a review comment: the fingerprints of the
	// findings it is about (several when they read alike in several render
	// targets, a base shared by overlays).
	fingerprintMarker = regexp.MustCompile(`\n<!-- plumb:fingerprint=([0-9a-f]{8,64}(?:,[0-9a-f]{8,64})*) -->$`)
	// listedMarker ends a line of a review body that lists findings.
	listedMarker = regexp.MustCompile(`<!-- plumb:listed=([0-9a-f]{8,64}(?:,[0-9a-f]{8,64})*) -->$`)
	// fingerprintLike is a fingerprint as plumb makes them (lowercase
	// hex), which its markers can carry.
	fingerprintLike = regexp.MustCompile(`^[0-9a-f]{8,64}$`)
	// suggestionFence opens a GitHub suggested change.
	suggestionFence = regexp.MustCompile("(?m)^```+suggestion$")
)

// findingCommentBody wraps the Markdown about findings with the markers.
func findingCommentBody(markdown string, fingerprints []string) string {
	return findingMarker + "\n" + markdown + "\n\n<!-- plumb:fingerprint=" + strings.Join(fingerprints, ",") + " -->"
}

// commentFingerprints returns the fingerprints of one of plumb's review
// comments, none for anyone else's.
func commentFingerprints(body string) []string {
	body = normalizeNewlines(body)
	if !strings.HasPrefix(body, findingMarker+"\n") {
		return nil
	}
	m := fingerprintMarker.FindStringSubmatch(strings.TrimRight(body, "\n"))
	if m == nil {
		return nil
	}
	return strings.Split(m[1], ",")
}

// commentFingerprint returns the first fingerprint of one of plumb's
// review comments, "" for anyone else's.
func commentFingerprint(body string) string {
	if fps := commentFingerprints(body); len(fps) > 0 {
		return fps[0]
	}
	return ""
}

// listedFingerprints returns the findings one of plumb's review bodies
// lists.
func listedFingerprints(body string) []string {
	body = normalizeNewlines(body)
	if !strings.HasPrefix(body, reviewMarker+"\n") {
		return nil
	}
	var out []string
	for _, line := range strings.Split(body, "\n") {
		if m := listedMarker.FindStringSubmatch(line); m != nil {
			out = append(out, strings.Split(m[1], ",")...)
		}
	}
	return out
}

// isSummary reports whether an issue comment is plumb's summary comment.
func isSummary(body string) bool {
	return strings.HasPrefix(body, summaryMarker)
}

// isFixedReply reports whether a reply is plumb's "fixed in" reply.
func isFixedReply(body string) bool {
	return strings.HasPrefix(normalizeNewlines(body), fixedMarker+"\n")
}

// hasSuggestion reports whether a comment carries a suggested change.
func hasSuggestion(body string) bool {
	return suggestionFence.MatchString(normalizeNewlines(body))
}
