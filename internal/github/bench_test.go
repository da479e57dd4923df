package github

import (
	"fmt"
	"testing"

	gogithub "github.com/google/go-github/v60/github"

	"github.com/plumb-ci/plumb/internal/finding"
)

// BenchmarkPlanReview plans the review of 5,000 findings over a 500-file
// diff with 1,000 earlier comments of plumb's.
func BenchmarkPlanReview(b *testing.B) {
	var files []*FileDiff
	for i := 0; i < 500; i++ {
		hunks, err := ParsePatch(patchAdding(1, 40) + "@@ -100,3 +141,4 @@\n a\n+b\n c\n d")
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, &FileDiff{Path: fmt.Sprintf("f%03d.yaml", i), Hunks: hunks})
	}
	diff := NewDiff(files)
	var fs []*finding.Finding
	for i := 0; i < 5000; i++ {
		fs = append(fs, mkFinding(fmt.Sprintf("f%03d.yaml", i%500), 1+i%60, "check/A"))
	}
	var existing []*gogithub.PullRequestComment
	for i := 0; i < 1000; i++ {
		body := findingCommentBody("x", []string{fs[i*5].Fingerprint})
		f := fs[i*5]
		existing = append(existing, &gogithub.PullRequestComment{ID: gogithub.Int64(int64(i)), Body: &body, Path: gogithub.String(f.Location.File), Line: gogithub.Int(f.Location.Line)})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		plan := planReview(planInput{findings: fs, diff: diff, existing: existing, max: DefaultMaxComments})
		if plan.result.Kept == 0 {
			b.Fatal("nothing kept")
		}
	}
	b.ReportMetric(float64(len(fs))*float64(b.N)/b.Elapsed().Seconds(), "findings/s")
}
