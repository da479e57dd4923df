package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Report paths relative to the workspace are written without following a
// symbolic link the repository committed (issue 31, point 8): a directory
// linked out of the repository or into .git, or a report name that is such
// a link, is refused with the path named, exit 2 — for `plumb check
// --format`, `plumb merge --format` and the action's sarif-file and
// report-file — and nothing is written through it. The workflow may still
// write anywhere with an absolute path.
func TestReportPathsDoNotFollowTheRepositorysLinks(t *testing.T) {
	base := t.TempDir()
	repo, outside := filepath.Join(base, "repo"), filepath.Join(base, "outside")
	writeTree(t, repo, map[string]string{
		"ok/cm.yaml":       "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n  namespace: x\n",
		".git/hooks/.keep": "",
		"reports/.keep":    "",
	})
	writeTree(t, outside, map[string]string{"victim": "kept\n"})
	for link, target := range map[string]string{
		"out":            outside,
		"hooks":          filepath.Join(repo, ".git", "hooks"),
		"reports/x.json": filepath.Join(outside, "victim"),
	} {
		if err := os.Symlink(target, filepath.Join(repo, link)); err != nil {
			t.Fatal(err)
		}
	}
	untouched := func(t *testing.T) {
		t.Helper()
		entries, _ := os.ReadDir(outside)
		if len(entries) != 1 {
			t.Errorf("written outside the repository: %v", entries)
		}
		if b, _ := os.ReadFile(filepath.Join(outside, "victim")); string(b) != "kept\n" {
			t.Errorf("the file outside was overwritten: %q", b)
		}
		if _, err := os.Lstat(filepath.Join(repo, ".git", "hooks", "post-checkout")); err == nil {
			t.Error("a hook was written into .git")
		}
	}
	shard := filepath.Join(base, "shard.json")
	if r := runBounded(t, repo, 0, "check", "--root", ".", "--no-default-checks", "ok", "--shard", "1/1", "--format", "json="+shard); r.code != 0 {
		t.Fatalf("the shard report: exit %d\n%s", r.code, r.stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"check", "--root", ".", "--no-default-checks", "ok", "--format", "json=out/x.json"},
			"plumb: writing the json report to out/x.json: the directory out leads outside the repository through a symbolic link; plumb writes a report inside the repository without following the repository's links: remove the link, or name a path outside the repository (an absolute path)"},
		{[]string{"check", "--root", ".", "--no-default-checks", "ok", "--format", "sarif=hooks/post-checkout"},
			"plumb: writing the sarif report to hooks/post-checkout: the directory hooks leads into .git through a symbolic link"},
		{[]string{"check", "--root", ".", "--no-default-checks", "ok", "--format", "json=reports/x.json"},
			"plumb: writing the json report to reports/x.json: it is a symbolic link out of the repository"},
		{[]string{"merge", shard, "--format", "markdown=out/m.md"},
			"plumb: writing the markdown report to out/m.md: the directory out leads outside the repository through a symbolic link"},
	} {
		t.Run(strings.Join(c.args[len(c.args)-2:], " "), func(t *testing.T) {
			r := runBounded(t, repo, 0, c.args...)
			if r.code != 2 || !strings.Contains(r.stderr, c.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant 2 and %q", r.code, r.stderr, c.want)
			}
			untouched(t)
		})
	}

	// An absolute path is the workflow's choice, through the link too.
	abs := filepath.Join(repo, "out", "abs.json")
	if r := runBounded(t, repo, 0, "check", "--root", ".", "--no-default-checks", "ok", "--format", "json="+abs); r.code != 0 {
		t.Errorf("an absolute path: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(outside, "abs.json")); err != nil {
		t.Errorf("the absolute path was not written: %v", err)
	}
	os.Remove(filepath.Join(outside, "abs.json"))

	// The action's output inputs: refused, the step fails and the output
	// names no file; the other report is still written.
	step := newActionStep(t, repo, nil)
	step.env["INPUT_PATHS"] = "ok"
	step.env["INPUT_SARIF-FILE"] = "out/plumb.sarif"
	step.env["INPUT_REPORT-FILE"] = "plumb-report.json"
	res := step.run()
	if want := "writing the sarif report to " + filepath.Join(repo, "out", "plumb.sarif") + ": the directory out leads outside the repository through a symbolic link"; res.code != 2 ||
		!strings.Contains(res.combined, "::error title=plumb::"+want) {
		t.Errorf("the action: exit %d, want 2 and %q:\n%s", res.code, want, res.combined)
	}
	if !strings.Contains(res.outputs, "sarif-file<<") || strings.Contains(res.outputs, "out/plumb.sarif") || res.report == "" {
		t.Errorf("outputs:\n%s\n(report written: %v)", res.outputs, res.report != "")
	}
	untouched(t)
	step.env["INPUT_SARIF-FILE"] = "plumb.sarif"
	step.env["INPUT_REPORT-FILE"] = "reports/x.json"
	res = step.run()
	if want := "writing the json report to " + filepath.Join(repo, "reports", "x.json") + ": it is a symbolic link out of the repository"; res.code != 2 ||
		!strings.Contains(res.combined, want) {
		t.Errorf("the action: exit %d, want 2 and %q:\n%s", res.code, want, res.combined)
	}
	untouched(t)
}
