package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestKubectlPlugin runs the binary through a symlink named kubectl-plumb,
// the way kubectl runs a plugin (and krew installs one): it behaves as
// plumb, and its help says `kubectl plumb`.
func TestKubectlPlugin(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks")
	}
	dir := t.TempDir()
	link := filepath.Join(dir, "kubectl-plumb")
	if err := os.Symlink(plumbBinary(t), link); err != nil {
		t.Fatal(err)
	}
	kubectlPlumb := func(args ...string) proc {
		t.Helper()
		return runBinary(t, procOptions{dir: "../..", binary: link}, args...)
	}

	p := kubectlPlumb("version")
	if p.code != 0 || !strings.HasPrefix(p.stdout, "plumb ") {
		t.Errorf("kubectl-plumb version: exit %d, %q %q", p.code, p.stdout, p.stderr)
	}
	p = kubectlPlumb("--help")
	if p.code != 0 || !strings.Contains(p.stdout, "kubectl plumb [command]") {
		t.Errorf("kubectl-plumb --help does not say `kubectl plumb`: exit %d\n%s", p.code, p.stdout)
	}
	p = kubectlPlumb("check", "fixtures/demo/web", "--format", "json")
	if p.code != 1 || !strings.Contains(p.stdout, `"rule_id": "check/C10001"`) {
		t.Errorf("kubectl-plumb check: exit %d, want 1 with the demo's findings\n%s", p.code, p.stderr)
	}
}

func TestInvokedAsKubectlPlugin(t *testing.T) {
	for argv0, want := range map[string]bool{
		"/home/me/.krew/bin/kubectl-plumb": true,
		`C:\krew\bin\kubectl-plumb.exe`:    runtime.GOOS == "windows", // a path with backslashes is a Windows path
		"kubectl-plumb.exe":                true,
		"plumb":                            false,
		"/usr/local/bin/plumb":             false,
		"kubectl-plumber":                  false,
	} {
		if got := invokedAsKubectlPlugin(argv0); got != want {
			t.Errorf("invokedAsKubectlPlugin(%q) = %v, want %v", argv0, got, want)
		}
	}
}
