package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Fixtures of issue 34: patterns found on the first runs over real
// repositories, each asserting the exact findings (rule, file, line).

// quietFindings runs plumb check in dir with args and returns the report's
// findings as "rule file:line", sorted, and the skipped files as
// "path (reason)".
func quietFindings(t *testing.T, dir string, args ...string) (findings, skipped []string) {
	t.Helper()
	argv := append([]string{"check", "--root", dir, "--format", "json", "--fail-on", "never"}, args...)
	code, out, errOut := plumb(t, argv...)
	if code != 0 {
		t.Fatalf("plumb %v: exit %d\n%s", argv, code, errOut)
	}
	var rep struct {
		Findings []struct {
			RuleID   string `json:"rule_id"`
			Location struct {
				File string `json:"file"`
				Line int    `json:"line"`
			} `json:"location"`
		} `json:"findings"`
		Skipped []struct {
			Path   string `json:"path"`
			Reason string `json:"reason"`
		} `json:"skipped"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	for _, f := range rep.Findings {
		findings = append(findings, fmt.Sprintf("%s %s:%d", f.RuleID, f.Location.File, f.Location.Line))
	}
	for _, s := range rep.Skipped {
		skipped = append(skipped, fmt.Sprintf("%s (%s)", s.Path, s.Reason))
	}
	slices.Sort(findings)
	return findings, skipped
}

func assertLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got  %s\n want %s", what, strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}

// A kubebuilder project: its operator manifests in config/, a vendored Go
// module with test YAML, a controller's testdata (deliberately broken
// input) and an npm package's YAML. Only config/ is deployed.
var operatorRepoFiles = map[string]string{
	"go.mod": "module example.com/op\n\ngo 1.22\n",
	"config/manager/manager.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: manager-config
data:
  image: controller:latest
`,
	"vendor/sigs.k8s.io/yaml/testdata/bad.yaml": "a: [\n",
	"internal/controller/testdata/broken.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  name: y\n",
	"web/node_modules/some-chart/deploy.yaml":   "key: : value\n",
	"hack/vendor/manifests.yaml":                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: v\n  name: w\n",
}

// Point 1: vendor/ beside go.mod, testdata/ and node_modules/ are not
// checked but counted; a vendor/ without a go.mod beside it is the
// project's own; .plumb.yaml's include reads a skipped directory again; a
// path named on the command line is always read.
func TestNotDeployedDirectoriesAreSkippedAndCounted(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, operatorRepoFiles)
	findings, skipped := quietFindings(t, dir, dir, "--no-default-checks")
	assertLines(t, "findings", findings, []string{"manifest/duplicate-key hack/vendor/manifests.yaml:5"})
	assertLines(t, "skipped", skipped, []string{
		"internal/controller/testdata/broken.yaml (test data)",
		"vendor/sigs.k8s.io/yaml/testdata/bad.yaml (vendored dependency)",
		"web/node_modules/some-chart/deploy.yaml (vendored dependency)",
	})
	_, out, _ := plumb(t, "check", "--root", dir, dir, "--no-default-checks", "--fail-on", "never")
	if !strings.Contains(out, "3 files skipped: 1 test data, 2 vendored dependency files") {
		t.Errorf("summary does not count the skipped files:\n%s", out)
	}

	// Named on the command line: read.
	findings, _ = quietFindings(t, dir, dir+"/internal/controller/testdata/broken.yaml", "--no-default-checks")
	assertLines(t, "named file", findings, []string{"manifest/duplicate-key internal/controller/testdata/broken.yaml:5"})
	findings, _ = quietFindings(t, dir, dir+"/internal/controller/testdata", "--no-default-checks")
	assertLines(t, "named directory", findings, []string{"manifest/duplicate-key internal/controller/testdata/broken.yaml:5"})

	// Included again by .plumb.yaml.
	writeTree(t, dir, map[string]string{".plumb.yaml": "include: [\"internal/**/testdata\"]\n"})
	findings, skipped = quietFindings(t, dir, dir, "--no-default-checks", "--config", dir+"/.plumb.yaml")
	assertLines(t, "included", findings, []string{
		"manifest/duplicate-key hack/vendor/manifests.yaml:5",
		"manifest/duplicate-key internal/controller/testdata/broken.yaml:5",
	})
	assertLines(t, "skipped with include", skipped, []string{
		".plumb.yaml (tool configuration)",
		"vendor/sigs.k8s.io/yaml/testdata/bad.yaml (vendored dependency)",
		"web/node_modules/some-chart/deploy.yaml (vendored dependency)",
	})
}
