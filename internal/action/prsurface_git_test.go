package action

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/github"
	"github.com/plumb-ci/plumb/internal/github/fakegithub"
	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
)

func decode(t *testing.T, body string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
}

// diffFiles are the pull request's files as GitHub lists them: the staged
// tree of the workspace against the base commit.
func diffFiles(r *gittest.Repo, ws, baseCommit string) []fakegithub.File {
	var files []fakegithub.File
	for _, line := range strings.Split(strings.TrimSpace(r.Git("diff", "--cached", "--name-status", baseCommit)), "\n") {
		status, name, _ := strings.Cut(line, "\t")
		f := fakegithub.File{Filename: name, Status: map[string]string{"A": "added", "M": "modified", "D": "removed"}[status]}
		patch := r.Git("diff", "--cached", "--no-color", "-U3", baseCommit, "--", name)
		if i := strings.Index(patch, "\n@@"); i >= 0 {
			f.Patch = strings.TrimSuffix(patch[i+1:], "\n")
		}
		if content, err := os.ReadFile(filepath.Join(ws, name)); err == nil {
			f.SHA = github.BlobID(content)
		}
		files = append(files, f)
	}
	return files
}

// gitPR builds a pull request from two versions of a repository: base is
// committed, head is the working tree. It returns the harness (the action
// in pull-request mode against the base commit) with the pull request's
// files as GitHub lists them: git's own patches, hunks only.
func gitPR(t *testing.T, base, head map[string]string) *harness {
	t.Helper()
	ws := t.TempDir()
	r := gittest.Open(t, ws)
	r.Git("init", "-q", "-b", "main")
	r.Write(base)
	baseCommit := r.Commit("base")
	for name := range base {
		if _, ok := head[name]; !ok {
			r.Remove(name)
		}
	}
	r.Write(head)
	r.Git("add", "-A")
	files := diffFiles(r, ws, baseCommit)
	h := newHarnessIn(t, ws, files)
	h.env["INPUT_BASE-REF"] = baseCommit
	h.env["INPUT_CONFIG"] = ""
	return h
}

// deployment is a Deployment of one container with resources; limits are
// the limits: block ("" for none).
func deployment(name, cm, limits string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ` + name + `
  namespace: shop
spec:
  replicas: 1
  selector:
    matchLabels: {app: ` + name + `}
  template:
    metadata:
      labels: {app: ` + name + `}
    spec:
      containers:
        - name: ` + name + `
          image: registry.example.com/shop/` + name + `:1.4.2
          envFrom:
            - configMapRef: {name: ` + cm + `}
          ports:
            - containerPort: 8080
          readinessProbe:
            httpGet: {path: /ready, port: 8080}
          livenessProbe:
            httpGet: {path: /live, port: 8080}
          resources:
            requests: {cpu: 100m, memory: 64Mi}
` + limits
}

const limits = "            limits: {memory: 128Mi}\n"

// 5. A new finding on a line the pull request did not change still reaches
// the author: removing limits makes the unchanged container line a
// finding (a comment on its file, which the pull request changes);
// deleting a ConfigMap makes a workload in an unchanged file a finding (a
// line in the review's body). The review body counts them apart from the
// comments on changed lines, and a rerun posts none of them again.
func TestActionBringsNewFindingsOnUnchangedLinesToTheAuthor(t *testing.T) {
	cm := func(name string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: shop\ndata:\n  mode: fast\n"
	}
	base := map[string]string{
		"apps/web/deploy.yaml": deployment("web", "web-config", limits),
		"apps/web/config.yaml": cm("web-config"),
		"apps/api/deploy.yaml": deployment("api", "api-config", limits),
		"apps/api/config.yaml": cm("api-config"),
	}
	head := map[string]string{
		"apps/web/deploy.yaml": deployment("web", "web-config", ""),
		"apps/web/config.yaml": cm("web-config"),
		"apps/api/deploy.yaml": deployment("api", "api-config", limits),
	}
	h := gitPR(t, base, head)
	r := h.run("41")
	assertRequests(t, r.requests, filesReq, commentsReq, reviewsReq, headReq, reviewsReq, postReview, postComment, issueReq, headReq, postIssue, issueReq)

	var review struct {
		Body     string `json:"body"`
		Comments []any  `json:"comments"`
	}
	decode(t, requestOf(t, r.requests, postReview).Body, &review)
	if len(review.Comments) != 0 {
		t.Errorf("line comments %v, want none (no finding is on a changed line)", review.Comments)
	}
	for _, want := range []string{
		"plumb: 1 comment on a file it changed, about new findings on lines it did not change; 1 new finding in files it does not change, listed below.",
		"- ⚠️ `apps/api/deploy.yaml:18` `check/F10002` — ConfigMap api-config is referenced but not defined in this render target",
	} {
		if !strings.Contains(review.Body, want) {
			t.Errorf("review body lacks %q:\n%s", want, review.Body)
		}
	}
	var file struct {
		Path        string `json:"path"`
		SubjectType string `json:"subject_type"`
		Line        *int   `json:"line"`
		Body        string `json:"body"`
	}
	decode(t, requestOf(t, r.requests, postComment).Body, &file)
	if file.Path != "apps/web/deploy.yaml" || file.SubjectType != "file" || file.Line != nil ||
		!strings.Contains(file.Body, "on line 15, which it did not change") || !strings.Contains(file.Body, "`check/A10003`") {
		t.Errorf("file comment %+v", file)
	}
	if !strings.Contains(r.summary, "2 new findings on lines this pull request did not change") &&
		!strings.Contains(r.summary, "1 new finding on lines this pull request did not change: a comment on its file. 1 new finding in files this pull request does not change, listed in the review.") {
		t.Errorf("job summary:\n%s", r.summary)
	}

	// The rerun: everything is already there.
	summary := h.srv.IssueComments(7)[0].ID
	r = h.run("42")
	assertRequests(t, r.requests, filesReq, commentsReq, viewer, reviewsReq, issueReq, headReq, editSummary(summary))
}

// 7. The summary comment lists a finding that reads alike in several
// overlays once, naming the overlays.
func TestActionSummaryListsAlikeFindingsOnce(t *testing.T) {
	files := map[string]string{
		"apps/base/kustomization.yaml":          "resources: [deploy.yaml, config.yaml]\n",
		"apps/base/deploy.yaml":                 deployment("web", "web-config", ""),
		"apps/base/config.yaml":                 "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\n  namespace: shop\n",
		"apps/overlays/dev/kustomization.yaml":  "resources: [../../base]\n",
		"apps/overlays/prod/kustomization.yaml": "resources: [../../base]\n",
	}
	ws := t.TempDir()
	for name, content := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarnessIn(t, ws, []fakegithub.File{{Filename: "apps/base/deploy.yaml", Status: "added",
		Patch: "@@ -0,0 +1,2 @@\n+apiVersion: apps/v1\n+kind: Deployment"}})
	h.env["INPUT_CONFIG"] = ""
	h.env["INPUT_REVIEW-COMMENTS"] = "false"
	r := h.run("41")
	assertRequests(t, r.requests, issueReq, headReq, postIssue, issueReq)
	body := h.srv.IssueComments(7)[0].Body
	row := "has no memory limit (resources.limits.memory)<br><sub>Deployment shop/web in 2 targets \\[apps/overlays/dev, apps/overlays/prod\\] `spec.template.spec.containers[0]`</sub>"
	if strings.Count(body, "has no memory limit") != 1 || !strings.Contains(body, row) {
		t.Errorf("summary comment:\n%s", body)
	}
}

// addedFile is the pull request file entry of a file it adds.
func addedFile(name, content string) fakegithub.File {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	return fakegithub.File{Filename: name, Status: "added",
		Patch: fmt.Sprintf("@@ -0,0 +1,%d @@\n+%s", len(lines), strings.Join(lines, "\n+"))}
}

// A container added without a securityContext fails five checks of the
// default catalog that have a mechanical fix: the review carries one
// suggested change that fixes all five (in the first comment; the others
// point to it), and once a reviewer applies it, plumb finds none of them.
func TestActionSuggestsChangesAReviewerAppliesInOneClick(t *testing.T) {
	ws := t.TempDir()
	content := deployment("web", "web-config", limits)
	files := map[string]string{"apps/web/deploy.yaml": content,
		"apps/web/config.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\n  namespace: shop\n"}
	for name, c := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarnessIn(t, ws, []fakegithub.File{addedFile("apps/web/deploy.yaml", content)})
	h.env["INPUT_CONFIG"] = ""
	r := h.run("41")
	comments := reviewComments(t, r.requests)
	if len(comments) != 1 {
		t.Fatalf("%d reviews", len(comments))
	}
	// Two comments: the five problems of the container line in one (a
	// checklist, the joint suggestion once), the label's in the other.
	if len(comments[0]) != 2 {
		t.Fatalf("%d comments, want 2", len(comments[0]))
	}
	var carrier map[string]any
	for _, c := range comments[0] {
		body := c["body"].(string)
		if strings.Contains(body, "fixes this too") {
			t.Errorf("a comment only points at another's suggestion:\n%s", body)
		}
		if strings.Contains(body, "```suggestion") {
			carrier = c
		}
	}
	if carrier == nil {
		t.Fatal("no comment suggests the change")
	}
	body := carrier["body"].(string)
	for _, rule := range []string{"D10001", "D10002", "D10006", "D10007", "D10011"} {
		if !strings.Contains(body, "· `check/"+rule+"` · ") || !strings.Contains(body, "<details><summary>How to fix <code>check/"+rule+"</code>") {
			t.Errorf("the carrier does not list check/%s with its remediation:\n%s", rule, body)
		}
	}
	if n := strings.Count(body, " — _the suggested change below fixes it_\n"); n != 5 || strings.Count(body, "```suggestion") != 1 || !strings.HasPrefix(body, "<!-- plumb:finding -->\n**5 problems here:**\n") {
		t.Errorf("carrier (%d fixed by the suggestion, want 5):\n%s", n, body)
	}
	if carrier["line"].(float64) != 15 || carrier["start_line"] != nil {
		t.Errorf("anchored at %v-%v, want line 15 (the container)", carrier["start_line"], carrier["line"])
	}
	if !strings.Contains(r.summary, "Review comments: 2 posted about 6 findings (1 with a suggested change).") {
		t.Errorf("job summary:\n%s", r.summary)
	}

	// A rerun posts nothing and deletes nothing: every problem is in a
	// comment already.
	again := h.run("43")
	for _, req := range again.requests {
		// (The summary comment is edited: its note now says "already there".)
		if req.Method != "GET" && req.GraphQL != "viewer" && !strings.HasPrefix(req.Path, "/repos/acme/shop/issues/comments/") {
			t.Errorf("the rerun wrote %s %s", req.Method, req.Path)
		}
	}
	if n := len(h.srv.ReviewComments(7)); n != 2 {
		t.Errorf("%d review comments after the rerun, want 2", n)
	}

	// The reviewer commits the suggestion: it replaces the anchored line.
	suggestion := strings.SplitN(strings.SplitN(body, "```suggestion\n", 2)[1], "\n```", 2)[0]
	lines := strings.Split(content, "\n")
	lines[14] = suggestion
	if err := os.WriteFile(filepath.Join(ws, "apps/web/deploy.yaml"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	h.env["INPUT_REVIEW-COMMENTS"] = "false"
	h.env["INPUT_SUMMARY-COMMENT"] = "false"
	r = h.run("42")
	for _, rule := range []string{"D10001", "D10002", "D10006", "D10007", "D10011"} {
		if strings.Contains(r.stdout, "[check/"+rule+"]") {
			t.Errorf("check/%s still fails after the suggestion was applied", rule)
		}
	}
}
