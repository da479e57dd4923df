package fix

import (
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// MaskSecretLines returns a file's text with the values of its documents'
// credentials (manifest.SecretPaths: a Secret's data, a credential
// environment variable's value, ...) replaced by manifest.Redacted, for
// printing a diff of the file: its context lines are the file's, and an
// edit never replaces a credential's line, so the masked texts of a file
// before and after its edits differ exactly as the texts do. A file that
// does not parse is returned with its credential-shaped text redacted
// only.
func MaskSecretLines(name, text string) string {
	docs, _ := manifest.Parse(name, []byte(text), manifest.DefaultLimits)
	lines := strings.SplitAfter(text, "\n")
	for _, d := range docs {
		objs, _ := d.Objects("")
		for _, o := range objs {
			for _, p := range manifest.SecretPaths(o.Content) {
				if loc, ok := o.Locate(p); ok && loc.File == name {
					maskLines(lines, loc, lastKey(p))
				}
			}
		}
	}
	masked, _ := manifest.RedactCredentialShapes(strings.Join(lines, ""))
	return masked
}

// lastKey is the key a path ends in ("" for a list index).
func lastKey(p manifest.Path) string {
	if len(p) == 0 {
		return ""
	}
	return p[len(p)-1].Key
}

// maskLines replaces a value from its first column (past its key, when the
// location is the key's) to the end of its first line, and its
// continuation lines (a block scalar) whole but for their indentation.
func maskLines(lines []string, loc manifest.Location, key string) {
	for l := loc.Line; l <= max(loc.Line, loc.EndLine) && l >= 1 && l <= len(lines); l++ {
		line := lines[l-1]
		body, nl := strings.CutSuffix(line, "\n")
		start := len(body) - len(strings.TrimLeft(body, " \t"))
		if l == loc.Line && loc.Column > 0 && loc.Column-1 < len(body) {
			start = loc.Column - 1
			if rest, ok := strings.CutPrefix(body[start:], key+":"); ok && key != "" {
				start = len(body) - len(strings.TrimLeft(rest, " \t"))
			}
		}
		if start >= len(body) {
			continue
		}
		line = body[:start] + manifest.Redacted
		if nl {
			line += "\n"
		}
		lines[l-1] = line
	}
}
