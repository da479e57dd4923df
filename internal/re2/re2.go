// Package re2 explains why a regular expression written for another engine
// does not compile with Go's RE2, so that every engine of plumb (inspection
// rules, checks, KubeVirt rules, reference inline diffs) says what to
// change instead of quoting Go's parser.
package re2

import "strings"

// lookAround are the look-ahead and look-behind openings of PCRE, Python
// and JavaScript.
var lookAround = []string{"(?=", "(?!", "(?<=", "(?<!"}

// Hint returns what to change in pattern when RE2 rejected it, with a
// leading space, or "" when there is nothing specific to say.
func Hint(pattern string) string {
	for _, la := range lookAround {
		if strings.Contains(pattern, la) {
			return " (RE2 has no look-ahead or look-behind such as " + la + "...): " +
				"rewrite the pattern without it, for example by testing the excluded case separately)"
		}
	}
	if hasBackReference(pattern) {
		return " (RE2 has no back-references such as \\1: match the repeated text explicitly)"
	}
	if strings.Contains(pattern, "(?>") || strings.Contains(pattern, "*+") || strings.Contains(pattern, "++") {
		return " (RE2 has no atomic groups or possessive quantifiers: use a plain group or quantifier)"
	}
	return ""
}

// hasBackReference reports whether pattern has \1 ... \9 outside a
// character class.
func hasBackReference(pattern string) bool {
	inClass := false
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\' && i+1 < len(pattern):
			if !inClass && pattern[i+1] >= '1' && pattern[i+1] <= '9' {
				return true
			}
			i++
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		}
	}
	return false
}
