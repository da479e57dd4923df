package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	gogithub "github.com/google/go-github/v60/github"
)

// Client calls the GitHub REST and GraphQL APIs for one repository. It is
// not safe for concurrent use.
type Client struct {
	gh          *gogithub.Client
	tr          *Transport
	owner, repo string
	graphqlURL  string

	// self is the account the token acts as, learned once (selfKnown) and
	// only when a comment carries plumb's markers: a comment is plumb's
	// only when this account wrote it.
	self      account
	selfErr   error
	selfKnown bool
}

// NewClient returns a client for owner/repo at apiURL (GITHUB_API_URL),
// authenticated with token, sending through tr (which retries and paces).
func NewClient(apiURL, token, owner, repo string, tr *Transport) (*Client, error) {
	if owner == "" || repo == "" {
		return nil, errors.New("no repository (GITHUB_REPOSITORY is not set)")
	}
	if tr == nil {
		tr = &Transport{}
	}
	gh := gogithub.NewClient(&http.Client{Transport: tr}).WithAuthToken(token)
	if apiURL != "" {
		u, err := url.Parse(strings.TrimRight(apiURL, "/") + "/")
		if err != nil {
			return nil, fmt.Errorf("GITHUB_API_URL %q: %w", apiURL, err)
		}
		gh.BaseURL = u
	}
	gh.UserAgent = "plumb"
	return &Client{gh: gh, tr: tr, owner: owner, repo: repo, graphqlURL: graphqlURL(gh.BaseURL)}, nil
}

// Transport is the client's transport (its waits and rate-limit state).
func (c *Client) Transport() *Transport { return c.tr }

// perPage is the largest page GitHub serves.
const perPage = 100

// maxPRFiles is how many files GitHub lists for a pull request at most.
const maxPRFiles = 3000

// PullRequest fetches a pull request.
func (c *Client) PullRequest(ctx context.Context, number int) (*PullRequest, error) {
	pr, _, err := c.gh.PullRequests.Get(ctx, c.owner, c.repo, number)
	if err != nil {
		return nil, fmt.Errorf("reading pull request #%d: %w", number, err)
	}
	out := &PullRequest{
		Number:  pr.GetNumber(),
		HeadSHA: pr.GetHead().GetSHA(),
		BaseSHA: pr.GetBase().GetSHA(),
		BaseRef: pr.GetBase().GetRef(),
		HTMLURL: pr.GetHTMLURL(),
	}
	if r := pr.GetHead().GetRepo(); r != nil {
		out.HeadRepo = r.GetFullName()
	}
	if r := pr.GetBase().GetRepo(); r != nil {
		out.BaseRepo = r.GetFullName()
	}
	return out, nil
}

// Diff reads the pull request's files and their hunks. A file whose patch
// GitHub does not show (binary, too large) or cannot be read gets no hunks:
// nothing in it can be commented on.
func (c *Client) Diff(ctx context.Context, number int) (*Diff, error) {
	var files []*FileDiff
	opts := &gogithub.ListOptions{PerPage: perPage}
	for {
		page, resp, err := c.gh.PullRequests.ListFiles(ctx, c.owner, c.repo, number, opts)
		if err != nil {
			return nil, fmt.Errorf("listing the files of pull request #%d: %w", number, err)
		}
		for _, f := range page {
			fd := &FileDiff{Path: f.GetFilename(), Status: f.GetStatus(), SHA: f.GetSHA()}
			if hunks, err := ParsePatch(f.GetPatch()); err == nil {
				fd.Hunks = hunks
			}
			files = append(files, fd)
		}
		if resp.NextPage == 0 || len(files) >= maxPRFiles {
			break
		}
		opts.Page = resp.NextPage
	}
	return NewDiff(files), nil
}

// reviewComments lists every review comment of a pull request.
func (c *Client) reviewComments(ctx context.Context, number int) ([]*gogithub.PullRequestComment, error) {
	var all []*gogithub.PullRequestComment
	opts := &gogithub.PullRequestListCommentsOptions{ListOptions: gogithub.ListOptions{PerPage: perPage}}
	for {
		page, resp, err := c.gh.PullRequests.ListComments(ctx, c.owner, c.repo, number, opts)
		if err != nil {
			return nil, fmt.Errorf("listing the review comments of pull request #%d: %w", number, err)
		}
		all = append(all, page...)
		if resp.NextPage == 0 {
			return all, nil
		}
		opts.Page = resp.NextPage
	}
}

// issueComments lists every conversation comment of a pull request.
func (c *Client) issueComments(ctx context.Context, number int) ([]*gogithub.IssueComment, error) {
	var all []*gogithub.IssueComment
	opts := &gogithub.IssueListCommentsOptions{ListOptions: gogithub.ListOptions{PerPage: perPage}}
	for {
		page, resp, err := c.gh.Issues.ListComments(ctx, c.owner, c.repo, number, opts)
		if err != nil {
			return nil, fmt.Errorf("listing the comments of pull request #%d: %w", number, err)
		}
		all = append(all, page...)
		if resp.NextPage == 0 {
			return all, nil
		}
		opts.Page = resp.NextPage
	}
}

// StatusOf returns the HTTP status of a failed API call, 0 when the call
// did not get that far.
func StatusOf(err error) int {
	var er *gogithub.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	var rl *gogithub.RateLimitError
	if errors.As(err, &rl) && rl.Response != nil {
		return rl.Response.StatusCode
	}
	var al *gogithub.AbuseRateLimitError
	if errors.As(err, &al) && al.Response != nil {
		return al.Response.StatusCode
	}
	return 0
}

// IsNoPermission reports whether GitHub refused a call because the token
// may not do it: a fork's read-only token, or missing permissions. (GitHub
// answers 404 instead of 403 where saying "forbidden" would reveal that
// something exists.)
func IsNoPermission(err error) bool {
	var ge *GraphQLError
	if errors.As(err, &ge) && ge.Type == "FORBIDDEN" {
		return true
	}
	s := StatusOf(err)
	return s == http.StatusForbidden || s == http.StatusNotFound || s == http.StatusUnauthorized
}

// reviews lists every review of a pull request.
func (c *Client) reviews(ctx context.Context, number int) ([]*gogithub.PullRequestReview, error) {
	var all []*gogithub.PullRequestReview
	opts := &gogithub.ListOptions{PerPage: perPage}
	for {
		page, resp, err := c.gh.PullRequests.ListReviews(ctx, c.owner, c.repo, number, opts)
		if err != nil {
			return nil, fmt.Errorf("listing the reviews of pull request #%d: %w", number, err)
		}
		all = append(all, page...)
		if resp.NextPage == 0 {
			return all, nil
		}
		opts.Page = resp.NextPage
	}
}
