// Package fakegithub is an httptest server that behaves like the parts of
// GitHub's REST and GraphQL APIs plumb uses, including the ways GitHub says
// no or answers oddly: 422 for a review comment anchored outside the diff
// (rejecting the whole review) and for bodies over 65,536 characters,
// Link-header pagination, 403 for a read-only token, 403 with Retry-After
// past 80 content-creating requests a minute, the primary rate limit with
// its X-RateLimit-* headers on every answer (a 200 can say the quota is
// spent), other bots and people writing on the same pull request, and
// injected failures: secondary limits, 5xx, a POST that is committed and
// still answered 502, a connection dropped after the write. Tests only.
package fakegithub

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Token permissions.
const (
	Write = "write"
	Read  = "read"
)

// BotLogin is the author of everything an installation token creates, as
// with GITHUB_TOKEN; GraphQL calls the same account BotGraphQLLogin.
const (
	BotLogin        = "github-actions[bot]"
	BotGraphQLLogin = "github-actions"
)

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
	// create is theirs.
	Users map[string]string
	// Bots maps the installation tokens of other GitHub Apps to their bot
	// login ("other-app[bot]"). Tokens in neither map act as GITHUB_TOKEN:
	// GET /user is refused and everything is created by BotLogin.
	Bots map[string]string
	// Clock is the server's time (for the content-creation limit and the
	// rate limit); share it with the client's transport so pacing and
	// limits agree.
	Clock *Clock
	// CreationLimit is the most content-creating requests a minute (80).
	CreationLimit int
	// GraphQLDisabled makes /graphql answer 404, as an old GitHub
	// Enterprise Server without it would.
	GraphQLDisabled bool
	// ThreadPageSize is how many review threads one GraphQL page holds
	// (GitHub's largest page, 100, when 0; tests lower it to exercise
	// pagination).
	ThreadPageSize int

	gatesMu sync.Mutex
	gates   []*Gate

	mu       sync.Mutex
	prs      map[int]*PR
	review   []*ReviewComment
	reviews  []*Review
	issue    []*IssueComment
	resolved map[int64]bool // threads (by their first comment) marked resolved
	requests []Request
	faults   []*Fault
	created  []time.Time
	quota    quota
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
	// SubjectType is "line" or "file" (a comment on the whole file).
	SubjectType string `json:"subject_type"`
	CommitID    string `json:"commit_id"`
	InReplyTo   *int64 `json:"in_reply_to_id,omitempty"`
	User        User   `json:"user"`
	ReviewID    int64  `json:"pull_request_review_id"`
	HTMLURL     string `json:"html_url"`
}

// Review is a pull request review (its body; the comments are
// ReviewComments).
type Review struct {
	ID       int64  `json:"id"`
	PR       int    `json:"-"`
	Body     string `json:"body"`
	State    string `json:"state"`
	CommitID string `json:"commit_id"`
	User     User   `json:"user"`
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
	// GraphQL names what a /graphql request asked for (viewer,
	// reviewThreads, resolveReviewThread).
	GraphQL string
}

func (r Request) String() string {
	if r.GraphQL != "" {
		return r.Method + " " + r.Path + " " + r.GraphQL
	}
	return r.Method + " " + r.Path
}

// Fault makes the next Count requests matching Method and Path (a regular
// expression on the URL path) fail with Status, Header and Body. With
// Commit the request is carried out first, as when GitHub stores a comment
// and its edge still answers 502; with Drop the connection is closed
// without an answer (what a client sees of a timeout).
type Fault struct {
	Method string
	Path   string
	Count  int
	Status int
	Header map[string]string
	Body   string
	Commit bool
	Drop   bool
}

// New starts a fake for owner/repo with one write token ("write-token") and
// one read-only token ("read-token").
func New(owner, repo string) *Server {
	s := &Server{
		Owner:         owner,
		Repo:          repo,
		Tokens:        map[string]string{"write-token": Write, "read-token": Read},
		Users:         map[string]string{},
		Bots:          map[string]string{},
		Clock:         NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
		CreationLimit: 80,
		prs:           map[int]*PR{},
		resolved:      map[int64]bool{},
		nextID:        1000,
	}
	s.quota = newQuota(s.Clock.Now())
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
// null), the others stay; file comments stay while their file is in the
// pull request.
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
// reviewer, another bot) and returns its id.
func (s *Server) AddReviewComment(c ReviewComment) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	c.ID = s.nextID
	if c.SubjectType == "" {
		c.SubjectType = "line"
	}
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

// Reviews returns the reviews of a pull request.
func (s *Server) Reviews(number int) []Review {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Review
	for _, r := range s.reviews {
		if r.PR == number {
			out = append(out, *r)
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

// Resolved reports whether the review thread that starts with comment id
// is resolved.
func (s *Server) Resolved(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resolved[id]
}

// SetResolved marks a thread resolved or not, as a person clicking
// "Resolve conversation" or "Unresolve" does.
func (s *Server) SetResolved(id int64, resolved bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resolved[id] = resolved
}

type handler func(s *Server, w http.ResponseWriter, r *http.Request, m []string, body []byte)

var routes = []struct {
	method  string
	pattern *regexp.Regexp
	handle  handler
}{
	{"GET", regexp.MustCompile(`^/user$`), (*Server).getUser},
	{"POST", regexp.MustCompile(`^/graphql$`), (*Server).graphql},
	{"GET", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)$`), (*Server).getPR},
	{"GET", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)/files$`), (*Server).listFiles},
	{"GET", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)/comments$`), (*Server).listReviewComments},
	{"GET", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)/reviews$`), (*Server).listReviews},
	{"POST", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)/reviews$`), (*Server).createReview},
	{"POST", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/(\d+)/comments$`), (*Server).createReviewComment},
	{"DELETE", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/pulls/comments/(\d+)$`), (*Server).deleteReviewComment},
	{"GET", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)/comments$`), (*Server).listIssueComments},
	{"POST", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/(\d+)/comments$`), (*Server).createIssueComment},
	{"PATCH", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/comments/(\d+)$`), (*Server).editIssueComment},
	{"DELETE", regexp.MustCompile(`^/repos/([^/]+)/([^/]+)/issues/comments/(\d+)$`), (*Server).deleteIssueComment},
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.wait(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	path := r.URL.Path
	if r.URL.RawQuery != "" {
		q := r.URL.Query() // re-encoded: sorted keys
		path += "?" + q.Encode()
	}
	req := Request{Method: r.Method, Path: path, Body: string(body)}
	if r.URL.Path == "/graphql" {
		req.GraphQL = graphqlField(body)
	}
	s.requests = append(s.requests, req)

	for i, f := range s.faults {
		if f.Method != r.Method || !regexp.MustCompile(f.Path).MatchString(r.URL.Path) {
			continue
		}
		f.Count--
		if f.Count <= 0 {
			s.faults = slices.Delete(s.faults, i, i+1)
		}
		if f.Commit {
			s.handle(httptest.NewRecorder(), r, body)
		}
		if f.Drop {
			dropConnection(w)
			return
		}
		for k, v := range f.Header {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.Status)
		_, _ = io.WriteString(w, f.Body) // the client sees a short body, as from GitHub
		return
	}
	s.handle(w, r, body)
}

// dropConnection closes the client's connection without an answer.
func dropConnection(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	panic(http.ErrAbortHandler)
}

// handle answers a request as GitHub would: credentials, permissions, the
// rate limit, the content-creation limit, then the route.
func (s *Server) handle(w http.ResponseWriter, r *http.Request, body []byte) {
	perm, ok := s.Tokens[requestToken(r)]
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]string{"message": "Bad credentials"})
		return
	}
	graphql := r.URL.Path == "/graphql"
	if !graphql && !s.quota.take(w, s.Clock.Now()) {
		writeJSON(w, http.StatusForbidden, map[string]string{
			"message":           "API rate limit exceeded for installation ID 1.",
			"documentation_url": "https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting",
		})
		return
	}
	mutating := r.Method != http.MethodGet && r.Method != http.MethodHead && !graphql
	if mutating && perm != Write {
		writeJSON(w, http.StatusForbidden, map[string]string{
			"message":           "Resource not accessible by integration",
			"documentation_url": "https://docs.github.com/rest",
		})
		return
	}
	if mutating && !s.allowCreation() {
		w.Header().Set("Retry-After", "60")
		writeJSON(w, http.StatusForbidden, map[string]string{
			"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
		})
		return
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
		if graphql && s.GraphQLDisabled {
			break
		}
		rt.handle(s, w, r, m, body)
		return
	}
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
}

// allowCreation counts a content-creating request against the limit of
// CreationLimit a minute.
func (s *Server) allowCreation() bool {
	now := s.Clock.Now()
	recent := s.created[:0]
	for _, t := range s.created {
		if now.Sub(t) < time.Minute {
			recent = append(recent, t)
		}
	}
	s.created = recent
	if len(s.created) >= s.CreationLimit {
		return false
	}
	s.created = append(s.created, now)
	return true
}

// author is who creates content with the request's token.
func (s *Server) author(r *http.Request) User {
	tok := requestToken(r)
	if login := s.Users[tok]; login != "" {
		return User{Login: login, Type: "User"}
	}
	if login := s.Bots[tok]; login != "" {
		return User{Login: login, Type: "Bot"}
	}
	return User{Login: BotLogin, Type: "Bot"}
}

func requestToken(r *http.Request) string {
	return strings.TrimPrefix(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), "token ")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client sees a short body, as from GitHub
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
					_, _ = fmt.Sscanf(l, "@@ -%d +%d", &a, &c) // a header that does not parse leaves c at 0: no line matches
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

// hasFile reports whether the pull request changes path.
func hasFile(pr *PR, path string) bool {
	for _, f := range pr.Files {
		if f.Filename == path {
			return true
		}
	}
	return false
}

func (s *Server) pr(w http.ResponseWriter, m []string) *PR {
	n, _ := strconv.Atoi(m[3])
	pr := s.prs[n]
	if pr == nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found"})
	}
	return pr
}
