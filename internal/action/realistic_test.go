package action

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// realisticBase is a repository as teams keep one: a kustomize base shared
// by three overlays (prod patches replicas and the image) and a Helm chart
// with a production values file, checked with the default catalog. The
// base revision already has findings of its own (the backlog).
func realisticBase() map[string]string {
	return map[string]string{
		"apps/shop/base/kustomization.yaml": "resources: [deploy.yaml, service.yaml, cache.yaml]\n",
		"apps/shop/base/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: backend
  namespace: shop
spec:
  replicas: 2
  minReadySeconds: 3
  selector:
    matchLabels: {app: backend}
  template:
    metadata:
      labels: {app: backend}
    spec:
      containers:
        - name: backend
          image: registry.example.com/shop/backend:2.3.1
          env:
            - name: CACHE_HOST
              value: cache
          ports:
            - containerPort: 8080
          resources:
            requests: {cpu: 250m, memory: 256Mi}
            limits: {memory: 512Mi}
`,
		"apps/shop/base/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: backend
  namespace: shop
spec:
  selector: {app: backend}
  ports:
    - port: 80
      targetPort: 8080
`,
		"apps/shop/base/cache.yaml": `apiVersion: v1
kind: Service
metadata:
  name: cache
  namespace: shop
spec:
  selector: {app: cache}
  ports:
    - port: 6379
`,
		"apps/shop/overlays/dev/kustomization.yaml":     "resources: [../../base]\n",
		"apps/shop/overlays/staging/kustomization.yaml": "resources: [../../base]\n",
		"apps/shop/overlays/prod/kustomization.yaml":    "resources: [../../base]\npatches:\n  - path: scale.yaml\n",
		"apps/shop/overlays/prod/scale.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: backend
  namespace: shop
spec:
  replicas: 4
`,
		"charts/worker/Chart.yaml": "apiVersion: v2\nname: worker\nversion: 0.1.0\n",
		"charts/worker/values.yaml": `image:
  repository: registry.example.com/shop/worker
  tag: "1.8.0"
replicas: 1
resources:
  requests: {cpu: 100m, memory: 128Mi}
  limits: {memory: 1Gi}
`,
		"charts/worker/values-prod.yaml": "replicas: 3\n",
		"charts/worker/templates/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-worker
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: worker}
  template:
    metadata:
      labels: {app: worker}
    spec:
      containers:
        - name: worker
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          resources: {{ toYaml .Values.resources | nindent 12 }}
`,
	}
}

// realisticHead is the pull request: the backend image moves to latest in
// the base (every overlay), its memory limit is dropped, the worker's
// request goes above its limit in production values.
func realisticHead() map[string]string {
	head := realisticBase()
	head["apps/shop/base/deploy.yaml"] = strings.NewReplacer(
		"backend:2.3.1", "backend:latest",
		"            limits: {memory: 512Mi}\n", "").Replace(head["apps/shop/base/deploy.yaml"])
	head["charts/worker/values-prod.yaml"] = "replicas: 3\nresources:\n  requests: {cpu: 100m, memory: 2Gi}\n  limits: {memory: 1Gi}\n"
	return head
}

func firstNLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n") + "\n"
}

// TestActionRealisticPullRequest runs the action on the realistic pull
// request; with PLUMB_SUMMARY_OUT set it writes the summary comment's
// first 30 lines there (what the issue note shows).
func TestActionRealisticPullRequest(t *testing.T) {
	h := gitPR(t, realisticBase(), realisticHead())
	h.env["INPUT_PATHS"] = "."
	r := h.run("41")
	comments := h.srv.IssueComments(7)
	if len(comments) != 1 {
		t.Fatalf("%d summary comments\n%s", len(comments), r.stdout)
	}
	body := comments[0].Body
	if out := os.Getenv("PLUMB_SUMMARY_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(firstNLines(body, 30)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out+".full", []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(out+".job", []byte(r.summary), 0o644); err != nil {
			t.Fatal(err)
		}
		var review strings.Builder
		for _, c := range h.srv.ReviewComments(7) {
			line := 0
			if c.Line != nil {
				line = *c.Line
			}
			fmt.Fprintf(&review, "===== %s:%d\n%s\n", c.Path, line, c.Body)
		}
		if err := os.WriteFile(out+".review", []byte(review.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The realistic pull request's headline counts the change: three new
// errors (two of them in the base shared by three overlays, one problem
// each), 20 findings already on main counted and left to the job summary;
// the table, the review and the outputs count the same.
func TestActionRealisticHeadline(t *testing.T) {
	h := gitPR(t, realisticBase(), realisticHead())
	h.env["INPUT_PATHS"] = "."
	r := h.run("41")
	body := visibleSummary(h.srv.IssueComments(7)[0].Body)
	title := "<!-- plumb:summary -->\n### plumb: 3 new errors · 20 findings already on `main`, in the [job summary](https://github.com/acme/shop/actions/runs/41)\n"
	if !strings.HasPrefix(body, title) {
		t.Errorf("title: want %q in:\n%s", title, firstNLines(body, 3))
	}
	if n := strings.Count(body, "| ❌ error · new |"); n != 3 || strings.Contains(body, "| ⚠️ warning |") || strings.Contains(body, "| ❌ error |") {
		t.Errorf("%d new rows, want 3 and no row already on main:\n%s", n, body)
	}
	if !strings.Contains(body, "Review comments: 3 posted (2 with a suggested change). 20 findings are on lines this pull request did not change, so not commented.") {
		t.Errorf("review note:\n%s", body)
	}
	if n := len(h.srv.ReviewComments(7)); n != 3 {
		t.Errorf("%d review comments, want 3", n)
	}
	if r.outputs["new"] != "3" || r.outputs["errors"] != fmt.Sprint(3+strings.Count(r.summary, "| ❌ error |")) {
		t.Errorf("outputs %v", r.outputs)
	}
}

// A harmless pull request (minReadySeconds 3 -> 5) gets a short comment:
// the title says nothing is new, the backlog is one phrase, and no table
// lists the findings main already has.
func TestActionHarmlessPullRequestGetsAShortComment(t *testing.T) {
	head := realisticBase()
	head["apps/shop/base/deploy.yaml"] = strings.Replace(head["apps/shop/base/deploy.yaml"], "minReadySeconds: 3", "minReadySeconds: 5", 1)
	h := gitPR(t, realisticBase(), head)
	h.env["INPUT_PATHS"] = "."
	r := h.run("41")
	body := visibleSummary(h.srv.IssueComments(7)[0].Body)
	title := "<!-- plumb:summary -->\n### plumb: no new findings · 20 findings already on `main`, in the [job summary](https://github.com/acme/shop/actions/runs/41)\n"
	if !strings.HasPrefix(body, title) {
		t.Errorf("title: want %q in:\n%s", title, firstNLines(body, 3))
	}
	for _, table := range []string{"| engine |", "#### Findings", "#### New findings"} {
		if strings.Contains(body, table) {
			t.Errorf("the harmless change's comment has %q:\n%s", table, body)
		}
	}
	if len(body) > 4000 {
		t.Errorf("%d characters for a harmless change:\n%s", len(body), body)
	}
	if r.outputs["new"] != "0" || r.outputs["findings"] != "20" || len(h.srv.ReviewComments(7)) != 0 {
		t.Errorf("outputs %v, %d review comments", r.outputs, len(h.srv.ReviewComments(7)))
	}
	// The job summary lists them.
	if n := strings.Count(r.summary, "| ⚠️ warning |") + strings.Count(r.summary, "| ❌ error |"); n != 20 {
		t.Errorf("the job summary lists %d findings, want 20", n)
	}
}
