package action

import (
	"context"
	"fmt"
	"os"

	"github.com/plumb-ci/plumb/internal/github"
	"github.com/plumb-ci/plumb/internal/pipeline"
	"github.com/plumb-ci/plumb/internal/report"
)

// post is the fork-safe poster's mode. A pull_request run from a fork gets
// a read-only token, so it only analyses and uploads its JSON report and
// event as an artifact; a workflow_run workflow (trusted: it runs the base
// repository's code with a write token, and never runs the fork's) downloads
// them and runs this mode, which posts the report without analysing
// anything.
//
// The artifact comes from the fork, so nothing in it is trusted: the report
// is escaped like any repository content, review anchors are checked
// against the real diff, and the pull request must be the one the
// triggering run built — its head commit must be the workflow_run's
// head_sha — or nothing is posted.
func (r *runner) post(ctx context.Context) int {
	r.posting = true
	data, err := os.ReadFile(r.abs(r.ai.postReport))
	if err != nil {
		r.command("error", fmt.Sprintf("post-report: %v", err))
		return pipeline.ExitError
	}
	rep, err := report.ReadJSON(data)
	if err != nil {
		r.command("error", fmt.Sprintf("post-report %s: %v", r.ai.postReport, err))
		return pipeline.ExitError
	}
	evData, err := os.ReadFile(r.abs(r.ai.postEvent))
	if err != nil {
		r.command("error", fmt.Sprintf("post-event: %v", err))
		return pipeline.ExitError
	}
	ev, err := github.ParseEvent(evData)
	if err == nil && ev.PR == nil {
		err = fmt.Errorf("not a pull_request event (no pull_request object)")
	}
	if err != nil {
		r.command("error", fmt.Sprintf("post-event %s: %v", r.ai.postEvent, err))
		return pipeline.ExitError
	}

	pr, err := r.verifiedPR(ctx, ev.PR)
	if err != nil {
		r.command("warning", fmt.Sprintf("not posting to pull request %s: %v", ev.PR, err))
		pr = nil
	}
	r.publish(ctx, rep, pr)
	r.setOutputs(rep, "", r.ai.postReport)
	return pipeline.ExitOK
}

// verifiedPR reads the pull request from the API and checks that its head
// is the commit the reported run built.
func (r *runner) verifiedPR(ctx context.Context, claimed *github.PullRequest) (*github.PullRequest, error) {
	want := claimed.HeadSHA
	if wr := r.ghctx.WorkflowRun; wr != nil {
		if wr.Event != "" && wr.Event != "pull_request" && wr.Event != "pull_request_target" {
			return nil, fmt.Errorf("the workflow run was triggered by %q, not a pull request", wr.Event)
		}
		want = wr.HeadSHA
	}
	client, err := r.githubClient()
	if err != nil {
		return nil, err
	}
	live, err := client.PullRequest(ctx, claimed.Number)
	if err != nil {
		return nil, err
	}
	if live.HeadSHA != want {
		return nil, fmt.Errorf("its head is %s but the reported run built %s (a newer push, or an artifact that does not belong to it)", shortSHA(live.HeadSHA), shortSHA(want))
	}
	return live, nil
}
