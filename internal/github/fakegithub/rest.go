package fakegithub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// getUser is GET /user: the token's person, refused for an installation
// token such as GITHUB_TOKEN, as GitHub does.
func (s *Server) getUser(w http.ResponseWriter, r *http.Request, _ []string, _ []byte) {
	login := s.Users[requestToken(r)]
	if login == "" {
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"login": login, "type": "User"})
}

func (s *Server) getPR(w http.ResponseWriter, _ *http.Request, m []string, _ []byte) {
	pr := s.pr(w, m)
	if pr == nil {
		return
	}
	base := s.Owner + "/" + s.Repo
	head := pr.HeadRepo
	if head == "" {
		head = base
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"number":   pr.Number,
		"html_url": fmt.Sprintf("%s/%s/pull/%d", "https://github.com", base, pr.Number),
		"head":     map[string]any{"sha": pr.HeadSHA, "repo": map[string]any{"full_name": head}},
		"base":     map[string]any{"sha": pr.BaseSHA, "repo": map[string]any{"full_name": base}},
	})
}

func (s *Server) listFiles(w http.ResponseWriter, r *http.Request, m []string, _ []byte) {
	pr := s.pr(w, m)
	if pr == nil {
		return
	}
	items := make([]any, 0, len(pr.Files))
	for _, f := range pr.Files {
		item := map[string]any{"filename": f.Filename, "status": f.Status}
		if f.Patch != "" {
			item["patch"] = f.Patch
		}
		if f.SHA != "" {
			item["sha"] = f.SHA
		}
		items = append(items, item)
	}
	paginate(w, r, items)
}

func (s *Server) listReviewComments(w http.ResponseWriter, r *http.Request, m []string, _ []byte) {
	pr := s.pr(w, m)
	if pr == nil {
		return
	}
	var items []any
	for _, c := range s.review {
		if c.PR == pr.Number {
			items = append(items, c)
		}
	}
	paginate(w, r, items)
}

func (s *Server) listReviews(w http.ResponseWriter, r *http.Request, m []string, _ []byte) {
	pr := s.pr(w, m)
	if pr == nil {
		return
	}
	var items []any
	for _, rv := range s.reviews {
		if rv.PR == pr.Number {
			items = append(items, rv)
		}
	}
	paginate(w, r, items)
}

func (s *Server) listIssueComments(w http.ResponseWriter, r *http.Request, m []string, _ []byte) {
	pr := s.pr(w, m)
	if pr == nil {
		return
	}
	var items []any
	for _, c := range s.issue {
		if c.Issue == pr.Number {
			items = append(items, c)
		}
	}
	paginate(w, r, items)
}

type draftComment struct {
	Path        string `json:"path"`
	Body        string `json:"body"`
	Line        *int   `json:"line"`
	Side        string `json:"side"`
	StartLine   *int   `json:"start_line"`
	StartSide   string `json:"start_side"`
	Position    *int   `json:"position"`
	CommitID    string `json:"commit_id"`
	SubjectType string `json:"subject_type"`
	InReplyTo   *int64 `json:"in_reply_to"`
}

// validate checks one comment the way GitHub does: the path is in the pull
// request, the line is shown in a hunk, a start line is in the same hunk
// and before the line, the body fits. A file comment needs only the path.
func (s *Server) validate(pr *PR, c draftComment) string {
	if utf8.RuneCountInString(c.Body) > MaxBody {
		return fmt.Sprintf("Body is too long (maximum is %d characters)", MaxBody)
	}
	if c.Position != nil {
		return "position is deprecated here; use line" // plumb never sends it
	}
	if c.SubjectType == "file" {
		if c.Line != nil || c.StartLine != nil {
			return "a file comment has no line"
		}
		if !hasFile(pr, c.Path) {
			return "Path could not be resolved"
		}
		return ""
	}
	if c.Line == nil {
		return "line is required"
	}
	if c.Side != "" && c.Side != "RIGHT" {
		return "side must be RIGHT for lines of the new file"
	}
	hunk, ok := hunkOf(pr, c.Path, *c.Line)
	if !ok {
		return "Pull request review thread line must be part of the diff"
	}
	if c.StartLine != nil {
		if *c.StartLine >= *c.Line {
			return "start_line must precede line"
		}
		if h, ok := hunkOf(pr, c.Path, *c.StartLine); !ok || h != hunk {
			return "Pull request review thread start line must be in the same hunk as the line"
		}
	}
	return ""
}

func (s *Server) createReview(w http.ResponseWriter, r *http.Request, m []string, body []byte) {
	pr := s.pr(w, m)
	if pr == nil {
		return
	}
	var req struct {
		CommitID string         `json:"commit_id"`
		Body     string         `json:"body"`
		Event    string         `json:"event"`
		Comments []draftComment `json:"comments"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	var errs []string
	if req.CommitID != "" && req.CommitID != pr.HeadSHA {
		errs = append(errs, "commit_id is not the head of the pull request")
	}
	if req.Event == "COMMENT" && req.Body == "" && len(req.Comments) == 0 {
		errs = append(errs, "body is required for a COMMENT review")
	}
	if utf8.RuneCountInString(req.Body) > MaxBody {
		errs = append(errs, fmt.Sprintf("Body is too long (maximum is %d characters)", MaxBody))
	}
	for _, c := range req.Comments {
		if c.SubjectType != "" {
			// The reviews endpoint takes line comments only.
			errs = append(errs, "subject_type is not a permitted key")
			continue
		}
		if e := s.validate(pr, c); e != "" {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		// All or nothing, like GitHub.
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Unprocessable Entity", "errors": errs})
		return
	}
	s.nextID++
	rv := &Review{ID: s.nextID, PR: pr.Number, Body: req.Body, State: "COMMENTED", CommitID: pr.HeadSHA, User: s.author(r)}
	s.reviews = append(s.reviews, rv)
	for _, c := range req.Comments {
		s.addReview(pr, c, rv.ID, s.author(r))
	}
	writeJSON(w, http.StatusOK, rv)
}

func (s *Server) addReview(pr *PR, c draftComment, reviewID int64, by User) *ReviewComment {
	s.nextID++
	rc := &ReviewComment{
		ID: s.nextID, PR: pr.Number, Body: c.Body, Path: c.Path, Side: "RIGHT", SubjectType: "line",
		CommitID: pr.HeadSHA, User: by, ReviewID: reviewID,
		HTMLURL: fmt.Sprintf("https://github.com/%s/%s/pull/%d#discussion_r%d", s.Owner, s.Repo, pr.Number, s.nextID),
	}
	if c.SubjectType == "file" {
		rc.SubjectType, rc.Side = "file", ""
	} else {
		rc.Line, rc.OriginalLine = intPtr(*c.Line), *c.Line
	}
	if c.StartLine != nil {
		rc.StartLine = intPtr(*c.StartLine)
	}
	s.review = append(s.review, rc)
	return rc
}

// createReviewComment is POST .../pulls/{n}/comments: a comment on a line
// or (subject_type: file) a file, or with in_reply_to a reply in a thread.
func (s *Server) createReviewComment(w http.ResponseWriter, r *http.Request, m []string, body []byte) {
	pr := s.pr(w, m)
	if pr == nil {
		return
	}
	var c draftComment
	if err := json.Unmarshal(body, &c); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	if c.InReplyTo != nil {
		s.reply(w, r, pr, c)
		return
	}
	if c.CommitID != pr.HeadSHA {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []string{"commit_id is not the head of the pull request"}})
		return
	}
	if e := s.validate(pr, c); e != "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []string{e}})
		return
	}
	writeJSON(w, http.StatusCreated, s.addReview(pr, c, 0, s.author(r)))
}

// reply adds a comment to the thread of a top-level review comment.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, pr *PR, c draftComment) {
	var parent *ReviewComment
	for _, rc := range s.review {
		if rc.ID == *c.InReplyTo && rc.PR == pr.Number {
			parent = rc
		}
	}
	if parent == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
		return
	}
	if parent.InReplyTo != nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []string{"replies to replies are not supported"}})
		return
	}
	if e := bodyError(c.Body); e != "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []string{e}})
		return
	}
	s.nextID++
	rc := &ReviewComment{ID: s.nextID, PR: pr.Number, Body: c.Body, Path: parent.Path, Line: parent.Line,
		SubjectType: parent.SubjectType, Side: parent.Side, CommitID: pr.HeadSHA, InReplyTo: &parent.ID, User: s.author(r),
		HTMLURL: fmt.Sprintf("https://github.com/%s/%s/pull/%d#discussion_r%d", s.Owner, s.Repo, pr.Number, s.nextID)}
	s.review = append(s.review, rc)
	writeJSON(w, http.StatusCreated, rc)
}

// deleteReviewComment deletes any comment, as GitHub lets a token with
// write access do: a test sees it if plumb deletes what is not its own.
func (s *Server) deleteReviewComment(w http.ResponseWriter, _ *http.Request, m []string, _ []byte) {
	id, _ := strconv.ParseInt(m[3], 10, 64)
	for i, c := range s.review {
		if c.ID != id {
			continue
		}
		s.review = slices.Delete(s.review, i, i+1)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

func (s *Server) createIssueComment(w http.ResponseWriter, r *http.Request, m []string, body []byte) {
	pr := s.pr(w, m)
	if pr == nil {
		return
	}
	var req struct {
		Body string `json:"body"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	if e := bodyError(req.Body); e != "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []map[string]string{{"resource": "IssueComment", "code": "custom", "field": "body", "message": e}}})
		return
	}
	s.nextID++
	c := &IssueComment{ID: s.nextID, Issue: pr.Number, Body: req.Body, User: s.author(r),
		HTMLURL: fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", s.Owner, s.Repo, pr.Number, s.nextID)}
	s.issue = append(s.issue, c)
	writeJSON(w, http.StatusCreated, c)
}

func (s *Server) editIssueComment(w http.ResponseWriter, r *http.Request, m []string, body []byte) {
	id, _ := strconv.ParseInt(m[3], 10, 64)
	var req struct {
		Body string `json:"body"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": "Problems parsing JSON"})
		return
	}
	for _, c := range s.issue {
		if c.ID != id {
			continue
		}
		if c.User.Login != s.author(r).Login {
			writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration"})
			return
		}
		if e := bodyError(req.Body); e != "" {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []map[string]string{{"resource": "IssueComment", "code": "custom", "field": "body", "message": e}}})
			return
		}
		c.Body = req.Body
		writeJSON(w, http.StatusOK, c)
		return
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

// deleteIssueComment deletes a conversation comment, as GitHub lets a
// token with write access do for anyone's (a test sees it if plumb deletes
// what is not its own).
func (s *Server) deleteIssueComment(w http.ResponseWriter, _ *http.Request, m []string, _ []byte) {
	id, _ := strconv.ParseInt(m[3], 10, 64)
	for i, c := range s.issue {
		if c.ID != id {
			continue
		}
		s.issue = slices.Delete(s.issue, i, i+1)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

func bodyError(body string) string {
	if body == "" {
		return "body can't be blank"
	}
	if utf8.RuneCountInString(body) > MaxBody {
		return fmt.Sprintf("Body is too long (maximum is %d characters)", MaxBody)
	}
	return ""
}

// paginate serves one page of items with GitHub's Link header.
func paginate(w http.ResponseWriter, r *http.Request, items []any) {
	q := r.URL.Query()
	per := 30
	if v, err := strconv.Atoi(q.Get("per_page")); err == nil && v > 0 {
		per = min(v, 100)
	}
	page := 1
	if v, err := strconv.Atoi(q.Get("page")); err == nil && v > 0 {
		page = v
	}
	last := max(1, (len(items)+per-1)/per)
	start := min((page-1)*per, len(items))
	end := min(start+per, len(items))
	link := func(p int, rel string) string {
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path}
		qq := url.Values{}
		for k, v := range q {
			qq[k] = v
		}
		qq.Set("page", strconv.Itoa(p))
		u.RawQuery = qq.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(page-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	out := items[start:end]
	if out == nil {
		out = []any{}
	}
	writeJSON(w, http.StatusOK, out)
}
