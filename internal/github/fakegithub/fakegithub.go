// Package fakegithub is an httptest server that behaves like the parts of
// GitHub's REST API plumb uses, including the ways GitHub says no: 422 for a
// review comment anchored outside the diff (rejecting the whole review) and
// for bodies over 65,536 characters, Link-header pagination, 403 for a
// read-only token, 403 with Retry-After past 80 content-creating requests a
// minute, and injected failures (secondary limits, 5xx). Tests only.
package fakegithub

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Token permissions.
const (
	Write = "write"
	Read  = "read"
)

// BotLogin is the author of everything the fake creates, as with
// GITHUB_TOKEN.
const BotLogin = "github-actions[bot]"

// MaxBody is GitHub's comment body limit in characters.
const MaxBody = 65536

// Server is the fake. Lock-free fields are set up before the first request.
type Server struct {
	*httptest.Server
	Owner, Repo string
	// Tokens maps a token to Write or Read.
	Tokens map[string]string
	// Users maps the tokens that belong to a person (a personal access
	// token) to their login: GET /user answers with it and what they
	// create is theirs. Other tokens act as GITHUB_TOKEN does: GET /user
	// is refused and everything is created by BotLogin.
	Users map[string]string
	// Clock is the server's time (for the content-creation limit); share it
	// with the client's transport so pacing and limits agree.
	Clock *Clock
	// CreationLimit is the most content-creating requests a minute (80).
	CreationLimit int

	mu       sync.Mutex
	prs      map[int]*PR
	review   []*ReviewComment
	issue    []*IssueComment
	requests []Request
	faults   []*Fault
	created  []time.Time
	nextID   int64
}

// PR is a pull request.
type PR struct {
	Number           int
	HeadSHA, BaseSHA string
	HeadRepo         string // owner/name; the base repository when empty
	Files            []File
}

// File is one changed file with its patch (hunks only) and its blob id at
// the head (SHA, optional).
type File struct {
	Filename, Status, Patch string
	SHA                     string
}

// ReviewComment is a pull request review comment.
type ReviewComment struct {
	ID           int64  `json:"id"`
	PR           int    `json:"-"`
	Body         string `json:"body"`
	Path         string `json:"path"`
	Line         *int   `json:"line"`
	StartLine    *int   `json:"start_line"`
	OriginalLine int    `json:"original_line"`
	Side         string `json:"side"`
	CommitID     string `json:"commit_id"`
	InReplyTo    *int64 `json:"in_reply_to_id,omitempty"`
	User         User   `json:"user"`
	ReviewID     int64  `json:"pull_request_review_id"`
	HTMLURL      string `json:"html_url"`
}

// IssueComment is a pull request conversation comment.
type IssueComment struct {
	ID      int64  `json:"id"`
	Issue   int    `json:"-"`
	Body    string `json:"body"`
	User    User   `json:"user"`
	HTMLURL string `json:"html_url"`
}

// User is a comment author.
type User struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

// Request is one request the server received.
type Request struct {
	Method string
	// Path is the URL path with its query, e.g.
	// /repos/o/r/pulls/1/files?page=2&per_page=100.
	Path string
	Body string
}

func (r Request) String() string { return r.Method + " " + r.Path }

// Fault makes the next Count requests matching Method and Path (a regular
// expression on the URL path) fail with Status, Header and Body.
type Fault struct {
	Method string
	Path   string
	Count  int
	Status int
	Header map[string]string
	Body   string
}

// New starts a fake for owner/repo with one write token ("write-token") and
// one read-only token ("read-token").
func New(owner, repo string) *Server {
	s := &Server{
		Owner:         owner,
		Repo:          repo,
		Tokens:        map[string]string{"write-token": Write, "read-token": Read},
		Users:         map[string]string{},
		Clock:         NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
		CreationLimit: 80,
		prs:           map[int]*PR{},
		nextID:        1000,
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// AddPR adds or replaces a pull request.
func (s *Server) AddPR(pr *PR) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prs[pr.Number] = pr
}

// Push moves a pull request to a new head with new files, as a push does:
// review comments whose line is no longer in the diff become outdated (line
// null), the others stay.
func (s *Server) Push(number int, headSHA string, files []File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pr := s.prs[number]
	pr.HeadSHA, pr.Files = headSHA, files
	for _, c := range s.review {
		if c.PR != number || c.Line == nil {
			continue
		}
		if _, ok := hunkOf(pr, c.Path, *c.Line); !ok {
			c.Line, c.StartLine = nil, nil
		}
	}
}

// AddReviewComment adds a comment as someone else would (a reply, a human
// reviewer) and returns its id.
func (s *Server) AddReviewComment(c ReviewComment) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	c.ID = s.nextID
	s.review = append(s.review, &c)
	return c.ID
}

// AddIssueComment adds a conversation comment and returns its id.
func (s *Server) AddIssueComment(c IssueComment) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	c.ID = s.nextID
	s.issue = append(s.issue, &c)
	return c.ID
}

// Inject queues a fault.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, &f)
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// ResetRequests forgets the requests received so far.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

// ReviewComments returns the review comments of a pull request.
func (s *Server) ReviewComments(number int) []ReviewComment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ReviewComment
	for _, c := range s.review {
		if c.PR == number {
			out = append(out, *c)
		}
	}
	return out
}

// IssueComments returns the conversation comments of a pull request.
func (s *Server) IssueComments(number int) []IssueComment {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []IssueComment
	for _, c := range s.issue {
		if c.Issue == number {
			out = append(out, *c)
		}
	}
	return out
}

var routes = []struct {
	method  string
	pattern *regexp.Regexp
	handle  func(s *Server, w http.ResponseWriter, r *http.Request, m []string, body []byte)
}{
	{"GET", regexp.MustCompile(`^/user$`), (*Server).getUser},
	{"GET", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)$`), (*Server).getPR},
	{"GET", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)/files$`), (*Server).listFiles},
	{"GET", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)/comments$`), (*Server).listReviewComments},
	{"POST", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)/reviews$`), (*Server).createReview},
	{"POST", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)/comments$`), (*Server).createReviewComment},
	{"DELETE", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/comments/(\d+)$`), (*Server).deleteReviewComment},
	{"GET", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)/comments$`), (*Server).listIssueComments},
	{"POST", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)/comments$`), (*Server).createIssueComment},
	{"PATCH", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/comments/(\d+)$`), (*Server).editIssueComment},
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	defer s.mu.Unlock()
	path := r.URL.Path
	if r.URL.RawQuery != "" {
		q := r.URL.Query() // re-encoded: sorted keys
		path += "?" + q.Encode()
	}
	s.requests = append(s.requests, Request{Method: r.Method, Path: path, Body: string(body)})

	for i, f := range s.faults {
		if f.Method == r.Method && regexp.MustCompile(f.Path).MatchString(r.URL.Path) {
			f.Count--
			if f.Count <= 0 {
				s.faults = slices.Delete(s.faults, i, i+1)
			}
			for k, v := range f.Header {
				w.Header().Set(k, v)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(f.Status)
			io.WriteString(w, f.Body)
			return
		}
	}

	perm, ok := s.Tokens[requestToken(r)]
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials"})
		return
	}
	mutating := r.Method != http.MethodGet && r.Method != http.MethodHead
	if mutating && perm != Write {
		writeJSON(w, http.StatusForbidden, map[string]string{
			"message":           "Resource not accessible by integration",
			"documentation_url": "https://docs.github.com/rest",
		})
		return
	}
	if mutating {
		now := s.Clock.Now()
		recent := s.created[:0]
		for _, t := range s.created {
			if now.Sub(t) < time.Minute {
				recent = append(recent, t)
			}
		}
		s.created = recent
		if len(s.created) >= s.CreationLimit {
			w.Header().Set("Retry-After", "60")
			writeJSON(w, http.StatusForbidden, map[string]string{
				"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
			})
			return
		}
		s.created = append(s.created, now)
	}

	for _, rt := range routes {
		if rt.method != r.Method {
			continue
		}
		m := rt.pattern.FindStringSubmatch(r.URL.Path)
		if m == nil {
			continue
		}
		if len(m) > 2 && (m[1] != s.Owner || m[2] != s.Repo) {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
			return
		}
		rt.handle(s, w, r, m, body)
		return
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

// author is who creates content with the request's token.
func (s *Server) author(r *http.Request) User {
	if login := s.Users[requestToken(r)]; login != "" {
		return User{Login: login, Type: "User"}
	}
	return User{Login: BotLogin, Type: "Bot"}
}

func requestToken(r *http.Request) string {
	return strings.TrimPrefix(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), "token ")
}

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

func (s *Server) pr(w http.ResponseWriter, m []string) *PR {
	n, _ := strconv.Atoi(m[3])
	pr := s.prs[n]
	if pr == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	}
	return pr
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
	Path      string `json:"path"`
	Body      string `json:"body"`
	Line      *int   `json:"line"`
	Side      string `json:"side"`
	StartLine *int   `json:"start_line"`
	StartSide string `json:"start_side"`
	Position  *int   `json:"position"`
	CommitID  string `json:"commit_id"`
}

// validate checks one comment the way GitHub does: the path is in the pull
// request, the line is shown in a hunk, a start line is in the same hunk
// and before the line, the body fits.
func (s *Server) validate(pr *PR, c draftComment) string {
	if utf8.RuneCountInString(c.Body) > MaxBody {
		return fmt.Sprintf("Body is too long (maximum is %d characters)", MaxBody)
	}
	if c.Position != nil {
		return "position is deprecated here; use line" // plumb never sends it
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
	reviewID := s.nextID
	for _, c := range req.Comments {
		s.addReview(pr, c, reviewID, s.author(r))
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": reviewID, "body": req.Body, "state": "COMMENTED", "commit_id": pr.HeadSHA})
}

func (s *Server) addReview(pr *PR, c draftComment, reviewID int64, by User) *ReviewComment {
	s.nextID++
	rc := &ReviewComment{
		ID: s.nextID, PR: pr.Number, Body: c.Body, Path: c.Path, Side: "RIGHT",
		Line: intPtr(*c.Line), OriginalLine: *c.Line, CommitID: pr.HeadSHA,
		User: by, ReviewID: reviewID,
		HTMLURL: fmt.Sprintf("https://github.com/%s/%s/pull/%d#discussion_r%d", s.Owner, s.Repo, pr.Number, s.nextID),
	}
	if c.StartLine != nil {
		rc.StartLine = intPtr(*c.StartLine)
	}
	s.review = append(s.review, rc)
	return rc
}

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

func (s *Server) deleteReviewComment(w http.ResponseWriter, _ *http.Request, m []string, _ []byte) {
	id, _ := strconv.ParseInt(m[3], 10, 64)
	for i, c := range s.review {
		if c.ID == id {
			s.review = slices.Delete(s.review, i, i+1)
			w.WriteHeader(http.StatusNoContent)
			return
		}
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

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func intPtr(i int) *int { return &i }

// hunkOf finds the hunk of a file's patch that shows new-side line, by
// reading the patch the way GitHub renders it. (An implementation separate
// from plumb's, so tests compare two readings of the diff.)
func hunkOf(pr *PR, path string, line int) (int, bool) {
	for _, f := range pr.Files {
		if f.Filename != path {
			continue
		}
		hunk, newLine := -1, 0
		for _, l := range strings.Split(f.Patch, "\n") {
			if strings.HasPrefix(l, "@@ ") {
				hunk++
				var a, b, c, d int
				if n, _ := fmt.Sscanf(l, "@@ -%d,%d +%d,%d @@", &a, &b, &c, &d); n < 3 {
					fmt.Sscanf(l, "@@ -%d +%d", &a, &c)
				}
				newLine = c
				continue
			}
			if hunk < 0 || l == "" {
				continue
			}
			switch l[0] {
			case '+', ' ':
				if newLine == line {
					return hunk, true
				}
				newLine++
			}
		}
	}
	return 0, false
}

// Clock is a fake clock: Sleep advances it at once.
type Clock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

// NewClock starts a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep advances the clock.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.slept = append(c.slept, d)
	return nil
}

// Slept returns every sleep so far.
func (c *Clock) Slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.slept)
}
