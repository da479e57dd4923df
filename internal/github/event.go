// Package github is plumb's side of the GitHub API: the workflow's event
// context, a pull request's changed lines, review comments anchored inside
// the diff, the one summary comment edited in place, and the retries,
// pacing and degradation that keep all of it within GitHub's limits.
package github

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"
)

// Context is what plumb needs to know about the workflow run.
type Context struct {
	EventName string
	// Owner and Repo name the repository the workflow runs in.
	Owner, Repo string
	// SHA is the commit the workflow checked out (for a pull_request event,
	// the merge commit).
	SHA       string
	ServerURL string
	APIURL    string
	RunID     int64
	Workspace string
	// PR is the pull request of a pull_request or pull_request_target
	// event, nil otherwise.
	PR *PullRequest
	// WorkflowRun is set for workflow_run events (the fork-safe poster).
	WorkflowRun *WorkflowRun
}

// PullRequest identifies a pull request and the commits it compares.
type PullRequest struct {
	Number   int
	HeadSHA  string
	BaseSHA  string
	BaseRef  string // the base branch's name ("main")
	HeadRepo string // owner/name of the head branch's repository
	BaseRepo string
	HTMLURL  string
}

// FromFork reports whether the head branch lives in another repository:
// on pull_request events such runs get a read-only token.
func (p *PullRequest) FromFork() bool {
	return p != nil && p.HeadRepo != "" && p.BaseRepo != "" && !strings.EqualFold(p.HeadRepo, p.BaseRepo)
}

// WorkflowRun is the run a workflow_run event reports on.
type WorkflowRun struct {
	ID      int64
	Event   string
	HeadSHA string
}

// RunURL links the workflow run (its job summary is one click away).
func (c *Context) RunURL() string {
	if c.RunID == 0 || c.Owner == "" {
		return ""
	}
	return fmt.Sprintf("%s/%s/%s/actions/runs/%d", strings.TrimRight(c.ServerURL, "/"), c.Owner, c.Repo, c.RunID)
}

// BlobURL is the prefix of links to files at commit sha.
func (c *Context) BlobURL(sha string) string {
	if c.Owner == "" || sha == "" {
		return ""
	}
	return fmt.Sprintf("%s/%s/%s/blob/%s/", strings.TrimRight(c.ServerURL, "/"), c.Owner, c.Repo, sha)
}

// LoadContext reads the GITHUB_* environment and the event payload. When
// something cannot be read it returns what it could read (always the
// environment) with the error, so a caller can go on without the event.
func LoadContext(getenv func(string) string) (*Context, error) {
	// The event is parsed below, into types; go-githubactions reads only
	// the environment here (it would fail whole on a bad event file).
	envOnly := func(k string) string {
		if k == "GITHUB_EVENT_PATH" {
			return ""
		}
		return getenv(k)
	}
	gc, err := githubactions.New(githubactions.WithGetenv(envOnly)).Context()
	if gc == nil {
		return &Context{}, fmt.Errorf("reading the GitHub Actions context: %w", err)
	}
	c := &Context{
		EventName: gc.EventName,
		SHA:       gc.SHA,
		ServerURL: gc.ServerURL,
		APIURL:    gc.APIURL,
		RunID:     gc.RunID,
		Workspace: gc.Workspace,
	}
	c.Owner, c.Repo = gc.Repo()
	if err != nil {
		return c, fmt.Errorf("reading the GitHub Actions context: %w", err)
	}
	path := getenv("GITHUB_EVENT_PATH")
	if path == "" {
		return c, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("reading the event payload: %w", err)
	}
	ev, err := ParseEvent(data)
	if err != nil {
		return c, fmt.Errorf("the event payload %s: %w", path, err)
	}
	switch c.EventName {
	case "pull_request", "pull_request_target", "pull_request_review", "pull_request_review_comment":
		c.PR = ev.PR
	case "workflow_run":
		c.WorkflowRun = ev.WorkflowRun
	}
	return c, nil
}

// Event is the part of an event payload plumb reads.
type Event struct {
	PR          *PullRequest
	WorkflowRun *WorkflowRun
}

// ParseEvent reads an event payload (the file at GITHUB_EVENT_PATH).
func ParseEvent(data []byte) (*Event, error) {
	var raw struct {
		PullRequest *struct {
			Number  int    `json:"number"`
			HTMLURL string `json:"html_url"`
			Head    struct {
				SHA  string `json:"sha"`
				Repo *struct {
					FullName string `json:"full_name"`
				} `json:"repo"`
			} `json:"head"`
			Base struct {
				Ref  string `json:"ref"`
				SHA  string `json:"sha"`
				Repo *struct {
					FullName string `json:"full_name"`
				} `json:"repo"`
			} `json:"base"`
		} `json:"pull_request"`
		WorkflowRun *struct {
			ID      int64  `json:"id"`
			Event   string `json:"event"`
			HeadSHA string `json:"head_sha"`
		} `json:"workflow_run"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("the event payload is not JSON: %w", err)
	}
	ev := &Event{}
	if p := raw.PullRequest; p != nil {
		if p.Number <= 0 || p.Head.SHA == "" {
			return nil, errors.New("the event's pull_request has no number or head sha")
		}
		ev.PR = &PullRequest{Number: p.Number, HeadSHA: p.Head.SHA, BaseSHA: p.Base.SHA, BaseRef: p.Base.Ref, HTMLURL: p.HTMLURL}
		if p.Head.Repo != nil {
			ev.PR.HeadRepo = p.Head.Repo.FullName
		}
		if p.Base.Repo != nil {
			ev.PR.BaseRepo = p.Base.Repo.FullName
		}
	}
	if w := raw.WorkflowRun; w != nil {
		ev.WorkflowRun = &WorkflowRun{ID: w.ID, Event: w.Event, HeadSHA: w.HeadSHA}
	}
	return ev, nil
}

// String names a pull request as people write it.
func (p *PullRequest) String() string { return "#" + strconv.Itoa(p.Number) }
