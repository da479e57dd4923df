package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A check of the user's own that asks for imagePullPolicy, with a
// declared fix.
const pullPolicyCheck = `id: "P00001"
name: Containers say when to pull their image
group: Images
description: Every container sets imagePullPolicy.
remediation: Set imagePullPolicy.
severity: warning
metadata:
  target_type: object
  kind: [Deployment]
facts:
  - name: containers
    gatherer: containers@v1
    argument: all
expectations:
  - name: pull_policy
    expect: facts.containers.all(c, c.?imagePullPolicy.hasValue())
    failure_message: container has no imagePullPolicy
fix:
  set:
    imagePullPolicy: IfNotPresent
`

const fixWorkload = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  template:
    spec:
      containers:
        - name: web  # front
          image: registry.example.com/shop/web:1.4.2
`

func TestFixAppliesTheSuggestedEdits(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"apps/web.yaml": fixWorkload, "checks/P00001.yaml": pullPolicyCheck})
	args := func(extra ...string) []string {
		return append([]string{"fix", "--root", dir, "--checks", filepath.Join(dir, "checks"), filepath.Join(dir, "apps")}, extra...)
	}
	read := func() string {
		b, err := os.ReadFile(filepath.Join(dir, "apps/web.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	// check says what plumb fix would do.
	if _, out, _ := plumb(t, "check", "--root", dir, "--checks", filepath.Join(dir, "checks"), filepath.Join(dir, "apps")); !strings.HasSuffix(out,
		"\n6 findings have a mechanical fix: plumb fix makes the edits (plumb fix --dry-run shows them)\n") {
		t.Errorf("check output:\n%s", out)
	}

	// A dry run shows the edit and writes nothing.
	code, out, errOut := plumb(t, args("--dry-run")...)
	if code != 0 || read() != fixWorkload {
		t.Fatalf("dry run: exit %d, file changed: %v\n%s%s", code, read() != fixWorkload, out, errOut)
	}
	for _, want := range []string{
		"apps/web.yaml:10: set imagePullPolicy: IfNotPresent [check/P00001] Deployment shop/web [apps]\n",
		"--- a/apps/web.yaml\n+++ b/apps/web.yaml\n",
		"         - name: web  # front\n+          securityContext:\n+            runAsNonRoot: true\n",
		"+              type: RuntimeDefault\n+          imagePullPolicy: IfNotPresent\n           image: registry.example.com/shop/web:1.4.2\n",
		"6 findings to fix (dry run: nothing written) in 1 file\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out)
		}
	}

	// --select: only the user's check.
	if code, out, _ = plumb(t, args("--select", "P00001")...); code != 0 || !strings.Contains(out, "1 finding fixed in 1 file") {
		t.Fatalf("--select: exit %d\n%s", code, out)
	}
	if want := strings.Replace(fixWorkload, "# front\n", "# front\n          imagePullPolicy: IfNotPresent\n", 1); read() != want {
		t.Errorf("after --select P00001:\n%s", read())
	}

	// The rest, then nothing is left to fix and check finds none of them.
	if code, out, _ = plumb(t, args()...); code != 0 || !strings.Contains(out, "5 findings fixed in 1 file") {
		t.Fatalf("fix: exit %d\n%s", code, out)
	}
	if code, out, _ = plumb(t, args()...); code != 0 || !strings.HasSuffix(out, "0 findings fixed in 0 files\n") {
		t.Errorf("a second fix: exit %d\n%s", code, out)
	}
	_, out, _ = plumb(t, "check", "--root", dir, "--checks", filepath.Join(dir, "checks"), filepath.Join(dir, "apps"))
	if strings.Contains(out, "mechanical fix") {
		t.Errorf("a fix is still offered:\n%s", out)
	}
	for _, rule := range []string{"P00001", "D10001", "D10002", "D10006", "D10007", "D10011"} {
		if strings.Contains(out, "[check/"+rule+"]") {
			t.Errorf("check/%s still found:\n%s", rule, out)
		}
	}
	if !strings.Contains(read(), "        - name: web  # front\n          securityContext:\n            runAsNonRoot: true\n") {
		t.Errorf("fixed file:\n%s", read())
	}
}

// A fix plumb cannot make exactly is listed with the reason.
func TestFixSaysWhyItCannotEdit(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"apps/web.yaml": strings.Replace(fixWorkload, "- name: web  # front", "- &web\n          name: web", 1)})
	code, out, _ := plumb(t, "fix", "--root", dir, "--select", "D10001", filepath.Join(dir, "apps"))
	if code != 0 || !strings.Contains(out, "1 finding without an exact edit:\n  apps/web.yaml:10:11: set securityContext.runAsNonRoot: true [check/D10001]: spec.template.spec.containers[0] is an alias or an anchor: other places would change too\n") {
		t.Errorf("exit %d\n%s", code, out)
	}
}
