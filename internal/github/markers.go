package github

import (
	"regexp"
	"strings"
)

// plumb finds its own comments again by hidden HTML comments. A comment is
// plumb's only when the markers sit where plumb puts them — the first line,
// and for review comments also the last — so quoting one in a reply does
// not make the reply plumb's (and plumb never edits or deletes it).
const (
	summaryMarker = "<!-- plumb:summary -->"
	findingMarker = "<!-- plumb:finding -->"
	reviewMarker  = "<!-- plumb:review -->"
)

var fingerprintMarker = regexp.MustCompile(`\n<!-- plumb:fingerprint=([0-9a-f]{8,64}) -->$`)

// findingCommentBody wraps a finding's Markdown with the markers.
func findingCommentBody(markdown, fingerprint string) string {
	return findingMarker + "\n" + markdown + "\n\n<!-- plumb:fingerprint=" + fingerprint + " -->"
}

// commentFingerprint returns the fingerprint of one of plumb's review
// comments, "" for anyone else's.
func commentFingerprint(body string) string {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	if !strings.HasPrefix(body, findingMarker+"\n") {
		return ""
	}
	m := fingerprintMarker.FindStringSubmatch(strings.TrimRight(body, "\n"))
	if m == nil {
		return ""
	}
	return m[1]
}

// isSummary reports whether an issue comment is plumb's summary comment.
func isSummary(body string) bool {
	return strings.HasPrefix(body, summaryMarker)
}
