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
	fingerprintMarker = regexp.MustCompile(`\n<!-- plumb:fingerprint=([0-9a-f]{8,64}) -->$`)
	// listedMarker ends a line of a review body that lists a finding.
	listedMarker = regexp.MustCompile(`<!-- plumb:listed=([0-9a-f]{8,64}) -->$`)
	// suggestionFence opens a GitHub suggested change.
	suggestionFence = regexp.MustCompile("(?m)^```+suggestion$")
)

// findingCommentBody wraps a finding's Markdown with the markers.
func findingCommentBody(markdown, fingerprint string) string {
	return findingMarker + "\n" + markdown + "\n\n<!-- plumb:fingerprint=" + fingerprint + " -->"
}

// commentFingerprint returns the fingerprint of one of plumb's review
// comments, "" for anyone else's.
func commentFingerprint(body string) string {
	body = normalizeNewlines(body)
	if !strings.HasPrefix(body, findingMarker+"\n") {
		return ""
	}
	m := fingerprintMarker.FindStringSubmatch(strings.TrimRight(body, "\n"))
	if m == nil {
		return ""
	}
	return m[1]
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
			out = append(out, m[1])
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
