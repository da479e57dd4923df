package github

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/github/fakegithub"
	"github.com/plumb-ci/plumb/internal/report"
)

const (
	head1   = "1111111111111111111111111111111111111111"
	head2   = "4444444444444444444444444444444444444444"
	recBase = "0ed029124f2ebf5d105f1a37748469ef5700d50e"
)

func TestPushRecordRoundTrips(t *testing.T) {
	rec := PushRecord{Head: head1, Base: recBase, Problems: report.ChangeProblems{
		New:   [][]string{{"8019b99577206923", "f5b81dc92f68a0ab"}, {"41a07da62d7da742"}},
		Fixed: [][]string{{"2cfd79a8cc6de241"}},
	}, Since: &SinceNote{Head: head2, PushDelta: report.PushDelta{Fixed: 2, Introduced: 1}, BaseMoved: true}}
	body := summaryBody("### plumb: hello", &rec)
	want := summaryMarker + "\n<!-- plumb:push head=" + head1 + " base=" + recBase +
		" new=8019b99577206923+f5b81dc92f68a0ab,41a07da62d7da742 fixed=2cfd79a8cc6de241 since=" + head2 + ":2:1:m -->\n### plumb: hello"
	if body != want {
		t.Fatalf("body\n%s\nwant\n%s", body, want)
	}
	got, ok := parsePushRecord(strings.ReplaceAll(body, "\n", "\r\n"))
	if !ok || fmt.Sprint(got.Problems) != fmt.Sprint(rec.Problems) || got.Head != head1 || got.Base != recBase || *got.Since != *rec.Since {
		t.Fatalf("parsed %+v %v", got, ok)
	}
}

// The previous comment is untrusted: anything but what encode writes is
// no record, so nothing of it reaches the new comment.
func TestPushRecordRefusesGarbage(t *testing.T) {
	line := func(fields string) string { return summaryMarker + "\n<!-- plumb:push " + fields + " -->\nmd" }
	for name, body := range map[string]string{
		"no record":        summaryMarker + "\n### plumb: old comment",
		"not plumb's":      "<!-- plumb:push head=" + head1 + " base= new= fixed= -->\n" + summaryMarker,
		"markdown in head": line("head=[x](https://evil) base= new= fixed="),
		"html in groups":   line("head=" + head1 + " base= new=<img> fixed="),
		"uppercase hex":    line("head=ABCDEF0123456789 base= new= fixed="),
		"unknown field":    line("head=" + head1 + " base= new= fixed= by=@alice"),
		"repeated field":   line("head=" + head1 + " head=" + head2 + " base= new= fixed="),
		"no fixed":         line("head=" + head1 + " base= new="),
		"huge count":       line("head=" + head1 + " base= new= fixed= since=" + head2 + ":99999999:1:"),
		"unterminated":     summaryMarker + "\n<!-- plumb:push head=" + head1 + " base= new= fixed=",
		"oversized":        line("head=" + head1 + " base= new=" + strings.Repeat("0123456789abcdef,", 400) + "0123456789abcdef fixed="),
	} {
		if rec, ok := parsePushRecord(body); ok {
			t.Errorf("%s: read a record %+v", name, rec)
		}
	}
}

// A change with more problems than MaxPushRecord holds keeps only its
// head, and the next push says it could not compare.
func TestPushRecordOverTheCap(t *testing.T) {
	var groups [][]string
	for i := range 400 {
		groups = append(groups, []string{fmt.Sprintf("%016x", i)})
	}
	rec := PushRecord{Head: head1, Base: recBase, Problems: report.ChangeProblems{New: groups}}
	line := rec.encode()
	if len(line) > MaxPushRecord || !strings.Contains(line, " over") || strings.Contains(line, "new=") {
		t.Fatalf("%d bytes: %.200s", len(line), line)
	}
	prev, ok := parsePushRecord(summaryBody("md", &rec))
	if !ok || !prev.Over {
		t.Fatalf("parsed %+v %v", prev, ok)
	}
	since := SinceOf(&prev, PushRecord{Head: head2, Base: recBase}, func(report.ChangeProblems) report.PushDelta {
		t.Fatal("compared with a record that has no findings")
		return report.PushDelta{}
	})
	if got := since.Markdown(); got != "**Since the last push** (`111111111111`): not compared: that push introduced and fixed more problems than the comment records." {
		t.Errorf("line %q", got)
	}
}

func TestSinceOf(t *testing.T) {
	prev := &PushRecord{Head: head1, Base: recBase, Problems: report.ChangeProblems{New: [][]string{{"8019b99577206923"}}},
		Since: &SinceNote{Head: "9999999999999999999999999999999999999999", PushDelta: report.PushDelta{Fixed: 3}}}
	delta := func(report.ChangeProblems) report.PushDelta { return report.PushDelta{Fixed: 1, Introduced: 2} }
	for _, tc := range []struct {
		name string
		prev *PushRecord
		cur  PushRecord
		want string
	}{
		{"first run", nil, PushRecord{Head: head2, Base: recBase}, ""},
		{"next push", prev, PushRecord{Head: head2, Base: recBase}, "**Since the last push** (`111111111111`): fixed 1, introduced 2."},
		{"rerun shows what the comment said", prev, PushRecord{Head: head1, Base: recBase}, "**Since the last push** (`999999999999`): fixed 3, introduced 0."},
		{"base moved", prev, PushRecord{Head: head2, Base: head2}, "**Since the last push** (`111111111111`): fixed 1, introduced 2. (The base branch moved since: what the pushes fixed of the base is counted against each push's own base.)"},
		{"no base now", prev, PushRecord{Head: head2}, ""},
	} {
		if got := SinceOf(tc.prev, tc.cur, delta).Markdown(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	same := func(report.ChangeProblems) report.PushDelta { return report.PushDelta{} }
	if got := SinceOf(prev, PushRecord{Head: head2, Base: recBase}, same).Markdown(); got != "**Since the last push** (`111111111111`): no change in the findings." {
		t.Errorf("nothing changed: %q", got)
	}
}

// UpsertSummaryFunc hands render the record of plumb's own summary, and
// keeps the new record on the comment's second line.
func TestUpsertSummaryReadsTheRecordBack(t *testing.T) {
	srv := newFake(t)
	srv.AddPR(&fakegithub.PR{Number: 4, HeadSHA: head1})
	// Someone else's comment with a record is not read.
	srv.AddIssueComment(fakegithub.IssueComment{Issue: 4, Body: summaryMarker + "\n<!-- plumb:push head=" + head2 + " base= new= fixed= -->\n", User: fakegithub.User{Login: "mallory"}})
	c := testClient(t, srv, "write-token")
	ctx := context.Background()
	pr := &PullRequest{Number: 4, HeadSHA: head1}
	var seen []*PushRecord
	render := func(head string) func(*PushRecord) (string, *PushRecord) {
		return func(prev *PushRecord) (string, *PushRecord) {
			seen = append(seen, prev)
			return "summary of " + head[:4], &PushRecord{Head: head, Base: recBase, Problems: report.ChangeProblems{New: [][]string{{head[:16]}}}}
		}
	}
	if _, _, err := c.UpsertSummaryFunc(ctx, pr, render(head1)); err != nil {
		t.Fatal(err)
	}
	srv.Push(4, head2, nil)
	pr.HeadSHA = head2
	if _, _, err := c.UpsertSummaryFunc(ctx, pr, render(head2)); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] != nil || seen[1] == nil || seen[1].Head != head1 || fmt.Sprint(seen[1].Problems.New) != "[[1111111111111111]]" {
		t.Fatalf("render saw %+v", seen)
	}
	var ours []string
	for _, cm := range srv.IssueComments(4) {
		if cm.User.Login == fakegithub.BotLogin {
			ours = append(ours, cm.Body)
		}
	}
	want := summaryMarker + "\n<!-- plumb:push head=" + head2 + " base=" + recBase + " new=4444444444444444 fixed= -->\nsummary of 4444"
	if len(ours) != 1 || ours[0] != want {
		t.Errorf("plumb's comments: %q", ours)
	}
}

// Whatever the previous comment holds, a record read from it writes back
// as it was read, and what the summary says of it is a short line of
// plain text and hex.
func FuzzParsePushRecord(f *testing.F) {
	f.Add(summaryMarker + "\n<!-- plumb:push head=" + head1 + " base=" + recBase + " new=8019b99577206923+f5b81dc92f68a0ab fixed= since=" + head2 + ":1:2:m -->\nmd")
	f.Add(summaryMarker + "\n<!-- plumb:push head=" + head1 + " base= over -->\n")
	f.Add(summaryMarker + "\r\n<!-- plumb:push head=" + head1 + " base= new=,, fixed=+ -->\r\n")
	safe := regexp.MustCompile("^\\*\\*Since the last push\\*\\* \\(`[0-9a-f]{7,12}`\\): [a-zA-Z0-9 ,.:()']+$")
	f.Fuzz(func(t *testing.T, body string) {
		rec, ok := parsePushRecord(body)
		if !ok {
			return
		}
		again, ok := parsePushRecord(summaryBody("md", &rec))
		if !ok || again.encode() != rec.encode() {
			t.Fatalf("%q reads back as %q", rec.encode(), again.encode())
		}
		cur := PushRecord{Head: head2, Base: recBase}
		for _, s := range []*SinceNote{rec.Since, SinceOf(&rec, cur, func(report.ChangeProblems) report.PushDelta { return report.PushDelta{} })} {
			if line := s.Markdown(); line != "" && !safe.MatchString(line) {
				t.Fatalf("line %q", line)
			}
		}
	})
}

// A record the reader would refuse is not written: fingerprints from an
// untrusted report cannot end the hidden line and add Markdown.
func TestSummaryBodyWritesOnlyAValidRecord(t *testing.T) {
	rec := PushRecord{Head: head1, Base: recBase, Problems: report.ChangeProblems{New: [][]string{{"aaaaaaaa --> **hi**"}}}}
	if got := summaryBody("md", &rec); got != summaryMarker+"\nmd" {
		t.Errorf("body %q", got)
	}
}
