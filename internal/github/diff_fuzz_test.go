package github

import (
	"strings"
	"testing"
)

// FuzzParsePatch feeds arbitrary patch texts to the hunk parser. A patch
// that parses must describe lines that exist: every line a hunk shows is
// inside the new-side range its header declares (so at least 1), added
// lines are shown lines, and hunks come in file order without overlapping.
// Anchors found from such a diff are always on shown lines of one hunk.
func FuzzParsePatch(f *testing.F) {
	for _, seed := range []string{
		samplePatch,
		"@@ -0,0 +1 @@\n+new",
		"@@ -0,0 +1,3 @@\n+a\n+b\n+c\n",
		"@@ -1,3 +0,0 @@\n-a\n-b\n-c",
		"@@ -1,3 +1,3 @@\n a\n\n c\n",
		"diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n",
		"@@ -5,2 +5,2 @@ func f() {\n-x\n+y\n z\n\\ No newline at end of file\n",
		// Hostile headers: negative and huge starts, counts that lie.
		"@@ -1 +-5,2 @@\n+a\n+b",
		"@@ -1 +9223372036854775807,3 @@\n+a\n+b\n+c",
		"@@ -1,1 +1,1 @@\n+a\n+b\n+c\n+d",
		"@@ -10,2 +10,2 @@\n a\n b\n@@ -1,2 +1,2 @@\n a\n b",
		"@@ -1,2 +1,2 @@\n a\n b\n@@ -2,2 +2,2 @@\n b\n c",
		"@@ -1 +1,-3 @@\n+a",
		"@@@ -1,1 -1,1 +1,1 @@@\n  a",
		"@@ +1 -1 @@\n+x",
		"@@ -1 +1\n+x",
		"@@\n+x",
		"+x\n@@ -1 +1 @@\n+x",
		"@@ -1 +1 @@\r\n+x\r\n",
		strings.Repeat("@@ -1 +1 @@\n+x\n", 50),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, patch string) {
		hunks, err := ParsePatch(patch)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "patch line ") {
				t.Fatalf("error without the patch line: %v", err)
			}
			return
		}
		end := 0 // the line after the previous hunk
		for i, h := range hunks {
			if h.NewLines < 0 || h.NewStart < 0 {
				t.Fatalf("hunk %d: header +%d,%d is negative", i, h.NewStart, h.NewLines)
			}
			if h.NewStart < end {
				t.Fatalf("hunk %d starts at line %d, inside or before the previous hunk (which ends before %d)", i, h.NewStart, end)
			}
			for l := range h.right {
				if l < 1 || l < h.NewStart || l >= h.NewStart+h.NewLines {
					t.Fatalf("hunk %d (+%d,%d) shows line %d, outside its range", i, h.NewStart, h.NewLines, l)
				}
			}
			for l := range h.added {
				if !h.right[l] {
					t.Fatalf("hunk %d adds line %d but does not show it", i, l)
				}
			}
			end = h.NewStart + h.NewLines
		}
		d := NewDiff([]*FileDiff{{Path: "f.yaml", Hunks: hunks}})
		for start := 0; start <= end+1 && start < 200; start++ {
			a, ok := d.Anchor("f.yaml", start, start+2)
			if !ok {
				continue
			}
			if !shownInOneHunk(hunks, a) {
				t.Fatalf("anchor %+v for lines %d-%d is not on lines of one hunk", a, start, start+2)
			}
		}
	})
}

// shownInOneHunk reports whether both ends of an anchor are lines one hunk
// shows.
func shownInOneHunk(hunks []Hunk, a Anchor) bool {
	for _, h := range hunks {
		if h.right[a.Line] && (a.StartLine == 0 || h.right[a.StartLine]) {
			return true
		}
	}
	return false
}
