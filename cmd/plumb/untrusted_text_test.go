package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/github/fakegithub"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// hostileMarkdown is what a pull request writes in its own checks catalog's
// remediation, and a fork in every string of the report it uploads: HTML
// that closes plumb's blocks, an image and links to another host, a hidden
// marker like plumb's own, headings and an alert that read as plumb's
// sections, a mention.
const hostileMarkdown = "## PLANTED-HEADING\n" +
	"</details><img src=\"https://evil.example/PLANTED-IMG.png\"><a href=\"https://evil.example/x\">PLANTED-A</a>\n" +
	"<!-- plumb:summary PLANTED-MARKER -->\n" +
	"[PLANTED-LINK](https://evil.example/phish) ![PLANTED-IMAGE](https://evil.example/i.png) https://evil.example/PLANTED-BARE\n" +
	"> [!CAUTION]\n> PLANTED-ALERT @alice\n" +
	"### plumb: no findings\n"

// outsideCode returns the lines of Markdown that GitHub reads as Markdown:
// code blocks left out, code spans (CommonMark's: a backtick run closed by
// the next run as long) and <code> elements replaced by a placeholder.
func outsideCode(md string) []string {
	var out []string
	fence := ""
	codeElem := regexp.MustCompile(`<code>[^<]*</code>`)
	for _, line := range strings.Split(md, "\n") {
		if fence != "" {
			if strings.TrimSpace(line) == fence {
				fence = ""
			}
			continue
		}
		if m := regexp.MustCompile("^`{3,}").FindString(line); m != "" && !strings.Contains(line[len(m):], "`") {
			fence = m
			continue
		}
		var b strings.Builder
		for i := 0; i < len(line); {
			if line[i] == '\\' && i+1 < len(line) {
				b.WriteString(line[i : i+2])
				i += 2
				continue
			}
			if line[i] != '`' {
				b.WriteByte(line[i])
				i++
				continue
			}
			n := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
			end := -1
			for j := i + n; j < len(line); {
				if line[j] != '`' {
					j++
					continue
				}
				m := len(line[j:]) - len(strings.TrimLeft(line[j:], "`"))
				if m == n {
					end = j
					break
				}
				j += m
			}
			if end < 0 {
				b.WriteString(line[i : i+n])
				i += n
				continue
			}
			b.WriteString("%")
			i = end + n
		}
		out = append(out, codeElem.ReplaceAllString(b.String(), "%"))
	}
	return out
}

// plumbMarker is a hidden marker where plumb puts its own.
var plumbMarker = regexp.MustCompile(`^<!-- plumb:(summary|finding|review|fixed) -->$|^<!-- plumb:fingerprint=[0-9a-f,]+ -->$|<!-- plumb:listed=[0-9a-f,]+ -->$`)

// assertPlantedIsText fails when a comment body or the job summary holds
// the planted Markdown as more than text.
func assertPlantedIsText(t *testing.T, name, md string) {
	t.Helper()
	for i, line := range outsideCode(md) {
		text := plumbMarker.ReplaceAllString(line, "")
		htmlBlock := strings.HasPrefix(text, "<details>")
		for _, bad := range []struct {
			re  *regexp.Regexp
			why string
		}{
			{regexp.MustCompile(`<(img|a|script|/details>[^\n]*PLANTED)`), "raw HTML"},
			{regexp.MustCompile(`<!--`), "a hidden marker not plumb's"},
			{regexp.MustCompile(`^\s*#{1,6}\s+PLANTED|^\s*#{1,6}\s+plumb: no findings`), "a heading"},
			{regexp.MustCompile(`^\s*>`), "a quote or alert"},
			{regexp.MustCompile(`(^|[^\w\x{200b}-])@alice`), "a mention"},
		} {
			if bad.re.MatchString(text) {
				t.Errorf("%s, line %d: %s: %q", name, i+1, bad.why, line)
			}
		}
		if !htmlBlock && regexp.MustCompile(`[^\\]\]\(https://evil|https://evil|www\.evil`).MatchString(text) {
			t.Errorf("%s, line %d: a link to another host: %q", name, i+1, line)
		}
	}
}

// bodies returns the Markdown plumb sent to GitHub: every "body" string of
// the requests.
func commentBodies(t *testing.T, r stepResult) []string {
	t.Helper()
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if s, ok := e.(string); ok && k == "body" {
					out = append(out, s)
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	for _, req := range r.requests {
		if req.Method != "POST" && req.Method != "PATCH" || req.Body == "" || req.GraphQL != "" {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(req.Body), &v); err != nil {
			t.Fatalf("%s %s: %v", req.Method, req.Path, err)
		}
		walk(v)
	}
	return out
}

// Text from the repository or a fork is text (issue 31, point 7): a
// repository catalog's remediation, name and message in the review
// comments, the summary comment and the job summary the action posts, and
// then every string of a report a fork uploaded, in what the fork-safe
// poster posts.
func TestRepositoryAndForkTextIsPostedAsText(t *testing.T) {
	ws := t.TempDir()
	q := yamlQuoted(hostileMarkdown)
	writeTree(t, ws, map[string]string{
		".plumb.yaml":  "checks:\n  default_catalog: false\n  dirs: [policy/catalog]\n",
		"apps/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n  namespace: shop\ndata:\n  k: v\n",
		"policy/catalog/EVIL1.yaml": "id: EVIL1\nname: " + q + "\ngroup: g\ndescription: d\nremediation: " + q + "\nseverity: warning\n" +
			"metadata:\n  target_type: object\n  kind: [ConfigMap]\nfacts:\n  - name: n\n    gatherer: manifest@v1\n    argument: metadata.name\n" +
			"expectations:\n  - name: never\n    expect: facts.n == \"no such name\"\n    failure_message: " + q + "\n",
	})
	step := newActionStep(t, ws, []fakegithub.File{
		{Filename: "apps/cm.yaml", Status: "added", Patch: "@@ -0,0 +1,7 @@\n" + strings.Repeat("+x\n", 6) + "+x"},
	})
	step.env["INPUT_PATHS"] = "apps"
	res := step.run()
	if res.code != 0 {
		t.Fatalf("exit %d\n%s", res.code, res.combined)
	}
	posted := commentBodies(t, res)
	var review, summary bool
	for i, b := range posted {
		review = review || strings.HasPrefix(b, "<!-- plumb:finding -->")
		summary = summary || strings.HasPrefix(b, "<!-- plumb:summary -->")
		assertPlantedIsText(t, fmt.Sprintf("posted body %d", i+1), b)
	}
	if !review || !summary || !strings.Contains(strings.Join(posted, "\n"), "PLANTED") || !strings.Contains(res.summary, "PLANTED") {
		t.Fatalf("review comment posted %v, summary comment %v (the planted text must reach them):\n%s\n%s", review, summary, res.bodies(), res.summary)
	}
	if !strings.Contains(strings.Join(posted, "\n"), "**PLANTED-HEADING**") {
		t.Errorf("the remediation is not in the review comment, its heading demoted:\n%s", res.bodies())
	}
	assertPlantedIsText(t, "the job summary", res.summary)

	// The fork-safe poster: the fork wrote every string of its report.
	var rep map[string]any
	if err := json.Unmarshal([]byte(res.report), &rep); err != nil {
		t.Fatal(err)
	}
	findings, _ := rep["findings"].([]any)
	if len(findings) == 0 {
		t.Fatalf("no findings in the report:\n%s", res.report)
	}
	for i, f := range findings {
		m := f.(map[string]any)
		// A finding the analysis step did not comment on: the poster
		// posts its review comment.
		m["fingerprint"] = fmt.Sprintf("%016x", 0xfee1dead0000+i)
		for _, k := range []string{"message", "title", "help", "diff"} {
			m[k] = hostileMarkdown
		}
		m["rule_id"] = "check/" + hostileMarkdown
		m["object"] = map[string]any{"apiVersion": hostileMarkdown, "kind": hostileMarkdown, "namespace": hostileMarkdown, "name": hostileMarkdown, "target": hostileMarkdown}
		m["path"] = manifest.Path{manifest.Key(hostileMarkdown)}.String()
		m["status"] = "new"
	}
	rep["sections"] = map[string]any{"diff": map[string]any{"base_ref": hostileMarkdown, "base_commit": hostileMarkdown,
		"targets": []any{map[string]any{"name": hostileMarkdown, "status": "changed", "objects_changed": 1, "lines_added": 1, "lines_removed": 1,
			"diff": "--- a\n+++ b\n@@ -1 +1 @@\n-" + strings.ReplaceAll(hostileMarkdown, "\n", "\n-") + "\n+x\n"}}}}
	forged, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	artifact := t.TempDir()
	event, err := os.ReadFile(step.env["GITHUB_EVENT_PATH"])
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, artifact, map[string]string{"plumb-report.json": string(forged), "pr-event.json": string(event)})
	writeTree(t, step.runner, map[string]string{"workflow_run.json": fmt.Sprintf(
		`{"action": "completed", "workflow_run": {"id": 41, "event": "pull_request", "head_sha": %q, "pull_requests": []}}`, actionHeadSHA)})
	for k, v := range map[string]string{"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": filepath.Join(step.runner, "workflow_run.json"),
		"GITHUB_WORKSPACE": artifact, "INPUT_POST-REPORT": "plumb-report.json", "INPUT_POST-EVENT": "pr-event.json"} {
		step.env[k] = v
	}
	step.ws = artifact
	// The analysis step's comments are plumb's: the poster edits the
	// summary, and comments on the finding it has not seen.
	post := step.run()
	if post.code != 0 {
		t.Fatalf("the poster: exit %d\n%s", post.code, post.combined)
	}
	posted = commentBodies(t, post)
	if all := strings.Join(posted, "\n"); !strings.Contains(all, "<!-- plumb:finding -->") || !strings.Contains(all, "<!-- plumb:summary -->") ||
		!strings.Contains(all, "PLANTED") || !strings.Contains(post.summary, "PLANTED") {
		t.Fatalf("the poster posted nothing:\n%s", post.combined)
	}
	for i, b := range posted {
		assertPlantedIsText(t, fmt.Sprintf("poster's body %d", i+1), b)
	}
	assertPlantedIsText(t, "the poster's job summary", post.summary)
}
