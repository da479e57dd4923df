package main

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/report/sarifcheck"
)

// There is no Docker engine in CI, so these tests check what the image
// would hold: the Dockerfile's promises, and the binary built the way the
// Dockerfile builds it, run the way the runner runs a Docker action.

func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(data)
	froms := regexp.MustCompile(`(?m)^FROM (\S+)`).FindAllStringSubmatch(df, -1)
	if len(froms) != 2 || !strings.HasPrefix(froms[1][1], "gcr.io/distroless/static") {
		t.Errorf("want a build stage and a distroless-static final stage, got %v", froms)
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "go mod verify", "org.opencontainers.image.source", "org.opencontainers.image.version", `ENTRYPOINT ["/usr/local/bin/plumb"]`} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	user := regexp.MustCompile(`(?m)^USER (\S+)`).FindStringSubmatch(df)
	if user == nil || strings.HasPrefix(user[1], "0") || strings.HasPrefix(user[1], "root") {
		t.Errorf("the image must not run as root: USER %v", user)
	}
	for _, banned := range []string{"curl ", "wget ", "ADD http", "apt-get", "apk add"} {
		if strings.Contains(df, banned) {
			t.Errorf("the Dockerfile downloads outside the module proxy: %q", banned)
		}
	}
}

// buildImageBinary builds plumb as the Dockerfile does.
func buildImageBinary(t testing.TB) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the image is linux")
	}
	out := filepath.Join(t.TempDir(), "plumb")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w -X github.com/plumb-ci/plumb/internal/pipeline.Version=1.0.0-test", "-o", out, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOTOOLCHAIN=local")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return out
}

func TestImageBinaryIsStaticAndStartsAsTheAction(t *testing.T) {
	bin := buildImageBinary(t)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary needs a dynamic loader; distroless static has none")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the binary links %v", libs)
	}
	f.Close()
	if data, _ := os.ReadFile(bin); bytes.Contains(data, []byte(mustGetwd(t))) {
		t.Error("the binary holds build paths (-trimpath missing)")
	}

	// Run it as the runner runs a Docker action: no arguments (here, and
	// also with the "action" argument action.yml passes), inputs and
	// context in the environment, the workspace as working directory.
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "apps"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "apps", "cm.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runner := t.TempDir()
	event := filepath.Join(runner, "event.json")
	if err := os.WriteFile(event, []byte(`{"ref": "refs/heads/main"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{nil, {"action"}} {
		output := filepath.Join(runner, "output")
		summary := filepath.Join(runner, "summary")
		os.Remove(output)
		os.Remove(summary)
		cmd := exec.Command(bin, args...)
		cmd.Dir = ws
		cmd.Env = []string{
			"GITHUB_ACTIONS=true", "GITHUB_EVENT_NAME=push", "GITHUB_EVENT_PATH=" + event,
			"GITHUB_REPOSITORY=acme/shop", "GITHUB_SHA=abc", "GITHUB_WORKSPACE=" + ws, "GITHUB_RUN_ID=1",
			"GITHUB_OUTPUT=" + output, "GITHUB_STEP_SUMMARY=" + summary,
			"INPUT_TOKEN=ghs_secrettoken", "INPUT_PATHS=apps", "INPUT_FAIL-ON=error",
			"INPUT_SARIF-FILE=plumb.sarif", "INPUT_REPORT-FILE=plumb-report.json",
			"INPUT_ANNOTATIONS=true", "INPUT_REVIEW-COMMENTS=true", "INPUT_SUMMARY-COMMENT=true", "INPUT_JOB-SUMMARY=true",
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != 1 {
			t.Errorf("args %v: exit %d, want 1\n%s\n%s", args, code, stdout.String(), stderr.String())
		}
		if !strings.HasPrefix(stdout.String(), "::add-mask::ghs_secrettoken\n") || !strings.Contains(stdout.String(), "::error title=Missing metadata.name (manifest/missing-name),file=apps/cm.yaml,line=3") {
			t.Errorf("args %v: stdout:\n%s", args, stdout.String())
		}
		if out, _ := os.ReadFile(output); !strings.Contains(string(out), "errors<<") {
			t.Errorf("args %v: outputs %q", args, out)
		}
		if s, _ := os.ReadFile(summary); !strings.Contains(string(s), "### plumb: 1 error") {
			t.Errorf("args %v: summary %q", args, s)
		}
		if _, err := os.Stat(filepath.Join(ws, "plumb.sarif")); err != nil {
			t.Errorf("args %v: %v", args, err)
		}
	}
}

func mustGetwd(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd)) // the repository root
}

func TestActionCommandWithoutTheRuntime(t *testing.T) {
	// `plumb action` outside Actions: no event, no outputs file; it still
	// checks the working directory and exits by the findings.
	code, out, _ := plumb(t, "action", "extra")
	if code != 2 {
		t.Errorf("extra argument: exit %d: %s", code, out)
	}
	if got := actionArgs([]string{"check"}); len(got) != 1 || got[0] != "check" {
		t.Errorf("explicit arguments were replaced: %v", got)
	}
}

func TestCheckWritesSARIFAndMarkdown(t *testing.T) {
	dir := t.TempDir()
	sarif := filepath.Join(dir, "demo.sarif")
	md := filepath.Join(dir, "demo.md")
	code, out, errOut := plumb(t, "check", "--root", "../..", "../../fixtures/demo", "--reproducible",
		"--format", "sarif="+sarif, "--format", "markdown="+md, "--format", "annotations")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(sarif)
	if err != nil {
		t.Fatal(err)
	}
	if errs := sarifcheck.Validate(data); len(errs) > 0 {
		t.Errorf("SARIF: %v", errs)
	}
	if !bytes.Contains(data, []byte(`"uri": "fixtures/demo/worker/cronjob.yaml"`)) {
		t.Errorf("SARIF lacks the demo's locations")
	}
	sarifcheck.Multitool(t, sarif)
	summary, _ := os.ReadFile(md)
	if !strings.HasPrefix(string(summary), "### plumb: ") || !strings.Contains(string(summary), "`fixtures/demo/worker/cronjob.yaml:2:1`") {
		t.Errorf("markdown:\n%s", summary)
	}
	if !strings.HasPrefix(out, "::error title=") {
		t.Errorf("annotations on stdout:\n%s", out)
	}
}

// --sarif-category sets the SARIF run's category, so two plumb jobs on one
// repository keep separate sets of alerts in code scanning.
func TestSARIFCategoryFlag(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ args []string }{
		{nil},
		{[]string{"--sarif-category", "plumb/prod"}},
	} {
		out := filepath.Join(dir, "demo.sarif")
		args := append([]string{"check", "--root", "../..", "../../fixtures/demo", "--format", "sarif=" + out}, c.args...)
		if code, _, errOut := plumb(t, args...); code != 1 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		want := `"id": "plumb/"`
		if c.args != nil {
			want = `"id": "plumb/prod/"`
		}
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("%v: the SARIF lacks %s", c.args, want)
		}
	}
}
