package github

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// GitHub's GraphQL API: the few calls REST has no equivalent for (who the
// token belongs to, a pull request's review threads, resolving a thread),
// as small POSTs through the same client and transport (go-github has no
// GraphQL client).

// graphqlURL is the GraphQL endpoint next to a REST base URL:
// https://api.github.com/graphql, or https://HOST/api/graphql for GitHub
// Enterprise Server's https://HOST/api/v3/.
func graphqlURL(base *url.URL) string {
	if strings.HasSuffix(base.Path, "/api/v3/") {
		return base.ResolveReference(&url.URL{Path: "../graphql"}).String()
	}
	return base.ResolveReference(&url.URL{Path: "graphql"}).String()
}

// GraphQLError is an error GitHub's GraphQL API reported (with HTTP 200).
type GraphQLError struct {
	Type    string
	Message string
}

func (e *GraphQLError) Error() string {
	if e.Type != "" {
		return fmt.Sprintf("GraphQL %s: %s", e.Type, e.Message)
	}
	return "GraphQL: " + e.Message
}

// graphql runs one query or mutation and decodes its data into out.
func (c *Client) graphql(ctx context.Context, query string, vars map[string]any, out any) error {
	req, err := c.gh.NewRequest("POST", c.graphqlURL, map[string]any{"query": query, "variables": vars})
	if err != nil {
		return err
	}
	var resp struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	if _, err := c.gh.Do(ctx, req, &resp); err != nil {
		return err
	}
	if len(resp.Errors) > 0 {
		return &GraphQLError{Type: resp.Errors[0].Type, Message: resp.Errors[0].Message}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(resp.Data, out); err != nil {
		return fmt.Errorf("GraphQL answer: %w", err)
	}
	return nil
}

const viewerQuery = `query plumbViewer { viewer { login } }`

// viewer is the login of the account the token acts as.
func (c *Client) viewer(ctx context.Context) (string, error) {
	var data struct {
		Viewer struct {
			Login string `json:"login"`
		} `json:"viewer"`
	}
	if err := c.graphql(ctx, viewerQuery, nil, &data); err != nil {
		return "", err
	}
	if data.Viewer.Login == "" {
		return "", errors.New("GraphQL viewer has no login")
	}
	return data.Viewer.Login, nil
}

const threadsQuery = `query plumbReviewThreads($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        nodes { id isResolved comments(first: 1) { nodes { databaseId } } }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
}`

// reviewThread is a review thread: its node id, whether it is resolved,
// keyed by the id of its first comment.
type reviewThread struct {
	id       string
	resolved bool
}

// reviewThreads lists a pull request's review threads by the REST id of
// their first comment.
func (c *Client) reviewThreads(ctx context.Context, number int) (map[int64]reviewThread, error) {
	out := map[int64]reviewThread{}
	var cursor any
	for {
		var data struct {
			Repository struct {
				PullRequest struct {
					ReviewThreads struct {
						Nodes []struct {
							ID         string `json:"id"`
							IsResolved bool   `json:"isResolved"`
							Comments   struct {
								Nodes []struct {
									DatabaseID int64 `json:"databaseId"`
								} `json:"nodes"`
							} `json:"comments"`
						} `json:"nodes"`
						PageInfo struct {
							HasNextPage bool   `json:"hasNextPage"`
							EndCursor   string `json:"endCursor"`
						} `json:"pageInfo"`
					} `json:"reviewThreads"`
				} `json:"pullRequest"`
			} `json:"repository"`
		}
		vars := map[string]any{"owner": c.owner, "name": c.repo, "number": number, "cursor": cursor}
		if err := c.graphql(ctx, threadsQuery, vars, &data); err != nil {
			return nil, fmt.Errorf("listing the review threads of pull request #%d: %w", number, err)
		}
		threads := data.Repository.PullRequest.ReviewThreads
		for _, n := range threads.Nodes {
			if len(n.Comments.Nodes) > 0 {
				out[n.Comments.Nodes[0].DatabaseID] = reviewThread{id: n.ID, resolved: n.IsResolved}
			}
		}
		if !threads.PageInfo.HasNextPage || threads.PageInfo.EndCursor == "" {
			return out, nil
		}
		cursor = threads.PageInfo.EndCursor
	}
}

const resolveMutation = `mutation plumbResolveThread($id: ID!) {
  resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } }
}`

// resolveThread marks a review thread resolved.
func (c *Client) resolveThread(ctx context.Context, id string) error {
	if err := c.graphql(ctx, resolveMutation, map[string]any{"id": id}, nil); err != nil {
		return fmt.Errorf("resolving review thread %s: %w", id, err)
	}
	return nil
}
