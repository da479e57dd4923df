package github

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/github/fakegithub"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// patchAdding makes a patch that adds lines first..last of a new file.
func patchAdding(first, last int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "@@ -0,0 +%d,%d @@\n", first, last-first+1)
	for i := first; i <= last; i++ {
		fmt.Fprintf(&b, "+line %d\n", i)
	}
	return b.String()
}

func mkFinding(file string, line int, rule string) *finding.Finding {
	f := &finding.Finding{Source: "check", RuleID: rule, Level: finding.Warning, Message: "problem at " + fmt.Sprint(line),
		Object:   finding.ObjectID{APIVersion: "v1", Kind: "ConfigMap", Name: fmt.Sprintf("cm-%s-%d", strings.TrimSuffix(file, ".yaml"), line)},
		Path:     manifest.MustParsePath("data.x"),
		Location: finding.Location{File: file, Line: line, Column: 3}}
	f.SetFingerprint()
	return f
}

// prSetup is a pull request changing lines 10-20 of a.yaml (and nothing
// else that matters).
func prSetup(t *testing.T) (*fakegithub.Server, *PullRequest) {
	srv := newFake(t)
	srv.AddPR(&fakegithub.PR{Number: 7, HeadSHA: "head1", BaseSHA: "base1", Files: []fakegithub.File{
		{Filename: "a.yaml", Status: "modified", Patch: patchAdding(10, 20)},
		{Filename: "bin.dat", Status: "modified"}, // binary: no patch
	}})
	return srv, &PullRequest{Number: 7, HeadSHA: "head1"}
}

func syncReview(t *testing.T, srv *fakegithub.Server, pr *PullRequest, token string, fs []*finding.Finding) (*ReviewResult, error) {
	t.Helper()
	c := testClient(t, srv, token)
	ctx := context.Background()
	d, err := c.Diff(ctx, pr.Number)
	if err != nil {
		t.Fatal(err)
	}
	return c.SyncReview(ctx, pr, d, fs, ReviewOptions{})
}

func TestReviewAnchorsOnlyInsideHunks(t *testing.T) {
	srv, pr := prSetup(t)
	fs := []*finding.Finding{
		mkFinding("a.yaml", 12, "check/A"), // in the diff
		mkFinding("a.yaml", 30, "check/A"), // same file, outside the hunk
		mkFinding("b.yaml", 12, "check/A"), // a file the PR does not touch
		mkFinding("bin.dat", 1, "check/A"), // a file without a patch
		mkFinding("a.yaml", 20, "check/B"), // the hunk's last line
	}
	res, err := syncReview(t, srv, pr, "write-token", fs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Posted != 2 || res.OutsideDiff != 3 || res.Rejected != 0 {
		t.Errorf("result %+v", res)
	}
	got := srv.ReviewComments(7)
	if len(got) != 2 || *got[0].Line != 12 || *got[1].Line != 20 {
		t.Fatalf("comments %+v", got)
	}
	for _, c := range got {
		if !strings.HasPrefix(c.Body, findingMarker+"\n") || commentFingerprint(c.Body) == "" {
			t.Errorf("comment without plumb's markers: %q", c.Body)
		}
	}
	// One review request, anchored on the head commit.
	var reviews []fakegithub.Request
	for _, r := range srv.Requests() {
		if r.Method == "POST" {
			reviews = append(reviews, r)
		}
	}
	if len(reviews) != 1 || !strings.HasSuffix(reviews[0].Path, "/pulls/7/reviews") || !strings.Contains(reviews[0].Body, `"commit_id":"head1"`) {
		t.Errorf("posts %v", reviews)
	}
}

func TestFakeRejectsAWholeReviewWithOneBadAnchor(t *testing.T) {
	// The premise of pre-validation: GitHub (and the fake) refuse the
	// whole review when one anchor is outside the diff.
	srv, pr := prSetup(t)
	c := testClient(t, srv, "write-token")
	good := draftComment{fingerprints: []string{"aaaaaaaa"}, anchor: Anchor{Path: "a.yaml", Line: 12}, body: "x"}
	bad := draftComment{fingerprints: []string{"bbbbbbbb"}, anchor: Anchor{Path: "a.yaml", Line: 30}, body: "y"}
	// postBatch falls back to one comment at a time after the 422.
	posted, rejected, err := c.postBatch(context.Background(), pr, []draftComment{good, bad}, reviewBody(0, 2, 2, 0, nil), nil)
	if err != nil || posted != 1 || rejected != 1 {
		t.Fatalf("posted %d rejected %d err %v", posted, rejected, err)
	}
	reqs := requestLines(srv)
	want := []string{
		"POST /repos/acme/shop/pulls/7/reviews",
		"POST /repos/acme/shop/pulls/7/comments",
		"POST /repos/acme/shop/pulls/7/comments",
	}
	if fmt.Sprint(reqs) != fmt.Sprint(want) {
		t.Errorf("requests %v, want %v", reqs, want)
	}
	if body := srv.Requests()[0].Body; !strings.Contains(body, `"line":30`) {
		t.Errorf("review body %s", body)
	}
	if n := len(srv.ReviewComments(7)); n != 1 {
		t.Errorf("%d comments, want 1", n)
	}
}

func TestRerunPostsNothingTwice(t *testing.T) {
	srv, pr := prSetup(t)
	fs := []*finding.Finding{mkFinding("a.yaml", 11, "check/A"), mkFinding("a.yaml", 15, "check/A")}
	if res, err := syncReview(t, srv, pr, "write-token", fs); err != nil || res.Posted != 2 {
		t.Fatalf("%+v %v", res, err)
	}
	srv.ResetRequests()
	res, err := syncReview(t, srv, pr, "write-token", fs)
	if err != nil || res.Posted != 0 || res.Kept != 2 || res.Deleted != 0 {
		t.Fatalf("second run: %+v %v", res, err)
	}
	for _, r := range srv.Requests() {
		if r.Method != "GET" && r.String() != "POST /graphql viewer" {
			t.Errorf("second run wrote: %s", r)
		}
	}
	if n := len(srv.ReviewComments(7)); n != 2 {
		t.Errorf("%d comments after two runs", n)
	}
}

func TestOutdatedAndFixedCommentsAreCleanedUp(t *testing.T) {
	srv, pr := prSetup(t)
	moved := mkFinding("a.yaml", 12, "check/Moved")
	fixed := mkFinding("a.yaml", 14, "check/Fixed")
	discussed := mkFinding("a.yaml", 16, "check/Discussed")
	if _, err := syncReview(t, srv, pr, "write-token", []*finding.Finding{moved, fixed, discussed}); err != nil {
		t.Fatal(err)
	}
	byRule := func() map[string]fakegithub.ReviewComment {
		out := map[string]fakegithub.ReviewComment{}
		for _, c := range srv.ReviewComments(7) {
			for _, f := range []*finding.Finding{moved, fixed, discussed} {
				if strings.Contains(c.Body, f.Fingerprint) {
					out[f.RuleID] = c
				}
			}
		}
		return out
	}
	before := byRule()
	// Someone replies to the comment on line 16.
	srv.AddReviewComment(fakegithub.ReviewComment{PR: 7, Body: "we know, see ticket", Path: "a.yaml",
		InReplyTo: func() *int64 { id := before["check/Discussed"].ID; return &id }(), User: fakegithub.User{Login: "alice", Type: "User"}})
	// A human quotes plumb's marker in their own comment: not plumb's.
	srv.AddReviewComment(fakegithub.ReviewComment{PR: 7, Body: "> " + before["check/Moved"].Body, Path: "a.yaml", Line: intp(13),
		User: fakegithub.User{Login: "bob", Type: "User"}})

	// A push: the diff now covers lines 30-40 only, so every earlier
	// comment is outdated. The moved finding is now at line 33; the fixed
	// one is gone; the discussed one is still at line 16 (not in the diff).
	srv.Push(7, "head2", []fakegithub.File{{Filename: "a.yaml", Status: "modified", Patch: patchAdding(30, 40)}})
	pr.HeadSHA = "head2"
	moved2 := *moved
	moved2.Location.Line = 33
	discussed2 := *discussed
	res, err := syncReview(t, srv, pr, "write-token", []*finding.Finding{&moved2, &discussed2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Posted != 1 || res.Deleted != 2 || res.OutsideDiff != 1 {
		t.Errorf("result %+v", res)
	}
	after := byRule()
	if c, ok := after["check/Moved"]; !ok || c.Line == nil || *c.Line != 33 {
		t.Errorf("the moved finding's comment: %+v", c)
	}
	if _, ok := after["check/Fixed"]; ok {
		t.Error("the fixed finding's comment is still there")
	}
	if c, ok := after["check/Discussed"]; !ok || c.ID != before["check/Discussed"].ID {
		t.Error("a comment with replies was deleted")
	}
	humans := 0
	for _, c := range srv.ReviewComments(7) {
		if c.User.Login != fakegithub.BotLogin {
			humans++
		}
	}
	if humans != 2 {
		t.Errorf("%d human comments left, want 2", humans)
	}
}

func intp(i int) *int { return &i }

func TestReviewsCarryAtMost30Comments(t *testing.T) {
	srv := newFake(t)
	srv.AddPR(&fakegithub.PR{Number: 7, HeadSHA: "head1", Files: []fakegithub.File{{Filename: "a.yaml", Patch: patchAdding(1, 200)}}})
	pr := &PullRequest{Number: 7, HeadSHA: "head1"}
	var fs []*finding.Finding
	for i := 1; i <= 100; i++ {
		fs = append(fs, mkFinding("a.yaml", i, "check/A"))
	}
	res, err := syncReview(t, srv, pr, "write-token", fs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Posted != DefaultMaxComments || res.OverLimit != 100-DefaultMaxComments {
		t.Errorf("result %+v", res)
	}
	reviews := 0
	for _, r := range srv.Requests() {
		if r.Method != "POST" {
			continue
		}
		reviews++
		var req struct {
			Comments []json.RawMessage `json:"comments"`
		}
		if err := json.Unmarshal([]byte(r.Body), &req); err != nil {
			t.Fatal(err)
		}
		if len(req.Comments) > CommentsPerReview {
			t.Errorf("a review with %d comments", len(req.Comments))
		}
	}
	if reviews != 3 {
		t.Errorf("%d reviews, want 3", reviews)
	}
}

func TestPaginationReadsEveryPage(t *testing.T) {
	srv := newFake(t)
	var files []fakegithub.File
	for i := 0; i < 250; i++ {
		files = append(files, fakegithub.File{Filename: fmt.Sprintf("f%03d.yaml", i), Patch: patchAdding(1, 3)})
	}
	srv.AddPR(&fakegithub.PR{Number: 3, HeadSHA: "h", Files: files})
	for i := 0; i < 130; i++ {
		srv.AddIssueComment(fakegithub.IssueComment{Issue: 3, Body: fmt.Sprint("chatter ", i), User: fakegithub.User{Login: "alice"}})
	}
	srv.AddIssueComment(fakegithub.IssueComment{Issue: 3, Body: summaryMarker + "\nold", User: fakegithub.User{Login: fakegithub.BotLogin, Type: "Bot"}})
	c := testClient(t, srv, "write-token")
	d, err := c.Diff(context.Background(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if d.File("f249.yaml") == nil || d.File("f000.yaml") == nil {
		t.Error("files of later pages are missing")
	}
	what, _, err := c.UpsertSummary(context.Background(), &PullRequest{Number: 3}, "new")
	if err != nil || what != SummaryUpdated {
		t.Fatalf("%s %v: the summary on the second page was not found", what, err)
	}
	want := []string{
		"GET /repos/acme/shop/pulls/3/files?per_page=100",
		"GET /repos/acme/shop/pulls/3/files?page=2&per_page=100",
		"GET /repos/acme/shop/pulls/3/files?page=3&per_page=100",
		"GET /repos/acme/shop/issues/3/comments?per_page=100",
		"GET /repos/acme/shop/issues/3/comments?page=2&per_page=100",
		"POST /graphql viewer",
		"PATCH /repos/acme/shop/issues/comments/1131",
	}
	if got := requestLines(srv); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestReadOnlyTokenStopsBeforeDeleting(t *testing.T) {
	srv, pr := prSetup(t)
	f := mkFinding("a.yaml", 12, "check/A")
	if _, err := syncReview(t, srv, pr, "write-token", []*finding.Finding{f}); err != nil {
		t.Fatal(err)
	}
	srv.ResetRequests()
	// The finding is fixed and another appears, but the token is read-only.
	res, err := syncReview(t, srv, pr, "read-token", []*finding.Finding{mkFinding("a.yaml", 13, "check/B")})
	if !IsNoPermission(err) {
		t.Fatalf("err = %v", err)
	}
	if res.Posted != 0 || res.Deleted != 0 {
		t.Errorf("result %+v", res)
	}
	for _, r := range srv.Requests() {
		if r.Method == "DELETE" {
			t.Error("deleted after a failed post")
		}
	}
}

func TestMarkersAreOnlyOursWhereWePutThem(t *testing.T) {
	body := findingCommentBody("hello", []string{"0123456789abcdef"})
	if commentFingerprint(body) != "0123456789abcdef" {
		t.Fatalf("own body not recognised: %q", body)
	}
	if commentFingerprint(strings.ReplaceAll(body, "\n", "\r\n")) != "0123456789abcdef" {
		t.Error("CRLF bodies (as GitHub may return them) not recognised")
	}
	for _, b := range []string{
		"> " + body,
		body + "\n\nthanks!",
		"hello <!-- plumb:fingerprint=0123456789abcdef -->",
	} {
		if commentFingerprint(b) != "" {
			t.Errorf("%q taken for plumb's", b)
		}
	}
	if !isSummary(summaryMarker+"\nx") || isSummary("> "+summaryMarker) {
		t.Error("summary marker")
	}
}

func TestFindingTextCannotForgeAMarker(t *testing.T) {
	f := mkFinding("a.yaml", 12, "check/A")
	f.Message = "evil\n<!-- plumb:fingerprint=ffffffffffffffff -->"
	f.Help = "<!-- plumb:fingerprint=eeeeeeeeeeeeeeee -->"
	plan := planReview(planInput{findings: []*finding.Finding{f}, diff: NewDiff([]*FileDiff{{Path: "a.yaml", Hunks: mustHunks(t, patchAdding(10, 20))}}), max: 10})
	if len(plan.create) != 1 {
		t.Fatal(plan)
	}
	body := plan.create[0].body
	if got := commentFingerprint(body); got != f.Fingerprint {
		t.Errorf("fingerprint read back as %q, want %q", got, f.Fingerprint)
	}
	if strings.Count(body, "<!--") != 2 {
		t.Errorf("finding text added HTML comments:\n%s", body)
	}
}

func mustHunks(t *testing.T, patch string) []Hunk {
	h, err := ParsePatch(patch)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A hunk shows context lines around an edit; GitHub accepts comments there,
// but an old finding on a line the pull request did not touch is not what
// the reviewer asked about. It is commented only when the change caused it
// (new in pull-request mode), or when it spans a changed line.
func TestContextLinesAreCommentedOnlyForWhatTheChangeCaused(t *testing.T) {
	// Lines 10-12 and 14-16 are context, 13 is the changed line.
	patch := "@@ -10,7 +10,7 @@\n a\n b\n c\n-old\n+new\n d\n e\n f"
	diff := NewDiff([]*FileDiff{{Path: "a.yaml", Hunks: mustHunks(t, patch)}})

	old := mkFinding("a.yaml", 11, "check/Old")                                             // context line, no status
	unchanged := withStatus(mkFinding("a.yaml", 15, "check/Same"), finding.StatusUnchanged) // context line
	caused := withStatus(mkFinding("a.yaml", 12, "check/Caused"), finding.StatusNew)        // context line, but new
	spanning := mkFinding("a.yaml", 11, "check/Span")                                       // context 11 through changed 13
	spanning.Location.EndLine = 13
	edited := withStatus(mkFinding("a.yaml", 13, "check/Edited"), finding.StatusUnchanged) // the changed line
	outside := withStatus(mkFinding("a.yaml", 30, "check/Outside"), finding.StatusNew)     // new, not shown by the diff: a file comment
	untouched := mkFinding("b.yaml", 3, "check/Untouched")                                 // old, in a file the PR does not change

	plan := planReview(planInput{findings: []*finding.Finding{old, unchanged, caused, spanning, edited, outside, untouched}, diff: diff, max: 10})
	var got []string
	for _, c := range plan.create {
		got = append(got, fmt.Sprintf("%d-%d", c.anchor.StartLine, c.anchor.Line))
	}
	// caused at 12; spanning 11-13 (multi-line) and edited at 13 end on
	// the same line: one comment about both.
	if want := "[0-12 11-13]"; fmt.Sprint(got) != want {
		t.Errorf("anchors %v, want %s", got, want)
	}
	if fps := commentFingerprints(plan.create[1].body); fmt.Sprint(fps) != fmt.Sprint([]string{spanning.Fingerprint, edited.Fingerprint}) {
		t.Errorf("the comment on 11-13 is about %v, want spanning and edited", fps)
	}
	if plan.result.OutsideDiff != 3 {
		t.Errorf("%d findings counted as outside the change, want 3 (old, unchanged, untouched)", plan.result.OutsideDiff)
	}
	if len(plan.files) != 1 || plan.files[0].anchor != (Anchor{Path: "a.yaml"}) || !strings.Contains(plan.files[0].body, "on line 30, which it did not change") {
		t.Errorf("file comments %+v, want one on a.yaml about line 30", plan.files)
	}
}

// A finding that reads alike in several render targets (a base shared by
// overlays) is one comment naming the targets; its marker carries every
// fingerprint, so a rerun posts none of them again, and the comment stays
// while any of them is open.
func TestAlikeFindingsShareOneComment(t *testing.T) {
	srv, pr := prSetup(t)
	alike := func(target string) *finding.Finding {
		f := mkFinding("a.yaml", 12, "check/A")
		f.Object = finding.ObjectID{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web", Target: target}
		f.SetFingerprint()
		return f
	}
	dev, prod := alike("overlays/dev"), alike("overlays/prod")
	res, err := syncReview(t, srv, pr, "write-token", []*finding.Finding{dev, prod})
	if err != nil || res.Posted != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	got := srv.ReviewComments(7)
	if len(got) != 1 || !strings.Contains(got[0].Body, `Deployment shop/web in 2 targets \[overlays/dev, overlays/prod\]`) {
		t.Fatalf("comments %+v", got)
	}
	if fps := commentFingerprints(got[0].Body); fmt.Sprint(fps) != fmt.Sprint([]string{dev.Fingerprint, prod.Fingerprint}) {
		t.Errorf("fingerprints %v", fps)
	}
	srv.ResetRequests()
	// Kept counts the one problem, as the summary does.
	if res, err = syncReview(t, srv, pr, "write-token", []*finding.Finding{dev, prod}); err != nil || res.Posted != 0 || res.Kept != 1 {
		t.Errorf("rerun: %+v %v", res, err)
	}
	// prod is fixed, dev is not: the comment stays.
	if res, err = syncReview(t, srv, pr, "write-token", []*finding.Finding{dev}); err != nil || res.Posted != 0 || res.Deleted != 0 {
		t.Errorf("one fixed: %+v %v", res, err)
	}
	if len(srv.ReviewComments(7)) != 1 {
		t.Error("the comment went while one of its findings is open")
	}
}
