package re2

import (
	"regexp"
	"strings"
	"testing"
)

func TestHint(t *testing.T) {
	for pattern, want := range map[string]string{
		"q(?!35)":     "look-ahead or look-behind such as (?!...)",
		"(?<=x)y":     "look-ahead or look-behind such as (?<=...)",
		"a(?=b)":      "look-ahead or look-behind such as (?=...)",
		`(a)\1`:       "back-references",
		"(?>ab)c":     "atomic groups",
		"a++":         "atomic groups",
		"[":           "",
		`[\1]`:        "",
		`\\1 literal`: "",
	} {
		got := Hint(pattern)
		if want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("Hint(%q) = %q, want it to say %q", pattern, got, want)
		}
		if _, err := regexp.Compile(pattern); err == nil && got != "" {
			t.Errorf("Hint(%q) explains a pattern RE2 accepts", pattern)
		}
	}
}
