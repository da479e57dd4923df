package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plumb runs the CLI in-process and returns its exit code and output.
func plumb(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestDemoExitsOneWithActionableFindings(t *testing.T) {
	code, out, errOut := plumb(t, "check", "--root", "../..", "../../fixtures/demo")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		// Two files of a plain directory may be alternatives: a note.
		"fixtures/demo/api/settings-override.yaml:2:1: note: ConfigMap shop/api-settings is also defined in fixtures/demo/api/deployment.yaml:31:1",
		"fixtures/demo/worker/cronjob.yaml:2:1: error: kind CronJob has no apiVersion",
		"fixtures/demo/worker/cronjob.yaml:19:1: error: ConfigMap has no metadata.name",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestJSONReportHasTheContractKeys(t *testing.T) {
	code, out, _ := plumb(t, "check", "--root", "../..", "../../fixtures/demo", "--format", "json")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	for _, k := range []string{"version", "findings", "summary", "objects", "duration_ms"} {
		if _, ok := m[k]; !ok {
			t.Errorf("missing key %q", k)
		}
	}
}

func TestOutputIsDeterministic(t *testing.T) {
	args := []string{"check", "--root", "../..", "../../fixtures/demo", "--reproducible"}
	for _, format := range []string{"json", "text"} {
		_, first, _ := plumb(t, append(args, "--format", format)...)
		for i := 0; i < 3; i++ {
			if _, again, _ := plumb(t, append(args, "--format", format)...); again != first {
				t.Fatalf("%s output differs between runs", format)
			}
		}
	}
}

func TestFailOn(t *testing.T) {
	if code, _, _ := plumb(t, "check", "--root", "../..", "../../fixtures/demo", "--fail-on", "never"); code != 0 {
		t.Errorf("--fail-on never: exit %d", code)
	}
	if code, _, _ := plumb(t, "check", "testdata/bad/ok"); code != 0 {
		t.Errorf("clean input: exit %d", code)
	}
}

// A file of the repository that cannot be read as written is a finding at
// its line (exit 1 by --fail-on), printed once; the other files are still
// loaded and reported. A path named on the command line that cannot be read
// is what plumb was asked to do and cannot: exit 2.
func TestBadFilesAreFindingsAndOthersStillLoad(t *testing.T) {
	tmp := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var laughs strings.Builder
	laughs.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&laughs, "a%d: &a%d [*a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d]\n", i, i, i-1)
	}
	write("laughs.yaml", []byte(laughs.String()))
	write("big.yaml", bytes.Repeat([]byte("# x\n"), 300))
	if err := os.Symlink("missing-target.yaml", filepath.Join(tmp, "dangling.yaml")); err != nil {
		t.Fatal(err)
	}
	write("ok.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n"))

	cases := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"malformed YAML", []string{"check", "testdata/bad/syntax"}, "testdata/bad/syntax/cm.yaml:5:3: error: YAML syntax error: did not find expected ',' or '}' [manifest/yaml-syntax]", 1},
		{"duplicate keys", []string{"check", "testdata/bad/dupkey"}, `testdata/bad/dupkey/cm.yaml:7:3: error: duplicate key "k" (first defined at line 6)`, 1},
		{"invalid UTF-8", []string{"check", "testdata/bad/utf8"}, "testdata/bad/utf8/cm.yaml:4:12: error: invalid UTF-8 byte 0xe9", 1},
		{"billion laughs", []string{"check", "--root", tmp, filepath.Join(tmp, "laughs.yaml")}, `laughs.yaml:5:45: error: aliases expand to more than 100000 nodes (a "billion laughs" document?); limit --max-alias-nodes [manifest/alias-limit]`, 1},
		{"over-size file", []string{"check", "--root", tmp, "--max-file-size", "1KiB", filepath.Join(tmp, "big.yaml")}, "big.yaml:1:1: error: file is 1200 bytes, over the 1024-byte limit", 1},
		{"unreadable file", []string{"check", "--root", tmp, filepath.Join(tmp, "dangling.yaml")}, "dangling.yaml:1:1: error: cannot read the file", 2},
		{"missing path", []string{"check", "testdata/nope"}, "testdata/nope:1:1: error: cannot read the file: no such file or directory", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := plumb(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d\n%s%s", code, c.code, out, errOut)
			}
			if strings.Contains(errOut, c.want) || !strings.Contains(out, c.want) {
				t.Errorf("want %q once, in the report:\nstdout:\n%s\nstderr:\n%s", c.want, out, errOut)
			}
		})
	}

	// Other inputs are still loaded and reported.
	code, out, _ := plumb(t, "check", "--root", tmp, "--max-file-size", "1KiB", "--format", "json", tmp)
	if code != 1 {
		t.Errorf("exit %d", code)
	}
	var rep struct {
		Objects []struct{ Name string } `json:"objects"`
		Summary struct {
			InputErrors int `json:"input_errors"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Objects) != 1 || rep.Objects[0].Name != "ok" || rep.Summary.InputErrors != 3 {
		t.Errorf("objects %v, input errors %d", rep.Objects, rep.Summary.InputErrors)
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{"check", "--fail-on", "sometimes"},
		{"check", "--format", "xml"},
		{"check", "--no-such-flag"},
		{"check", "--config", "testdata/missing.yaml"},
		{"check", "/outside/the/repo"},
		{"version", "extra"},
	} {
		code, _, errOut := plumb(t, args...)
		if code != 2 || !strings.HasPrefix(errOut, "plumb: ") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
		}
	}
}

func TestBadConfigNamesTheLine(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "plumb.yaml")
	if err := os.WriteFile(cfg, []byte("paths: [.]\nfail-on: error\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := plumb(t, "check", "--config", cfg, "testdata/bad/ok")
	if code != 2 || !strings.Contains(errOut, `plumb.yaml:2:1: unknown key "fail-on"`) {
		t.Errorf("exit %d stderr %q", code, errOut)
	}
}

func TestBadFormatInConfigNamesTheLine(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "plumb.yaml")
	if err := os.WriteFile(cfg, []byte("format:\n  - text\n  - xml=out.xml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := plumb(t, "check", "--config", cfg, "testdata/bad/ok")
	if code != 2 || !strings.Contains(errOut, `plumb.yaml:3:5: format "xml=out.xml": unknown format (want annotations, json, markdown, sarif, text)`) {
		t.Errorf("exit %d stderr %q", code, errOut)
	}
}

func TestRenderPrintsObjectsAndRedactsSecrets(t *testing.T) {
	tmp := t.TempDir()
	if err := os.WriteFile(filepath.Join(tmp, "s.yaml"), []byte("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  password: hunter2\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c # keep comments\ndata: {a: b}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := plumb(t, "render", "--root", tmp, tmp)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "# target: .\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  password: <redacted>\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c # keep comments\ndata: {a: b}\n"
	if out != want {
		t.Errorf("render output:\n%s\nwant:\n%s", out, want)
	}
	if strings.Contains(out+errOut, "hunter2") {
		t.Error("a Secret value leaked")
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := plumb(t, "version")
	if code != 0 || !strings.HasPrefix(out, "plumb ") {
		t.Errorf("exit %d: %q", code, out)
	}
}
