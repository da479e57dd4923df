package diff

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestUnifiedMatchesDiffU(t *testing.T) {
	cases := []struct {
		name, a, b, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"both empty", "", "", ""},
		{
			"one changed line in the middle",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n",
			"1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			"--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
		},
		{
			"from nothing",
			"",
			"x\ny\n",
			"--- a\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n",
		},
		{
			"to nothing",
			"x\n",
			"",
			"--- a\n+++ b\n@@ -1 +0,0 @@\n-x\n",
		},
		{
			"insertion at the end",
			"1\n2\n3\n4\n",
			"1\n2\n3\n4\n5\n",
			"--- a\n+++ b\n@@ -2,3 +2,4 @@\n 2\n 3\n 4\n+5\n",
		},
		{
			"missing newline at end",
			"a\nb",
			"a\nc",
			"--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
		},
	}
	for _, c := range cases {
		if got := Unified("a", "b", c.a, c.b); got != c.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", c.name, got, c.want)
		}
	}
}

func TestHunksSplitAndMerge(t *testing.T) {
	var a []string
	for i := 1; i <= 30; i++ {
		a = append(a, fmt.Sprint(i))
	}
	b := append([]string(nil), a...)
	b[2] = "three"   // line 3
	b[9] = "ten"     // line 10: 6 unchanged lines between, one hunk
	b[24] = "twenty" // line 25: far away, a second hunk
	got := Unified("a", "b", strings.Join(a, "\n")+"\n", strings.Join(b, "\n")+"\n")
	want := `--- a
+++ b
@@ -1,13 +1,13 @@
 1
 2
-3
+three
 4
 5
 6
 7
 8
 9
-10
+ten
 11
 12
 13
@@ -22,7 +22,7 @@
 22
 23
 24
-25
+twenty
 26
 27
 28
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// Seven unchanged lines between two changes are more than twice the
	// context: two hunks.
	b = append([]string(nil), a...)
	b[2], b[10] = "x", "y"
	if n := strings.Count(Unified("a", "b", strings.Join(a, "\n")+"\n", strings.Join(b, "\n")+"\n"), "@@ -"); n != 2 {
		t.Errorf("%d hunks, want 2", n)
	}
}

func TestZeroContext(t *testing.T) {
	got := Format("a", "b", Lines("1\n2\n3\n", "1\nX\n3\n"), 0)
	want := "--- a\n+++ b\n@@ -2 +2 @@\n-2\n+X\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestLinesRebuildBothTexts checks, on random edits, that the script's
// equal and deleted lines give a, its equal and inserted lines give b, and
// the counts match the hunk headers.
func TestLinesRebuildBothTexts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "c", "d", "e", "  key: value", "- item", ""}
	text := func(n int) string {
		var sb strings.Builder
		for range n {
			sb.WriteString(words[r.IntN(len(words))])
			sb.WriteByte('\n')
		}
		return sb.String()
	}
	for i := 0; i < 300; i++ {
		a, b := text(r.IntN(40)), text(r.IntN(40))
		lines := Lines(a, b)
		var ra, rb strings.Builder
		for _, l := range lines {
			if l.Op != Insert {
				ra.WriteString(l.Text)
			}
			if l.Op != Delete {
				rb.WriteString(l.Text)
			}
		}
		if ra.String() != a || rb.String() != b {
			t.Fatalf("script does not rebuild the texts:\na=%q\nb=%q", a, b)
		}
		ins, del := Stats(lines)
		u := Unified("a", "b", a, b)
		if got := strings.Count(u, "\n+") - 1; (a != b) && got != ins {
			t.Fatalf("%d inserted lines printed, %d counted\n%s", got, ins, u)
		}
		if got := strings.Count(u, "\n-"); (a != b) && got != del {
			t.Fatalf("%d deleted lines printed, %d counted\n%s", got, del, u)
		}
	}
}

func TestDeterministicOnLargeInput(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 20000; i++ {
		fmt.Fprintf(&a, "line %d\n", i)
		if i%997 == 0 {
			fmt.Fprintf(&b, "changed %d\n", i)
		} else {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	first := Unified("a", "b", a.String(), b.String())
	if strings.Count(first, "\n+changed") != 21 {
		t.Fatalf("unexpected diff:\n%s", first)
	}
	for i := 0; i < 3; i++ {
		if again := Unified("a", "b", a.String(), b.String()); again != first {
			t.Fatal("diff differs between runs")
		}
	}
}
