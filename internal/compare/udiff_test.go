package compare

import (
	"fmt"
	"strings"
	"testing"
)

// The expected hunks are what GNU diff -u prints for the same texts.
func TestUnifiedDiffMatchesDiffU(t *testing.T) {
	cases := []struct{ a, b, want string }{
		{"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\n", "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nN\n",
			"@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n d\n e\n@@ -11,4 +11,4 @@\n k\n l\n m\n-n\n+N\n"},
		{"x\ny\n", "new\nx\ny\n", "@@ -1,2 +1,3 @@\n+new\n x\n y\n"},
		{"x\ny\nz\n", "x\n", "@@ -1,3 +1 @@\n x\n-y\n-z\n"},
		{"", "x\ny\n", "@@ -0,0 +1,2 @@\n+x\n+y\n"},
		// Changes closer than twice the context share one hunk.
		{"a\nb\nc\nd\ne\nf\ng\nh\n", "a\nB\nc\nd\ne\nf\nG\nh\n", "@@ -1,8 +1,8 @@\n a\n-b\n+B\n c\n d\n e\n f\n-g\n+G\n h\n"},
		{"same\n", "same\n", ""},
	}
	for _, c := range cases {
		if got := unifiedDiff(lineDiff(c.a, c.b), ""); got != c.want {
			t.Errorf("diff of %q and %q:\n%s\nwant:\n%s", c.a, c.b, got, c.want)
		}
	}
}

// More distinct lines than runes below the UTF-16 surrogate range: go-diff's
// line encoding skips the surrogates, so every line keeps its identity.
func TestLineDiffManyDistinctLines(t *testing.T) {
	var a strings.Builder
	for i := 0; i < 60_000; i++ {
		fmt.Fprintf(&a, "line %d\n", i)
	}
	b := strings.Replace(a.String(), "line 59998\n", "changed\n", 1)
	b = strings.Replace(b, "line 55300\n", "also changed\n", 1)
	want := "@@ -55298,7 +55298,7 @@\n line 55297\n line 55298\n line 55299\n-line 55300\n+also changed\n line 55301\n line 55302\n line 55303\n" +
		"@@ -59996,5 +59996,5 @@\n line 59995\n line 59996\n line 59997\n-line 59998\n+changed\n line 59999\n"
	if got := unifiedDiff(lineDiff(a.String(), b), ""); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestDiffScore(t *testing.T) {
	// kube-compare's examples: a changed suffix scores its characters, a
	// missing line its length.
	if got := diffScore("name: dashboard-metrics-scraper\n", "name: dashboard-metrics-scraper-diff\n"); got != 5 {
		t.Errorf("score %d, want 5", got)
	}
	if got := diffScore("a: 1\n  name: Name\n", "a: 1\n"); got != 13 {
		t.Errorf("score %d, want 13", got)
	}
	if diffScore("x", "x") != 0 {
		t.Error("equal texts score 0")
	}
}
