package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/report/sarifcheck"
)

func TestDemoWithReference(t *testing.T) {
	code, out, errOut := plumb(t, "check", "--root", "../..", "../../fixtures/demo", "--reference", "../../fixtures/reference")
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		// The drifted field, at the line that sets it.
		"fixtures/demo/web/deployment.yaml:20:11: error: Deployment shop/web: spec.template.spec.containers[0].image is nginx:latest, the reference template web/deployment.yaml expects ^nginx:[0-9]+\\.[0-9]+\\.[0-9]+$ [compare/drift]",
		// The missing template, at its entry in the reference.
		"fixtures/reference/metadata.yaml:18: error: Missing CRs: fixtures/reference/metadata.yaml requires PodDisruptionBudget shop/web (template web/poddisruptionbudget.yaml, part shop, component web) and no object of target fixtures/demo/web matches it [compare/missing]",
		"fixtures/demo/worker/cronjob.yaml:2:1: note: CronJob shop/report matches no template of the reference fixtures/reference/metadata.yaml [compare/unmatched]",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	code, out, _ = plumb(t, "check", "--root", "../..", "../../fixtures/demo", "--reference", "../../fixtures/reference/metadata.yaml", "--format", "json", "--reproducible")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var rep struct {
		Findings []struct {
			RuleID string `json:"rule_id"`
			Diff   string `json:"diff"`
		} `json:"findings"`
		Compare map[string]struct {
			Summary struct{ NumDiffCRs, NumMissing, TotalCRs int }
		} `json:"compare"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	web := rep.Compare["fixtures/demo/web"].Summary
	if web.NumDiffCRs != 1 || web.NumMissing != 1 || web.TotalCRs != 2 {
		t.Errorf("compare section for fixtures/demo/web: %+v", web)
	}
	found := false
	for _, f := range rep.Findings {
		if f.RuleID == "compare/drift" {
			found = strings.Contains(f.Diff, "-      - image: ^nginx:") && strings.Contains(f.Diff, "+      - image: nginx:latest")
		}
	}
	if !found {
		t.Error("the drift finding carries its diff")
	}
}

func TestCheckWithBrokenReferenceExitsTwo(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "metadata.yaml"), []byte("apiVersion: v2\nparts:\n  - name: p\n    components:\n      - name: c\n        allOf:\n          - path: missing.yaml\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := plumb(t, "check", "testdata/bad/ok", "--reference", dir)
	if code != 2 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	// Printed once, in the text report.
	want := "metadata.yaml:7: error: an error occurred while reading template: missing.yaml specified in the config. error: the file does not exist [compare/reference]"
	if !strings.Contains(out, want) || strings.Contains(errOut, want) {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
}

func TestCompareCommand(t *testing.T) {
	ref := "../../fixtures/reference"
	code, out, errOut := plumb(t, "compare", "-r", ref, "-f", "../../fixtures/demo/web", "-f", "../../fixtures/demo/api")
	if code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"Cluster CR: apps/v1_Deployment_shop_web", "+      - image: nginx:latest", "CRs with diffs: 1/4", "    Missing CRs:\n    - web/poddisruptionbudget.yaml"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = plumb(t, "compare", "-r", ref, "-f", "../../fixtures/demo/api", "-o", "json")
	if code != 0 || !strings.HasPrefix(out, `{"Summary":{"ValidationIssuses":{}`) {
		t.Errorf("conforming api objects: exit %d\n%s", code, out)
	}
	code, _, errOut = plumb(t, "compare", "-f", "x")
	if code != 2 || !strings.Contains(errOut, "a reference is required") || !strings.Contains(errOut, "See 'plumb compare -h' for help and examples") {
		t.Errorf("usage error: exit %d\n%s", code, errOut)
	}
	code, _, errOut = plumb(t, "compare", "-r", ref, "-f", "x", "--bogus")
	if code != 2 || !strings.Contains(errOut, "unknown flag: --bogus") {
		t.Errorf("unknown flag: exit %d\n%s", code, errOut)
	}
	code, out, _ = plumb(t, "compare", "--show-template-functions")
	if code != 0 || !strings.Contains(out, "lookupCRs\n") || strings.Contains(out, "\nenv\n") {
		t.Errorf("template functions: exit %d", code)
	}
}

func TestReferenceFindingsAreValidSARIF(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plumb.sarif")
	code, _, errOut := plumb(t, "check", "--root", "../..", "../../fixtures/demo", "--reference", "../../fixtures/reference", "--format", "sarif="+file)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if errs := sarifcheck.Validate(data); len(errs) > 0 {
		t.Errorf("invalid SARIF: %v", errs)
	}
	for _, rule := range []string{`"compare/drift"`, `"compare/missing"`, `"compare/unmatched"`} {
		if !strings.Contains(string(data), rule) {
			t.Errorf("SARIF lacks %s", rule)
		}
	}
	sarifcheck.Multitool(t, file)
}
