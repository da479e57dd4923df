package action

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/gitrev/gittest"
)

// TestActionInPullRequestMode runs the action with base-ref on a workspace
// that is a git clone: the base commit differs from the checked-out files.
func TestActionInPullRequestMode(t *testing.T) {
	h := newHarness(t)
	r := gittest.Open(t, h.ws)
	r.Git("init", "-q", "-b", "main")
	head := map[string]string{}
	for _, name := range []string{"apps/api/cronjob.yaml", "apps/web/secret.yaml", "apps/web/deployment.yaml"} {
		b, err := os.ReadFile(filepath.Join(h.ws, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		head[name] = string(b)
	}
	// The base: the CronJob had its apiVersion (the PR drops it: new), an
	// old ConfigMap had no name (the PR deletes it: fixed), the Deployment
	// ran one replica and the Secret held another password.
	r.Write(map[string]string{
		"apps/api/cronjob.yaml":    "apiVersion: batch/v1\n" + head["apps/api/cronjob.yaml"],
		"apps/web/deployment.yaml": strings.Replace(head["apps/web/deployment.yaml"], "replicas: 2", "replicas: 1", 1),
		"apps/web/secret.yaml":     strings.Replace(head["apps/web/secret.yaml"], secretValue, "old-"+secretValue, 1),
		"apps/old/cm.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: shop}\n",
	})
	base := r.Commit("base")
	r.Write(head)
	r.Remove("apps/old")

	h.env["INPUT_BASE-REF"] = base
	res := h.run("51")
	if res.code != 1 {
		t.Errorf("exit %d, want 1 for a new error\n%s", res.code, res.stdout)
	}
	if res.outputs["new"] != "1" {
		t.Errorf("new = %q (outputs %v)", res.outputs["new"], res.outputs)
	}
	for _, want := range []string{
		"❌ error · new",
		"#### Fixed by this change (1)",
		"#### Rendered changes (3 targets, against `" + base[:12] + "`)",
		"-  replicas: 1\n+  replicas: 2\n",
		"-  password: <redacted>\n+  password: <redacted> (changed)\n",
		// The fixed finding is where the base had it: linked at the base.
		"(https://github.com/acme/shop/blob/" + base + "/apps/old/cm.yaml#L",
	} {
		if !strings.Contains(res.summary, want) {
			t.Errorf("job summary lacks %q:\n%s", want, res.summary)
		}
	}
	leak := res.summary + res.stdout
	for _, req := range res.requests {
		leak += req.Body
	}
	if strings.Contains(leak, secretValue) {
		t.Error("a Secret value leaked into the summary, the log or a request")
	}
}

// Without a base-ref input (a step that runs the image without action.yml)
// the action checks against the pull request's base commit from the event;
// an input set to "" (action.yml's default outside pull requests) turns
// pull-request mode off.
func TestActionDefaultsBaseRefToThePullRequestBase(t *testing.T) {
	h := newHarness(t)
	r := gittest.Open(t, h.ws)
	r.Git("init", "-q", "-b", "main")
	r.Write(map[string]string{"apps/old/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: shop}\n"})
	base := r.Commit("base")
	r.Remove("apps/old")
	h.writeEvent("event.json", strings.Replace(pullRequestEvent("acme/shop"), baseSHA, base, 1))

	res := h.run("61")
	if strings.Contains(res.summary, "Fixed by this change") || strings.Contains(res.summary, "Rendered changes") {
		t.Errorf("base-ref set to \"\" still ran pull-request mode:\n%s", res.summary)
	}
	delete(h.env, "INPUT_BASE-REF")
	res = h.run("62")
	for _, want := range []string{"#### Fixed by this change (1)", "#### Rendered changes", "against `" + base[:12] + "`"} {
		if !strings.Contains(res.summary, want) {
			t.Errorf("job summary lacks %q:\n%s", want, res.summary)
		}
	}
}
