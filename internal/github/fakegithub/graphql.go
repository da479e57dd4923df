package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// graphqlField names the part of the schema a GraphQL request asks for.
func graphqlField(body []byte) string {
	var req struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return ""
	}
	for _, f := range []string{"resolveReviewThread", "reviewThreads", "viewer"} {
		if strings.Contains(req.Query, f) {
			return f
		}
	}
	return "unknown"
}

// graphql answers the three GraphQL operations plumb uses: viewer (who the
// token belongs to), a pull request's reviewThreads, and
// resolveReviewThread. As on GitHub, errors come back with status 200.
func (s *Server) graphql(w http.ResponseWriter, r *http.Request, _ []string, body []byte) {
	var req struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	switch graphqlField(body) {
	case "viewer":
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"viewer": map[string]any{"login": s.viewerLogin(r)}}})
	case "reviewThreads":
		s.reviewThreads(w, req.Variables)
	case "resolveReviewThread":
		s.resolveThread(w, r, req.Variables)
	default:
		graphqlError(w, "undefinedField", "Field is not defined")
	}
}

// viewerLogin is the token's account as GraphQL names it: a bot's login
// without the "[bot]" the REST API adds.
func (s *Server) viewerLogin(r *http.Request) string {
	return strings.TrimSuffix(s.author(r).Login, "[bot]")
}

func graphqlError(w http.ResponseWriter, typ, msg string) {
	writeJSON(w, http.StatusOK, map[string]any{"data": nil, "errors": []map[string]string{{"type": typ, "message": msg}}})
}

func (s *Server) reviewThreads(w http.ResponseWriter, vars map[string]any) {
	number, _ := vars["number"].(float64)
	if vars["owner"] != s.Owner || vars["name"] != s.Repo || s.prs[int(number)] == nil {
		graphqlError(w, "NOT_FOUND", "Could not resolve to a PullRequest")
		return
	}
	var roots []*ReviewComment
	for _, c := range s.review {
		if c.PR == int(number) && c.InReplyTo == nil {
			roots = append(roots, c)
		}
	}
	start := 0
	if cur, ok := vars["cursor"].(string); ok && cur != "" {
		start, _ = strconv.Atoi(cur)
	}
	start = min(start, len(roots))
	page := 100
	if s.ThreadPageSize > 0 {
		page = s.ThreadPageSize
	}
	end := min(start+page, len(roots))
	nodes := make([]any, 0, end-start)
	for _, c := range roots[start:end] {
		nodes = append(nodes, map[string]any{
			"id":         threadID(c.ID),
			"isResolved": s.resolved[c.ID],
			"comments":   map[string]any{"nodes": []any{map[string]any{"databaseId": c.ID}}},
		})
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"repository": map[string]any{"pullRequest": map[string]any{
		"reviewThreads": map[string]any{
			"nodes":    nodes,
			"pageInfo": map[string]any{"hasNextPage": end < len(roots), "endCursor": strconv.Itoa(end)},
		},
	}}}})
}

func threadID(root int64) string { return fmt.Sprintf("PRRT_%d", root) }

func (s *Server) resolveThread(w http.ResponseWriter, r *http.Request, vars map[string]any) {
	if s.Tokens[requestToken(r)] != Write {
		graphqlError(w, "FORBIDDEN", "Resource not accessible by integration")
		return
	}
	id, _ := vars["id"].(string)
	root, err := strconv.ParseInt(strings.TrimPrefix(id, "PRRT_"), 10, 64)
	found := false
	for _, c := range s.review {
		found = found || (err == nil && c.ID == root && c.InReplyTo == nil)
	}
	if !found {
		graphqlError(w, "NOT_FOUND", fmt.Sprintf("Could not resolve to a node with the global id of '%s'", id))
		return
	}
	s.resolved[root] = true
	writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"resolveReviewThread": map[string]any{
		"thread": map[string]any{"id": id, "isResolved": true},
	}}})
}
