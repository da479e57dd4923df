package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/golden"
)

func runCLI(t *testing.T, o CLIOptions, stdin string) (stdout, stderr string, code int) {
	t.Helper()
	if err := o.Validate(); err != nil {
		t.Fatalf("usage: %v", err)
	}
	var out, errOut bytes.Buffer
	code = RunCLI(context.Background(), o, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), code
}

func goldenOptions() CLIOptions {
	return CLIOptions{Reference: "testdata/ref/metadata.yaml", Files: []string{"testdata/inputs"},
		Overrides: "testdata/overrides.yaml", AllResources: true}
}

// TestOutputFormats checks every output format against its golden file.
// The fixture exercises a diff, a masked Secret diff, a patched input, a
// missing allOf template (with description), a oneOf with no match, a
// matched noneOf template and an unmatched input.
func TestOutputFormats(t *testing.T) {
	for _, c := range []struct {
		golden  string
		output  string
		verbose bool
	}{
		{"golden/report.txt", FormatText, false},
		{"golden/report-verbose.txt", FormatText, true},
		{"golden/report.json", FormatJSON, false},
		{"golden/report.yaml", FormatYAML, false},
		{"golden/report.junit.xml", FormatJUnit, false},
	} {
		t.Run(c.golden, func(t *testing.T) {
			o := goldenOptions()
			o.Output, o.Verbose = c.output, c.verbose
			out, _, code := runCLI(t, o, "")
			if code != ExitDrift {
				t.Errorf("exit %d, want %d", code, ExitDrift)
			}
			golden.AssertString(t, filepath.Join("testdata", c.golden), out)
		})
	}
}

func TestOutputShapes(t *testing.T) {
	o := goldenOptions()
	o.Output = FormatJSON
	out, _, _ := runCLI(t, o, "")
	if strings.Count(out, "\n") != 1 {
		t.Error("-o json is one line")
	}
	var raw struct{ Summary map[string]any }
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"ValidationIssuses", "NumMissing", "UnmatchedCRS", "NumDiffCRs", "TotalCRs", "MetadataHash", "patchedCRs"} {
		if _, ok := raw.Summary[k]; !ok {
			t.Errorf("Summary has no %s", k)
		}
	}
	var parsed Output
	if err := json.Unmarshal([]byte(out), &parsed); err != nil {
		t.Fatal(err)
	}
	if len(parsed.Diffs) != 5 {
		t.Errorf("Diffs lists every compared input (5), got %d", len(parsed.Diffs))
	}

	o.Output = FormatJUnit
	out, _, _ = runCLI(t, o, "")
	var suites junitSuites
	if err := xml.Unmarshal([]byte(out), &suites); err != nil {
		t.Fatalf("JUnit output is not XML: %v", err)
	}
	if len(suites.Suites) != 3 || suites.Suites[0].Failures != 2 || suites.Suites[0].Skipped != 1 || suites.Suites[1].Failures != 3 || suites.Suites[2].Failures != 1 {
		t.Errorf("suites: %+v", suites.Suites)
	}
}

func TestGeneratePatches(t *testing.T) {
	o := goldenOptions()
	o.Output = FormatGeneratePatches
	o.GenerateOverrideFor = []string{"frontend/deployment.yaml", "platform/secret.yaml"}
	o.OverrideReason = "accepted in review"
	out, _, code := runCLI(t, o, "")
	if code != ExitNoDrift {
		t.Errorf("generate-patches exits 0 whatever the diffs, got %d", code)
	}
	golden.AssertString(t, "testdata/golden/patches.yaml", out)
	if strings.Contains(out, "cm9vdA") || strings.Contains(out, "aHVudGVyMg") {
		t.Error("a Secret value was written into a patch")
	}

	// The generated overrides, fed back with -p, accept the deviation.
	file := filepath.Join(t.TempDir(), "generated.yaml")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	o = goldenOptions()
	o.Overrides = file
	o.Output = FormatJSON
	jsonOut, _, _ := runCLI(t, o, "")
	var rep Output
	if err := json.Unmarshal([]byte(jsonOut), &rep); err != nil {
		t.Fatal(err)
	}
	for _, d := range rep.Diffs {
		if d.CorrelatedTemplate == "frontend/deployment.yaml" && (d.DiffOutput != "" || d.Patched == "") {
			t.Errorf("the generated override did not apply: %+v", d)
		}
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	conforming := write("ok.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: frontend\n  namespace: shop\nspec:\n  ports:\n    - port: 80\n")
	refFiles := map[string]string{
		"metadata.yaml": "apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        anyOf:\n          - path: svc.yaml\n",
		"svc.yaml":      "apiVersion: v1\nkind: Service\nmetadata:\n  name: frontend\n  namespace: shop\nspec:\n  ports:\n    - port: {{ if .spec }}{{ (index .spec.ports 0).port }}{{ else }}80{{ end }}\n",
	}
	refDir := filepath.Join(dir, "ref")
	if err := os.MkdirAll(refDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for k, v := range refFiles {
		if err := os.WriteFile(filepath.Join(refDir, k), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name   string
		o      CLIOptions
		stdin  string
		code   int
		stderr string
		stdout string
	}{
		{"no drift", CLIOptions{Reference: refDir, Files: []string{conforming}}, "", ExitNoDrift, "", "CRs with diffs: 0/1"},
		{"stdin", CLIOptions{Reference: refDir, Files: []string{"-"}}, "apiVersion: v1\nkind: Service\nmetadata:\n  name: frontend\n  namespace: shop\nspec:\n  ports:\n    - port: 80\n  type: NodePort\n", ExitDrift, "", "+  type: NodePort"},
		{"unmatched inputs do not change the exit code", CLIOptions{Reference: refDir, Files: []string{conforming + "," + write("other.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n")}, AllResources: true}, "", ExitNoDrift, "", "- v1_Pod_p"},
		{"missing reference", CLIOptions{Reference: filepath.Join(dir, "nope"), Files: []string{conforming}}, "", ExitError, "Reference config file doesn't exist", ""},
		// kube-compare pkg/compare/compare.go (Complete: the -f paths are
		// resolved before anything runs): a missing path is fatal, and
		// nothing reaches stdout (the stdout check is in the loop).
		{"missing input path", CLIOptions{Reference: refDir, Files: []string{conforming, filepath.Join(dir, "gone.yaml")}}, "", ExitError, "gone.yaml\" does not exist", ""},
		// kube-compare pkg/compare/compare.go (the resource visitor's
		// "error parsing" errors, downgraded to its skipInvalidResources
		// warning): a file that is not a valid resource is skipped.
		{"input that is not YAML is skipped", CLIOptions{Reference: refDir, Files: []string{conforming, write("bad.yaml", "kind: [\n")}}, "", ExitNoDrift,
			"bad.yaml:1:1: Input contains additional files from supported file extensions (json/yaml) that do not contain a valid resource, error: YAML syntax error", "CRs with diffs: 0/1"},
		// kubectl's resource builder flattens *List kinds (a must-gather
		// holds ServiceList files); duplicates by identity are dropped, the
		// first one winning (kube-compare PR #237, pkg/compare/compare.go).
		{"lists are flattened, duplicates dropped first-wins", CLIOptions{Reference: refDir, Files: []string{write("list.yaml",
			"apiVersion: v1\nkind: ServiceList\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: frontend, namespace: shop}\n  spec:\n    ports:\n    - port: 80\n"+
				"- apiVersion: v1\n  kind: Service\n  metadata: {name: frontend, namespace: shop}\n  spec:\n    ports:\n    - port: 81\n")}}, "", ExitNoDrift, "", "CRs with diffs: 0/1"},
		// kubectl's decoder keeps the last of duplicate keys.
		{"duplicate keys keep the last value", CLIOptions{Reference: refDir, Files: []string{write("dup.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: frontend\n  namespace: shop\nspec:\n  ports:\n    - port: 81\n  ports:\n    - port: 80\n")}}, "", ExitNoDrift,
			`dup.yaml:9:3: duplicate key "ports" (first defined at line 7)`, "CRs with diffs: 0/1"},
		{"documents that are not objects are skipped", CLIOptions{Reference: refDir, Files: []string{conforming + "," + write("notes.yaml", "just: data\n")}}, "", ExitNoDrift, "", "CRs with diffs: 0/1"},
		{"bad diff config", CLIOptions{Reference: refDir, Files: []string{conforming}, DiffConfig: write("diff.yaml", "correlationSettings:\n  nope: 1\n")}, "", ExitError, `diff.yaml:2:3: correlationSettings: unknown key "nope"`, ""},
		{"override without reason", CLIOptions{Reference: refDir, Files: []string{conforming}, Overrides: write("ov.yaml", "- kind: Service\n  type: mergepatch\n  patch: '{}'\n")}, "", ExitError, "ov.yaml:1:3: failed to load user overrides: missing reason", ""},
		{"override with a bad patch", CLIOptions{Reference: refDir, Files: []string{conforming}, Overrides: write("ov2.yaml", "- kind: Service\n  type: rfc6902\n  patch: '{\"op\": \"add\"}'\n  reason: r\n")}, "", ExitError, "an rfc6902 patch is a JSON array of operations", ""},
		// kube-compare pkg/compare/compare.go (Run: template errors are
		// collected and the run aborts without a report).
		{"template failure writes no report", CLIOptions{Reference: refDir, Files: []string{write("weird.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: frontend\n  namespace: shop\nspec:\n  ports: {}\n")}, Output: FormatJSON}, "", ExitError, "error: error occurred while trying to process resources: ", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, c.o, c.stdin)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out, errOut)
			}
			if c.stderr != "" {
				mustContain(t, errOut, c.stderr)
			}
			if c.stdout != "" {
				mustContain(t, out, c.stdout)
			}
			if code == ExitError && out != "" {
				t.Errorf("exit 2 with a report on stdout:\n%s", out)
			}
		})
	}
}

func TestReferenceInsideTheInputsIsNotRead(t *testing.T) {
	out, errOut, code := runCLI(t, CLIOptions{Reference: "testdata/ref/metadata.yaml", Files: []string{"testdata"}, Recursive: true}, "")
	if code != ExitDrift || strings.Contains("\n"+errOut, "\nerror:") || strings.Contains(errOut, "testdata/ref/") {
		t.Errorf("exit %d\n%s", code, errOut)
	}
	mustContain(t, out, "CRs with diffs: 3/5")
}

func TestUsageErrors(t *testing.T) {
	for _, c := range []struct {
		o    CLIOptions
		want string
	}{
		{CLIOptions{Files: []string{"x"}}, "a reference is required"},
		{CLIOptions{Reference: "r", Files: []string{"x"}, Kustomize: "k"}, "not both"},
		{CLIOptions{Reference: "r", OutputDir: "o"}, "--output-dir only applies with -g"},
		{CLIOptions{GenerateConfig: true, Files: []string{"x"}}, "needs --output-dir"},
		{CLIOptions{GenerateConfig: true, OutputDir: "o"}, "needs -r REFERENCE to name the kinds"},
		{CLIOptions{GenerateConfig: true, OutputDir: "o", Files: []string{"x"}, Output: FormatJSON}, "-o, -c, -p and --generate-override-for apply to comparisons"},
		{CLIOptions{Reference: "r", Files: []string{"x"}, Output: "xml"}, `invalid output format "xml"`},
		{CLIOptions{Reference: "r", Files: []string{"x"}, Output: FormatGeneratePatches, OverrideReason: "r"}, "needs --generate-override-for"},
		{CLIOptions{Reference: "r", Files: []string{"x"}, Output: FormatGeneratePatches, GenerateOverrideFor: []string{"t"}}, "needs --override-reason"},
		{CLIOptions{Reference: "r", Files: []string{"x"}, OverrideReason: "r"}, "only apply with -o generate-patches"},
	} {
		err := c.o.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) || !IsUsageError(err) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

func TestShowTemplateFunctions(t *testing.T) {
	out, _, code := runCLI(t, CLIOptions{ShowTemplateFunctions: true}, "")
	if code != 0 {
		t.Fatal(code)
	}
	names := strings.Fields(out)
	for _, want := range []string{"lookupCR", "lookupCRs", "doNotMatch", "toYaml", "fromYaml", "fromJsonArray", "toToml", "regexMatch", "semver"} {
		if !contains(names, want) {
			t.Errorf("%s not listed", want)
		}
	}
	for _, banned := range removedSprigFuncs {
		if contains(names, banned) {
			t.Errorf("%s must not be available", banned)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
