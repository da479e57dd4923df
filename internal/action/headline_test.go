package action

import (
	"strings"
	"testing"
)

// The summary comment counts what the pull request does: a memory limit
// removed from a base shared by two overlays is one new problem ("in 2
// targets") in the title, the table, the review and the outputs; the
// problem the base already had is one phrase pointing at the job summary,
// which lists it.
func TestActionHeadlineCountsTheChange(t *testing.T) {
	overlays := map[string]string{
		"apps/overlays/dev/kustomization.yaml":  "resources: [../../base]\n",
		"apps/overlays/prod/kustomization.yaml": "resources: [../../base]\n",
		"apps/base/kustomization.yaml":          "resources: [web.yaml, api.yaml, config.yaml]\n",
		"apps/base/config.yaml":                 "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  namespace: shop\n",
		// The api never had a memory limit: already on main.
		"apps/base/api.yaml": deployment("api", "cfg", ""),
	}
	base, head := map[string]string{}, map[string]string{}
	for k, v := range overlays {
		base[k], head[k] = v, v
	}
	base["apps/base/web.yaml"] = deployment("web", "cfg", limits)
	head["apps/base/web.yaml"] = deployment("web", "cfg", "")
	h := gitPR(t, base, head)
	r := h.run("71")

	comments := h.srv.IssueComments(7)
	if len(comments) != 1 {
		t.Fatalf("%d summary comments", len(comments))
	}
	body := comments[0].Body
	title := "### plumb: 1 new error · 15 findings already on `main`, in the [job summary](https://github.com/acme/shop/actions/runs/71)\n"
	if !strings.Contains(body, "\n"+title) {
		t.Errorf("title: want %q in:\n%s", title, body)
	}
	for _, want := range []string{
		"| engine | new errors | new warnings | new notes | fixed | already on `main` |\n| --- | ---: | ---: | ---: | ---: | ---: |\n| `check` | 1 | 0 | 0 | 0 | 15 |\n",
		"#### New findings\n",
		"Deployment shop/web in 2 targets \\[apps/overlays/dev, apps/overlays/prod\\]",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("summary comment lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "Deployment shop/api") {
		t.Errorf("the finding already on main is a row of the comment:\n%s", body)
	}
	// The job summary lists it.
	if !strings.Contains(r.summary, "Deployment shop/api in 2 targets") {
		t.Errorf("job summary lacks the finding already on main:\n%s", r.summary)
	}
	// One problem: one review comment, and the outputs say so; the review
	// note counts problems too (15, not the 30 findings of two targets).
	if want := "1 new finding on lines this pull request did not change: a comment on its file. 15 findings are on lines this pull request did not change, so not commented."; !strings.Contains(body, want) {
		t.Errorf("review note: want %q in:\n%s", want, body)
	}
	if n := len(h.srv.ReviewComments(7)); n != 1 {
		t.Errorf("%d review comments, want 1", n)
	}
	for k, v := range map[string]string{"new": "1", "findings": "16", "errors": "6", "warnings": "10", "fixed": "0"} {
		if r.outputs[k] != v {
			t.Errorf("output %s = %q, want %q (all %v)", k, r.outputs[k], v, r.outputs)
		}
	}
}
