package github

import (
	"fmt"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/github/fakegithub"
)

// Findings on the same line are one review comment, on GitHub as in the
// plan: a checklist of the problems, every fingerprint in its marker. A
// rerun posts, edits and deletes nothing; after a push that makes the
// comment outdated it is removed and the problems, where they now are,
// are one comment again.
func TestProblemsOnOneLineAreOneCommentOnGitHub(t *testing.T) {
	srv, pr := prSetup(t)
	onLine := func(line int, rules ...string) []*finding.Finding {
		var fs []*finding.Finding
		for _, r := range rules {
			f := mkFinding("a.yaml", line, r)
			f.Message = "problem " + strings.TrimPrefix(r, "check/")
			f.SetFingerprint()
			fs = append(fs, f)
		}
		return fs
	}
	fs := append(onLine(12, "check/A", "check/B", "check/C"), onLine(14, "check/D")...)
	res, err := syncReview(t, srv, pr, "write-token", fs)
	if err != nil {
		t.Fatal(err)
	}
	if *res != (ReviewResult{Posted: 2, PostedProblems: 4, OutsideDiff: 0}) {
		t.Errorf("result %+v", res)
	}
	got := srv.ReviewComments(7)
	if len(got) != 2 || *got[0].Line != 12 || *got[1].Line != 14 {
		t.Fatalf("comments %+v", got)
	}
	want := fmt.Sprintf(`%s
**3 problems here:**

- ⚠️ **warning** · `+"`check/A`"+` — problem A
- ⚠️ **warning** · `+"`check/B`"+` — problem B
- ⚠️ **warning** · `+"`check/C`"+` — problem C

<sub>ConfigMap cm-a-12 · `+"`data.x`"+`</sub>

<!-- plumb:fingerprint=%s,%s,%s -->`, findingMarker, fs[0].Fingerprint, fs[1].Fingerprint, fs[2].Fingerprint)
	if got[0].Body != want {
		t.Errorf("comment on line 12:\n%s\nwant:\n%s", got[0].Body, want)
	}
	if strings.Contains(got[1].Body, "problems here") || !strings.Contains(got[1].Body, "problem D") {
		t.Errorf("a single problem's comment:\n%s", got[1].Body)
	}

	// The rerun: only reads.
	srv.ResetRequests()
	res, err = syncReview(t, srv, pr, "write-token", fs)
	if err != nil || *res != (ReviewResult{Kept: 4}) {
		t.Errorf("rerun: %+v %v", res, err)
	}
	for _, r := range srv.Requests() {
		if r.Method != "GET" && r.GraphQL != "viewer" {
			t.Errorf("the rerun wrote: %s %s", r.Method, r.Path)
		}
	}

	// A push moves the three to line 33 (the diff is now 30-40): the
	// outdated comments go, the three are one comment again there, D (on
	// line 14, no longer in the diff and not new) is counted.
	srv.Push(7, "head2", []fakegithub.File{{Filename: "a.yaml", Status: "modified", Patch: patchAdding(30, 40)}})
	pr.HeadSHA = "head2"
	for _, f := range fs[:3] {
		f.Location.Line = 33
	}
	res, err = syncReview(t, srv, pr, "write-token", fs)
	if err != nil || *res != (ReviewResult{Posted: 1, PostedProblems: 3, Deleted: 2, OutsideDiff: 1}) {
		t.Errorf("after the push: %+v %v", res, err)
	}
	got = srv.ReviewComments(7)
	if len(got) != 1 || *got[0].Line != 33 || fmt.Sprint(commentFingerprints(got[0].Body)) != fmt.Sprint([]string{fs[0].Fingerprint, fs[1].Fingerprint, fs[2].Fingerprint}) {
		t.Errorf("comments after the push: %+v", got)
	}
}

// New findings on one line the pull request did not change share one file
// comment, which says the line once.
func TestNewProblemsOnOneUnchangedLineShareAFileComment(t *testing.T) {
	diff := NewDiff([]*FileDiff{{Path: "a.yaml", Hunks: mustHunks(t, patchAdding(10, 20))}})
	a, b := withStatus(mkFinding("a.yaml", 30, "check/A"), finding.StatusNew), withStatus(mkFinding("a.yaml", 30, "check/B"), finding.StatusNew)
	c := withStatus(mkFinding("a.yaml", 31, "check/C"), finding.StatusNew)
	p := planReview(planInput{findings: []*finding.Finding{a, b, c}, diff: diff, max: 10})
	if len(p.create) != 0 || len(p.files) != 2 {
		t.Fatalf("%d line and %d file comments, want 0 and 2", len(p.create), len(p.files))
	}
	body := p.files[0].body
	if !strings.HasPrefix(body, findingMarker+"\n**New in this pull request**, on line 30, which it did not change (so the comment is on the file):\n\n**2 problems here:**\n") ||
		len(commentFingerprints(body)) != 2 || p.files[0].anchor != (Anchor{Path: "a.yaml"}) {
		t.Errorf("file comment %+v", p.files[0])
	}
}

func withStatus(f *finding.Finding, status string) *finding.Finding { f.Status = status; return f }
