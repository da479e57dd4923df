package github

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"

	gogithub "github.com/google/go-github/v60/github"

	"github.com/plumb-ci/plumb/internal/finding"
)

// A patch as GitHub's files API returns it: two hunks of one file.
const samplePatch = `@@ -1,4 +1,5 @@
 apiVersion: apps/v1
 kind: Deployment
-metadata: {}
+metadata:
+  name: web
 spec:
@@ -20,3 +21,4 @@ spec:
       containers:
       - name: web
+        image: web:latest
         ports:
\ No newline at end of file`

func TestParsePatch(t *testing.T) {
	hunks, err := ParsePatch(samplePatch)
	if err != nil {
		t.Fatal(err)
	}
	if len(hunks) != 2 || hunks[0].NewStart != 1 || hunks[0].NewLines != 5 || hunks[1].NewStart != 21 {
		t.Fatalf("hunks = %+v", hunks)
	}
	d := NewDiff([]*FileDiff{{Path: "web.yaml", Hunks: hunks}})
	for _, c := range []struct {
		line    int
		inHunk  bool
		changed bool
	}{
		{1, true, false}, {3, true, true}, {4, true, true}, {5, true, false}, {6, false, false},
		{20, false, false}, {21, true, false}, {23, true, true}, {24, true, false}, {25, false, false},
	} {
		_, ok := d.Anchor("web.yaml", c.line, 0)
		if ok != c.inHunk {
			t.Errorf("line %d: in a hunk = %v, want %v", c.line, ok, c.inHunk)
		}
		if got := d.Changed("web.yaml", c.line); got != c.changed {
			t.Errorf("line %d: changed = %v, want %v", c.line, got, c.changed)
		}
	}
}

func TestAnchorMultiLineOnlyWithinOneHunk(t *testing.T) {
	hunks, _ := ParsePatch(samplePatch)
	d := NewDiff([]*FileDiff{{Path: "web.yaml", Hunks: hunks}})
	if a, ok := d.Anchor("web.yaml", 3, 5); !ok || a.StartLine != 3 || a.Line != 5 {
		t.Errorf("3-5 in one hunk: %+v %v", a, ok)
	}
	// 4..23 spans two hunks: a one-line comment at the first line.
	if a, ok := d.Anchor("web.yaml", 4, 23); !ok || a.StartLine != 0 || a.Line != 4 {
		t.Errorf("4-23 across hunks: %+v %v", a, ok)
	}
	// The first line is outside every hunk: no comment, even though the
	// end is inside one.
	if _, ok := d.Anchor("web.yaml", 8, 21); ok {
		t.Error("a finding starting outside the diff was anchored")
	}
	if _, ok := d.Anchor("other.yaml", 1, 0); ok {
		t.Error("a file the pull request does not change was anchored")
	}
	if _, ok := d.Anchor("web.yaml", 0, 0); ok {
		t.Error("line 0 was anchored")
	}
}

func TestParsePatchRejectsGarbage(t *testing.T) {
	for name, patch := range map[string]string{
		"content before a hunk": "hello\n@@ -1 +1 @@\n+x",
		"bad header":            "@@ -1 +x,2 @@\n+x",
		"short header":          "@@ -1\n+x",
		"unknown line":          "@@ -1 +1 @@\n*x",
	} {
		if _, err := ParsePatch(patch); err == nil || !strings.Contains(err.Error(), "patch line") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	// Headers that lie about the lines they show, or that go back up the
	// file, would put comments on lines GitHub does not show.
	for patch, want := range map[string]string{
		"@@ -1 +-5,2 @@\n+a\n+b":                           `patch line 1: malformed hunk header "@@ -1 +-5,2 @@" (want "@@ -start,count +start,count @@"): the start "-5" is not a line number`,
		"@@ -1 +1,-3 @@\n+a":                               `the count "-3" is not a number of lines`,
		"@@ -1 +9223372036854775807,3 @@\n+a\n+b\n+c":      `the start "9223372036854775807" is not a line number`,
		"@@ -0,0 +0,2 @@\n+a\n+b":                          `a range of 2 lines cannot start at line 0`,
		"@@ -1 +1 x @@\n-a\n+b":                            `malformed hunk header`,
		"@@ -1,1 +1,1 @@\n+a\n+b":                          "patch line 3: the hunk at line 1 shows more lines than its header declares",
		"@@ -1,2 +1,2 @@\n a\n-b\n+c\n d":                  "patch line 5: the hunk at line 1 shows more lines than its header declares",
		"@@ -1,3 +1,3 @@\n a\n b\n@@ -9 +9 @@\n x":         "patch line 1: the hunk shows fewer lines than its header declares (1 old and 1 new lines missing)",
		"@@ -1,2 +1,2 @@\n a\n b\n@@ -2,2 +2,2 @@\n b\n c": "patch line 4: the hunk starts at line 2, before the end of the previous hunk (line 3)",
		"@@ -10 +10 @@\n a\n@@ -1 +1 @@\n b":               "patch line 3: the hunk starts at line 1, before the end of the previous hunk (line 11)",
	} {
		if _, err := ParsePatch(patch); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", patch, err, want)
		}
	}
	// A whole git diff (with headers) and an empty patch are fine.
	if h, err := ParsePatch("diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+new"); err != nil || len(h) != 1 || !h[0].right[1] {
		t.Errorf("git diff: %v %v", h, err)
	}
	if h, err := ParsePatch(""); err != nil || len(h) != 0 {
		t.Errorf("empty: %v %v", h, err)
	}
}

// GNU diff writes an empty context line as an empty line, not " ": it is
// still a line of the file, and the lines after it keep their numbers.
func TestParsePatchEmptyContextLine(t *testing.T) {
	hunks, err := ParsePatch("@@ -1,4 +1,4 @@\n a\n\n-b\n+B\n c\n")
	if err != nil {
		t.Fatal(err)
	}
	d := NewDiff([]*FileDiff{{Path: "f", Hunks: hunks}})
	for line, changed := range map[int]bool{1: false, 2: false, 3: true, 4: false} {
		if _, ok := d.Anchor("f", line, 0); !ok {
			t.Errorf("line %d is not shown", line)
		}
		if d.Changed("f", line) != changed {
			t.Errorf("line %d: changed = %v, want %v", line, !changed, changed)
		}
	}
	if _, ok := d.Anchor("f", 5, 0); ok {
		t.Error("line 5 is past the hunk")
	}
}

// git's blob id, as `git hash-object` prints it.
func TestBlobID(t *testing.T) {
	if got := BlobID([]byte("hello\n")); got != "ce013625030ba8dba906f756967f9e9ca394464a" {
		t.Errorf("BlobID = %s", got)
	}
}

// A changed file whose checkout is not the head's version (the merge with
// a base branch that changed it too) loses its hunks: nothing is anchored
// on lines that may not be the head's.
func TestDropStaleFiles(t *testing.T) {
	hunks := func() []Hunk { return mustHunks(t, patchAdding(1, 5)) }
	checkout := map[string]string{"same.yaml": "a: 1\n", "merged.yaml": "a: 2\nb: 3\n", "unknown.yaml": "x\n"}
	d := NewDiff([]*FileDiff{
		{Path: "same.yaml", Hunks: hunks(), SHA: BlobID([]byte("a: 1\n"))},
		{Path: "merged.yaml", Hunks: hunks(), SHA: BlobID([]byte("a: 2\n"))},
		{Path: "gone.yaml", Hunks: hunks(), SHA: BlobID([]byte("z\n"))},   // not in the checkout
		{Path: "locked.yaml", Hunks: hunks(), SHA: BlobID([]byte("z\n"))}, // unreadable
		{Path: "unknown.yaml", Hunks: hunks()},                            // no blob id from the API
	})
	stale := d.DropStale(func(p string) ([]byte, error) {
		if p == "locked.yaml" {
			return nil, fs.ErrPermission
		}
		c, ok := checkout[p]
		if !ok {
			return nil, fmt.Errorf("%s: %w", p, fs.ErrNotExist)
		}
		return []byte(c), nil
	})
	if fmt.Sprint(stale) != "[locked.yaml merged.yaml]" {
		t.Errorf("stale %v", stale)
	}
	for path, anchored := range map[string]bool{"same.yaml": true, "merged.yaml": false, "locked.yaml": false, "gone.yaml": true, "unknown.yaml": true} {
		if _, ok := d.Anchor(path, 2, 0); ok != anchored {
			t.Errorf("%s: anchored %v, want %v", path, ok, anchored)
		}
	}
}

// plumb's earlier comments in a stale file stay: this run cannot tell
// where the findings are.
func TestCommentsInStaleFilesAreKept(t *testing.T) {
	f := mkFinding("merged.yaml", 2, "check/A")
	d := NewDiff([]*FileDiff{{Path: "merged.yaml", Hunks: mustHunks(t, patchAdding(1, 5)), SHA: BlobID([]byte("head\n"))}})
	d.DropStale(func(string) ([]byte, error) { return []byte("merged\n"), nil })
	body := findingCommentBody("x", []string{f.Fingerprint})
	path := "merged.yaml"
	existing := []*gogithub.PullRequestComment{{ID: gogithub.Int64(1), Body: &body, Path: &path, Line: gogithub.Int(2)}}
	plan := planReview(planInput{findings: []*finding.Finding{f}, diff: d, existing: existing, max: 10})
	if len(plan.create) != 0 || len(plan.delete) != 0 || plan.result.OutsideDiff != 1 {
		t.Errorf("plan %+v", plan)
	}
}
