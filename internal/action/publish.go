package action

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/github"
	"github.com/plumb-ci/plumb/internal/redact"
	"github.com/plumb-ci/plumb/internal/renderdiff"
	"github.com/plumb-ci/plumb/internal/report"
)

// Markdown budgets.
const (
	// stepSummaryLimit is the runner's limit on one step's job summary.
	stepSummaryLimit = 1 << 20
	// commentFindings and summaryFindings bound the findings tables.
	commentFindings = 50
	summaryFindings = 1000
	// minJobSummary is the least room worth a job summary: the title and
	// the counts table.
	minJobSummary = 4096
)

// publish reports rep on the pull request (review comments and the summary
// comment, when pr is set), the annotations and the job summary. Posting
// failures degrade: they are said once, and the job summary still has
// everything.
func (r *runner) publish(ctx context.Context, rep *report.Report, pr *github.PullRequest) {
	var jobNotes []string
	if pr != nil && (r.ai.reviewComments || r.ai.summaryComment) {
		jobNotes = r.postToPR(ctx, rep, pr)
	}
	// After posting, so that the annotations know how many of GitHub's
	// per-step slots the runner's own commands (a notice that posting
	// failed, an engine error) took: a finding past the caps would vanish
	// from the UI without the counting notice saying so.
	if r.ai.annotations {
		more := "The job summary lists every finding."
		if !r.ai.jobSummary {
			more = "The SARIF and JSON reports list every finding."
		}
		// Annotations are workflow commands on stdout; when stdout fails the
		// job summary below still says everything.
		_ = report.Annotations{More: more, Printed: r.printed}.Write(r.out, rep)
	}
	if r.ai.jobSummary {
		r.writeJobSummary(rep, pr, jobNotes)
	}
}

// postToPR posts the review comments and the summary comment, and returns
// the notes for the job summary: what was posted, or why nothing could be.
func (r *runner) postToPR(ctx context.Context, rep *report.Report, pr *github.PullRequest) (jobNotes []string) {
	var commentNotes []string
	// unposted counts the comments a failure left out (for the rate-limit
	// message): the review's, and the summary when it was not reached.
	unposted := 0
	if r.ai.summaryComment {
		unposted = 1
	}
	degrade := func(client *github.Client, err error) {
		if github.IsStale(err) {
			// Not a failure: a newer run reports the pull request's head.
			msg := "plumb posted nothing to pull request " + pr.String() + ": " + err.Error() + "."
			r.command("notice", msg)
			jobNotes = append(jobNotes, "> [!NOTE]\n> "+report.MarkdownText(msg))
			return
		}
		reason := err.Error()
		switch {
		case github.IsRateLimited(err):
			reason = "GitHub's API rate limit was reached; " + plural(unposted, "comment") + " not posted"
			if until := client.RateLimitedUntil(err); !until.IsZero() {
				reason += ", retry after " + until.UTC().Format("15:04 UTC")
			}
		case github.IsNoPermission(err):
			reason = "the token may not write to this pull request (a pull request from a fork, or a token without pull-requests: write)"
			if pr.FromFork() {
				reason = "pull requests from forks get a read-only token; see docs/github-action.md for the workflow_run pattern that posts from a trusted workflow"
			}
		}
		msg := fmt.Sprintf("plumb could not post to pull request %s: %s. The findings are in the annotations and the job summary.", pr, reason)
		r.command("notice", msg)
		jobNotes = append(jobNotes, "> [!NOTE]\n> "+report.MarkdownText(msg))
	}
	client, err := r.githubClient()
	if err != nil {
		degrade(client, err)
		return jobNotes
	}

	if r.ai.reviewComments {
		open := report.ByImportance(rep.Findings, report.IsOpen)
		diff, err := client.Diff(ctx, pr.Number)
		var res *github.ReviewResult
		opts := github.ReviewOptions{MaxComments: github.DefaultMaxComments}
		// The poster has no checkout to compare with: the analysis run's
		// lines stand.
		if err == nil && !r.posting {
			if stale := withFindings(diff.DropStale(r.readWorkspace), open); len(stale) > 0 {
				note := staleNote(stale)
				commentNotes = append(commentNotes, note)
				jobNotes = append(jobNotes, note)
			}
		}
		if err == nil {
			res, err = client.SyncReview(ctx, pr, diff, open, opts)
		}
		if res != nil && (err == nil || res.Posted+res.Files+res.Listed+res.Deleted+res.Replaced+res.Discussed+res.Resolved > 0) {
			note := reviewNote(res)
			commentNotes = append(commentNotes, note)
			jobNotes = append(jobNotes, note)
		}
		if err != nil {
			if res != nil {
				unposted += res.NotPosted
			}
			degrade(client, err)
			return jobNotes
		}
	}

	if r.ai.summaryComment {
		what, url, err := client.UpsertSummaryFunc(ctx, pr, func(prev *github.PushRecord) (string, *github.PushRecord) {
			rec := pushRecord(rep, pr, prev)
			since := ""
			if rec != nil {
				since = rec.Since.Markdown()
			}
			md := report.Markdown{
				MaxBytes:    github.SummaryBudget,
				MaxFindings: commentFindings,
				BlobURL:     r.ghctx.BlobURL(pr.HeadSHA),
				BaseBlobURL: r.ghctx.BlobURL(baseCommit(rep)),
				Context:     r.contextLine(pr.HeadSHA),
				Notes:       commentNotes,
				Truncated:   r.jobSummaryPointer(),
				Backlog:     r.backlogPointer(),
				Base:        pr.BaseRef,
				SincePush:   since,
			}.Render(rep)
			return md, rec
		})
		if err != nil {
			unposted = 1
			degrade(client, err)
			return jobNotes
		}
		link := "Summary comment " + what
		if url != "" {
			link = fmt.Sprintf("[Summary comment](%s) %s", url, what)
		}
		jobNotes = append(jobNotes, link+".")
	}
	return jobNotes
}

// pushRecord is what the summary comment records about this head for the
// next push, and what it says about the previous one (prev, read from the
// comment). Outside pull-request mode (no base commit) there is nothing
// to record: nothing was compared.
func pushRecord(rep *report.Report, pr *github.PullRequest, prev *github.PushRecord) *github.PushRecord {
	base := baseCommit(rep)
	if base == "" || !commitID.MatchString(pr.HeadSHA) {
		return nil
	}
	rec := &github.PushRecord{Head: pr.HeadSHA, Base: base, Problems: report.ChangeProblemsOf(rep)}
	rec.Since = github.SinceOf(prev, *rec, func(p report.ChangeProblems) report.PushDelta { return report.SinceLastPush(rep, p) })
	return rec
}

// githubClient is the run's one GitHub client: it learns the token's
// account once, and its transport keeps one budget of waiting.
func (r *runner) githubClient() (*github.Client, error) {
	if r.client != nil {
		return r.client, nil
	}
	token := r.in.str("token", "")
	if token == "" {
		return nil, fmt.Errorf("no token was given (the token input is empty)")
	}
	client, err := github.NewClient(r.ghctx.APIURL, token, r.ghctx.Owner, r.ghctx.Repo, r.transport())
	if err != nil {
		return nil, err
	}
	r.client = client
	return client, nil
}

// readWorkspace reads a repository file of the checkout (paths come from
// the API: the root keeps them inside the workspace).
func (r *runner) readWorkspace(path string) ([]byte, error) {
	root, err := os.OpenRoot(r.root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return fs.ReadFile(root.FS(), path)
}

// withFindings keeps the paths that have one of the findings: the others
// lose no comment.
func withFindings(paths []string, findings []*finding.Finding) []string {
	in := map[string]bool{}
	for _, f := range findings {
		in[f.Location.File] = true
	}
	return slices.DeleteFunc(paths, func(p string) bool { return !in[p] })
}

// staleNote says which changed files were not commented on because the
// checkout does not hold their head version.
func staleNote(paths []string) string {
	const show = 5
	names := make([]string, 0, show)
	for _, p := range paths[:min(len(paths), show)] {
		names = append(names, report.MarkdownText(p))
	}
	more := ""
	if len(paths) > show {
		more = fmt.Sprintf(" and %d more", len(paths)-show)
	}
	return fmt.Sprintf("Not commented: %d changed %s (%s%s) %s not the pull request's head version in this checkout (on pull_request events actions/checkout checks out the merge with the base branch, which changed %s too), so a finding's line there may not be the line GitHub shows; the findings are in the table and the annotations.",
		len(paths), noun(len(paths), "file", "files"), strings.Join(names, ", "), more, noun(len(paths), "is", "are"), noun(len(paths), "it", "them"))
}

// reviewNote says what happened to the review comments.
func reviewNote(res *github.ReviewResult) string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	posted := "posted"
	if res.PostedProblems > res.Posted {
		// The problems on one line share a comment: the count the summary
		// has is said too.
		posted += fmt.Sprintf(" about %d findings", res.PostedProblems)
	}
	if res.Suggestions > 0 {
		posted += fmt.Sprintf(" (%d with a suggested change)", res.Suggestions)
	}
	add(res.Posted, posted)
	add(res.Kept, "already there")
	add(res.Deleted, "outdated removed")
	add(res.Replaced, "replaced by one about every problem of the line")
	add(res.Resolved, noun(res.Resolved, "thread", "threads")+" of fixed findings resolved")
	add(res.Rejected, "refused by GitHub")
	msg := "Review comments: "
	if len(parts) == 0 {
		msg += "none"
	} else {
		msg += strings.Join(parts, ", ")
	}
	msg += "."
	if res.Files > 0 {
		msg += fmt.Sprintf(" %s on lines this pull request did not change: %s on %s.", plural(res.Files, "new finding"),
			noun(res.Files, "a comment", "comments"), noun(res.Files, "its file", "their files"))
	}
	if res.Listed > 0 {
		msg += fmt.Sprintf(" %s in files this pull request does not change, listed in the review.", plural(res.Listed, "new finding"))
	}
	if res.Discussed > 0 {
		msg += fmt.Sprintf(" %s on lines where plumb's earlier comment has replies, listed in the review (the conversation is left as it is).", plural(res.Discussed, "new finding"))
	}
	if res.OutsideDiff > 0 {
		msg += fmt.Sprintf(" %d %s on lines this pull request did not change, so not commented.", res.OutsideDiff, noun(res.OutsideDiff, "finding is", "findings are"))
	}
	if res.OverLimit > 0 {
		msg += fmt.Sprintf(" %d more %s not commented, to keep the review readable.", res.OverLimit, noun(res.OverLimit, "finding was", "findings were"))
	}
	return msg
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func noun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// contextLine is the line under the summary's title: the commit and the
// run.
func (r *runner) contextLine(sha string) string {
	var parts []string
	if sha != "" {
		parts = append(parts, "Commit `"+shortSHA(sha)+"`")
	}
	if u := r.ghctx.RunURL(); u != "" {
		parts = append(parts, "[workflow run]("+u+")")
	}
	return strings.Join(parts, " · ")
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func (r *runner) jobSummaryPointer() string {
	if u := r.ghctx.RunURL(); u != "" && r.ai.jobSummary {
		return "The [job summary](" + u + ") lists every finding."
	}
	return "The SARIF and JSON reports list every finding."
}

// backlogPointer says, in the summary comment's title, where the findings
// already on the base are listed: the comment is about the change.
func (r *runner) backlogPointer() string {
	if !r.ai.jobSummary {
		return "in the SARIF and JSON reports"
	}
	if u := r.ghctx.RunURL(); u != "" {
		return "in the [job summary](" + u + ")"
	}
	return "in the job summary"
}

// writeJobSummary appends the summary to $GITHUB_STEP_SUMMARY within the
// runner's 1 MiB per step.
func (r *runner) writeJobSummary(rep *report.Report, pr *github.PullRequest, notes []string) {
	path := r.env.getenv("GITHUB_STEP_SUMMARY")
	if path == "" {
		return
	}
	used := 0
	if st, err := os.Stat(path); err == nil {
		used = int(st.Size())
	}
	room := stepSummaryLimit - used - 1024
	if room < minJobSummary {
		// A budget of 0 or less would mean "unbounded" to the Markdown
		// sink, and the runner rejects a step summary over its limit.
		r.command("warning", fmt.Sprintf("the job summary already holds %d bytes, too close to GitHub's %d per step: plumb's summary is not added (the JSON report has every finding)", used, stepSummaryLimit))
		return
	}
	sha, base := r.ghctx.SHA, ""
	if pr != nil {
		sha, base = pr.HeadSHA, pr.BaseRef
	}
	md := report.Markdown{
		MaxBytes:    room,
		MaxFindings: summaryFindings,
		BlobURL:     r.ghctx.BlobURL(sha),
		BaseBlobURL: r.ghctx.BlobURL(baseCommit(rep)),
		Context:     r.contextLine(sha),
		Notes:       notes,
		Truncated:   "The JSON report (the report-file output) lists every finding.",
		Base:        base,
	}.Render(rep)
	if err := safely(func() { r.gha.AddStepSummary(redact.Process().String(md)) }); err != nil {
		r.command("warning", fmt.Sprintf("could not write the job summary: %v", err))
	}
}

// baseCommit is the commit pull-request mode compared with ("" outside
// it): fixed findings are located there. It goes into links, and a report
// posted from an artifact is not trusted, so it must be a commit id.
func baseCommit(rep *report.Report) string {
	sec, err := renderdiff.FromSection(rep.Sections[renderdiff.SectionName])
	if err != nil || sec == nil || !commitID.MatchString(sec.BaseCommit) {
		return ""
	}
	return sec.BaseCommit
}

// commitID is a full SHA-1 or SHA-256 commit id.
var commitID = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)

// transport is the GitHub API transport: retries, pacing, and every wait
// said on a line of its own in the step log (not only in debug output).
func (r *runner) transport() *github.Transport {
	return &github.Transport{
		Base:     redact.Process().Transport(r.env.HTTP),
		Clock:    r.env.Clock,
		Announce: func(msg string) { fmt.Fprintln(r.out, "plumb: "+report.InertLine(msg)) },
	}
}
