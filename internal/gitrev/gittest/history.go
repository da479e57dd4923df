package gittest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// LongHistory builds, in dir, a repository with files YAML manifests in
// directories of 50 and a history of commits commits, each changing
// changesPerCommit of them a little (an image tag, a replica count), then
// packs it as `git gc` does, so that old revisions are stored as delta
// chains. It writes the history with git fast-import: thousands of commits
// take seconds. It returns the commit ids, oldest first.
func LongHistory(t testing.TB, dir string, files, commits, changesPerCommit int) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	Run(t, dir, "init", "-q", "-b", "main")
	var stream bytes.Buffer
	version := make([]int, files)
	name := func(i int) string { return fmt.Sprintf("apps/team%03d/app%04d.yaml", i/50, i) }
	for c := 0; c < commits; c++ {
		fmt.Fprintf(&stream, "commit refs/heads/main\nmark :%d\ncommitter plumb test <test@plumb.invalid> %d +0000\ndata 12\ncommit %05d\n", c+1, 1735689600+c*60, c)
		if c > 0 {
			fmt.Fprintf(&stream, "from :%d\n", c)
		}
		changed := changesPerCommit
		if c == 0 {
			changed = files
		}
		for k := 0; k < changed; k++ {
			i := k
			if c > 0 {
				i = (c*changesPerCommit*7 + k*131) % files // spread the changes over the tree
			}
			version[i]++
			content := manifest(i, version[i])
			fmt.Fprintf(&stream, "M 100644 inline %s\ndata %d\n%s\n", name(i), len(content), content)
		}
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), env...), "GIT_CONFIG_GLOBAL="+filepath.Join(t.TempDir(), "no-global-config"))
	cmd.Stdin = &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	Run(t, dir, "gc", "-q", "--prune=now")
	log := Run(t, dir, "rev-list", "--reverse", "main")
	return strings.Fields(log)
}

// manifest is a Deployment of about 1.5 KB whose image tag and replica count
// depend on its version.
func manifest(i, version int) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: app%04d
  namespace: team%03d
  labels:
    app.kubernetes.io/name: app%04d
    app.kubernetes.io/part-of: team%03d
spec:
  replicas: %d
  selector:
    matchLabels:
      app.kubernetes.io/name: app%04d
  template:
    metadata:
      labels:
        app.kubernetes.io/name: app%04d
    spec:
      securityContext:
        runAsNonRoot: true
        seccompProfile:
          type: RuntimeDefault
      containers:
        - name: app
          image: registry.example.com/team%03d/app%04d:1.%d.0
          ports:
            - containerPort: 8080
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
            limits:
              memory: 256Mi
          readinessProbe:
            httpGet:
              path: /ready
              port: 8080
          livenessProbe:
            httpGet:
              path: /live
              port: 8080
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities:
              drop: [ALL]
`, i, i/50, i, i/50, 2+version%3, i, i, i/50, i, version)
}
