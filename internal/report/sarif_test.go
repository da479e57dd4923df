package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/report/sarifcheck"
)

// prReport is a pull-request-mode report that uses every field the GitHub
// sinks print: statuses (new, unchanged, fixed), related locations, a
// diff, suppressions, rules with help, tags and security severity.
func prReport() *Report {
	web := finding.ObjectID{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web", Target: "overlays/prod"}
	mk := func(f finding.Finding) finding.Finding { f.SetFingerprint(); return f }
	r := &Report{
		Version: "1.2.0",
		Findings: []finding.Finding{
			mk(finding.Finding{Source: "check", RuleID: "check/IMAGE_TAG", Level: finding.Error, Title: "Image tag pinned",
				Message: `container "web" uses the mutable tag "latest"`, Help: "Pin the image to a version or a digest:\n\n```yaml\nimage: web@sha256:...\n```",
				Object: web, Path: manifest.MustParsePath("spec.template.spec.containers[0].image"), Status: finding.StatusNew,
				Location: finding.Location{File: "overlays/prod/patch.yaml", Line: 9, Column: 16, EndLine: 9, EndColumn: 26},
				Related:  []finding.Related{{Location: finding.Location{File: "base/deployment.yaml", Line: 20, Column: 16}, Message: "the base sets it here"}}}),
			mk(finding.Finding{Source: "compare", RuleID: "compare/drift", Level: finding.Warning, Title: "Drift from the reference",
				Message: "Deployment shop/web differs from the reference template deployment.yaml", Object: web, Status: finding.StatusUnchanged,
				Location: finding.Location{File: "overlays/prod/patch.yaml", Line: 1, Column: 1},
				Diff:     "--- reference\n+++ rendered\n@@ -3,3 +3,3 @@\n spec:\n-  replicas: 3\n+  replicas: 1\n"}),
			mk(finding.Finding{Source: "kubevirt", RuleID: "kubevirt/minimal-memory", Level: finding.Note, Message: "memory is below the template's minimum",
				Object:   finding.ObjectID{APIVersion: "kubevirt.io/v1", Kind: "VirtualMachine", Namespace: "vms", Name: "db", Target: "vms"},
				Location: finding.Location{File: "vms/db vm.yaml", Line: 30, Column: 11}}),
			mk(finding.Finding{Source: "check", RuleID: "check/PROBES", Level: finding.Warning, Message: "no readinessProbe",
				Object: web, Status: finding.StatusFixed, Location: finding.Location{File: "base/deployment.yaml", Line: 18, Column: 9}}),
			mk(finding.Finding{Source: "check", RuleID: "check/PROBES", Level: finding.Warning, Message: "no livenessProbe",
				Object: web, Location: finding.Location{File: "base/deployment.yaml", Line: 18, Column: 9}, Key: "liveness",
				Suppressed: &finding.Suppression{Kind: "annotation", Reason: "the mesh probes it", Until: "2027-01-01",
					Source: finding.Location{File: "base/deployment.yaml", Line: 6, Column: 5}}}),
			mk(finding.Finding{Source: "manifest", RuleID: "manifest/yaml-syntax", Level: finding.Error, Message: "YAML syntax error: did not find expected key",
				Location: finding.Location{File: "apps/broken.yaml", Line: 4, Column: 3}, InputError: true}),
		},
		Rules: []finding.Rule{
			{ID: "check/IMAGE_TAG", Name: "ImageTagPinned", Short: "Images are pinned to a version", Full: "A mutable tag such as latest deploys whatever was pushed last.",
				Help: "Pin the image to a version or a digest.", Level: finding.Error, Tags: []string{"supply-chain"}, SecuritySeverity: "7.5", Precision: "very-high"},
			{ID: "check/PROBES", Name: "Probes", Short: "Containers have probes", Level: finding.Warning},
			{ID: "compare/drift", Short: "Rendered objects match the reference", Level: finding.Warning},
			{ID: "manifest/yaml-syntax", Short: "The document is valid YAML", Level: finding.Error},
			{ID: "check/UNUSED", Name: "Unused", Short: "A rule that ran and found nothing", Level: finding.Note},
		},
		Objects: []ObjectEntry{{ObjectID: web, File: "base/deployment.yaml", Line: 1}},
		Targets: []TargetEntry{{Name: "overlays/prod", Kind: "kustomize", Objects: 1}},
	}
	finding.Sort(r.Findings)
	return r
}

func sarifOf(t *testing.T, s SARIF, r *Report) []byte {
	t.Helper()
	b, err := s.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if errs := sarifcheck.Validate(b); len(errs) > 0 {
		t.Fatalf("invalid SARIF: %v", errs)
	}
	return b
}

type sarifLog struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Name  string `json:"name"`
				Rules []struct {
					ID         string         `json:"id"`
					Help       map[string]any `json:"help"`
					Properties map[string]any `json:"properties"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		AutomationDetails struct {
			ID string `json:"id"`
		} `json:"automationDetails"`
		Invocations []struct {
			ToolExecutionNotifications []struct {
				Message struct{ Text string } `json:"message"`
			} `json:"toolExecutionNotifications"`
		} `json:"invocations"`
		Results []struct {
			RuleID              string                `json:"ruleId"`
			Level               string                `json:"level"`
			Message             struct{ Text string } `json:"message"`
			PartialFingerprints map[string]string     `json:"partialFingerprints"`
			BaselineState       string                `json:"baselineState"`
			Locations           []struct {
				PhysicalLocation struct {
					ArtifactLocation struct{ URI string } `json:"artifactLocation"`
					Region           map[string]int       `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			RelatedLocations []json.RawMessage `json:"relatedLocations"`
			Suppressions     []struct {
				Kind, Status, Justification string
			} `json:"suppressions"`
		} `json:"results"`
	} `json:"runs"`
}

func parseSARIF(t *testing.T, b []byte) sarifLog {
	t.Helper()
	var l sarifLog
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatal(err)
	}
	return l
}

func TestSARIFGolden(t *testing.T) {
	b := sarifOf(t, SARIF{}, prReport())
	golden(t, "report.sarif", b)
	if again := sarifOf(t, SARIF{}, prReport()); !bytes.Equal(b, again) {
		t.Error("two encodings of one report differ")
	}
}

func TestSARIFContent(t *testing.T) {
	r := prReport()
	l := parseSARIF(t, sarifOf(t, SARIF{Category: "plumb/prod"}, r))
	if len(l.Runs) != 1 {
		t.Fatalf("%d runs", len(l.Runs))
	}
	run := l.Runs[0]
	if run.AutomationDetails.ID != "plumb/prod/" {
		t.Errorf("category %q", run.AutomationDetails.ID)
	}
	// Every rule that ran, including one that found nothing.
	var ids []string
	for _, rule := range run.Tool.Driver.Rules {
		ids = append(ids, rule.ID)
		if rule.ID == "check/IMAGE_TAG" {
			p := rule.Properties
			if p["security-severity"] != "7.5" || p["precision"] != "very-high" || p["problem.severity"] != "error" ||
				fmt.Sprint(p["tags"]) != "[check supply-chain security]" {
				t.Errorf("IMAGE_TAG properties %v", p)
			}
			if rule.Help["markdown"] != "Pin the image to a version or a digest." {
				t.Errorf("help %v", rule.Help)
			}
		}
	}
	want := "[check/IMAGE_TAG check/PROBES check/UNUSED compare/drift kubevirt/minimal-memory manifest/yaml-syntax]"
	if fmt.Sprint(ids) != want {
		t.Errorf("rules %v, want %s (kubevirt/minimal-memory described from its finding)", ids, want)
	}
	// Fixed findings are not results: code scanning closes their alerts.
	if len(run.Results) != 5 {
		t.Fatalf("%d results, want 5", len(run.Results))
	}
	byRule := map[string]int{}
	for i, res := range run.Results {
		byRule[res.RuleID+"/"+res.Level] = i
		if res.PartialFingerprints["plumbFingerprint/v1"] == "" {
			t.Errorf("result %d has no fingerprint", i)
		}
		if !strings.HasSuffix(res.Message.Text, ".") {
			t.Errorf("message %q does not end a sentence", res.Message.Text)
		}
	}
	img := run.Results[byRule["check/IMAGE_TAG/error"]]
	loc := img.Locations[0].PhysicalLocation
	if loc.ArtifactLocation.URI != "overlays/prod/patch.yaml" || loc.Region["startLine"] != 9 || loc.Region["startColumn"] != 16 ||
		loc.Region["endLine"] != 9 || loc.Region["endColumn"] != 26 || img.BaselineState != "new" || len(img.RelatedLocations) != 1 {
		t.Errorf("IMAGE_TAG result %+v", img)
	}
	vm := run.Results[byRule["kubevirt/minimal-memory/note"]]
	if vm.Locations[0].PhysicalLocation.ArtifactLocation.URI != "vms/db%20vm.yaml" {
		t.Errorf("uri %q is not escaped", vm.Locations[0].PhysicalLocation.ArtifactLocation.URI)
	}
	sup := run.Results[byRule["check/PROBES/warning"]]
	if len(sup.Suppressions) != 1 || sup.Suppressions[0].Kind != "inSource" || sup.Suppressions[0].Status != "accepted" ||
		sup.Suppressions[0].Justification != "the mesh probes it (until 2027-01-01)" {
		t.Errorf("suppression %+v", sup.Suppressions)
	}
}

func TestSARIFKeepsTheMostImportantWithinLimits(t *testing.T) {
	r := &Report{Version: "1"}
	for i := 0; i < 40; i++ {
		level := []finding.Level{finding.Note, finding.Warning, finding.Error, finding.Note}[i%4]
		f := finding.Finding{Source: "check", RuleID: "check/R" + fmt.Sprint(i%3), Level: level, Message: fmt.Sprintf("finding %d %s", i, strings.Repeat("x", 200)),
			Location: finding.Location{File: fmt.Sprintf("f%02d.yaml", i), Line: 1}}
		for j := 0; j < 30; j++ {
			f.Related = append(f.Related, finding.Related{Location: finding.Location{File: "r.yaml", Line: j + 1}})
		}
		f.SetFingerprint()
		r.Findings = append(r.Findings, f)
	}
	finding.Sort(r.Findings)
	l := parseSARIF(t, sarifOf(t, SARIF{Limits: SARIFLimits{Results: 12, RelatedLocations: 5}}, r))
	run := l.Runs[0]
	levels := map[string]int{}
	for _, res := range run.Results {
		levels[res.Level]++
		if len(res.RelatedLocations) != 5 {
			t.Errorf("%d related locations, want the cap of 5", len(res.RelatedLocations))
		}
	}
	if len(run.Results) != 12 || levels["error"] != 10 || levels["warning"] != 2 || levels["note"] != 0 {
		t.Errorf("kept %v of %d; want the 10 errors and 2 warnings", levels, len(run.Results))
	}
	if n := run.Invocations[0].ToolExecutionNotifications; len(n) != 1 || !strings.Contains(n[0].Message.Text, "28 less important results were left out") {
		t.Errorf("notifications %+v", n)
	}

	// A size limit: results go, least important first, and the file stays valid.
	b := sarifOf(t, SARIF{Limits: SARIFLimits{GzipBytes: 4000}}, r)
	if !fitsGzip(b, 4000) {
		t.Fatal("over the size limit")
	}
	run = parseSARIF(t, b).Runs[0]
	if len(run.Results) == 0 || len(run.Results) >= 40 {
		t.Fatalf("%d results under a 4000-byte limit", len(run.Results))
	}
	levels = map[string]int{}
	for _, res := range run.Results {
		levels[res.Level]++
	}
	if levels["warning"] > 0 && levels["error"] < 10 || levels["note"] > 0 && levels["warning"] < 10 {
		t.Errorf("kept %v: a less severe result was kept while a more severe one was dropped", levels)
	}
}

func TestSARIFTagsAndTextLimits(t *testing.T) {
	rule := finding.Rule{ID: "check/LONG", Short: strings.Repeat("s", 3000), Full: strings.Repeat("f", 3000), Name: strings.Repeat("n", 400), Level: finding.Warning}
	for i := 0; i < 40; i++ {
		rule.Tags = append(rule.Tags, fmt.Sprint("tag", i))
	}
	r := &Report{Rules: []finding.Rule{rule}}
	l := parseSARIF(t, sarifOf(t, SARIF{}, r))
	got := l.Runs[0].Tool.Driver.Rules[0]
	if tags := got.Properties["tags"].([]any); len(tags) != 20 {
		t.Errorf("%d tags", len(tags))
	}
	if len(l.Runs[0].Results) != 0 {
		t.Error("results from nowhere")
	}
}

// The checks of the catalog's Security group get a security-severity by
// level (code scanning lists them as security alerts, by severity); other
// rules none; a rule's own score wins.
func TestSARIFSecuritySeverity(t *testing.T) {
	r := &Report{Rules: []finding.Rule{
		{ID: "check/D10001", Name: "Containers run as a non-root user", Level: finding.Error, Tags: []string{"checks", "Security"}},
		{ID: "check/D10002", Name: "Read-only root filesystem", Level: finding.Warning, Tags: []string{"checks", "Security"}},
		{ID: "check/A10001", Name: "CPU requests", Level: finding.Warning, Tags: []string{"checks", "Resources"}},
		{ID: "check/X", Name: "Own score", Level: finding.Note, Tags: []string{"security"}, SecuritySeverity: "9.5"},
	}}
	got := map[string]string{}
	for _, rule := range parseSARIF(t, sarifOf(t, SARIF{}, r)).Runs[0].Tool.Driver.Rules {
		sev, _ := rule.Properties["security-severity"].(string)
		got[rule.ID] = sev + " " + fmt.Sprint(rule.Properties["tags"])
	}
	want := map[string]string{
		"check/D10001": "8.0 [check checks security]",
		"check/D10002": "5.0 [check checks security]",
		"check/A10001": " [check checks Resources]",
		"check/X":      "9.5 [check security]",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %q, want %q", id, got[id], w)
		}
	}
}

func TestSARIFRuleNames(t *testing.T) {
	for id, want := range map[string]string{"manifest/duplicate-key": "ManifestDuplicateKey", "check/156F64": "Check156F64", "x": "X", "a": "A"} {
		if got := ruleName(finding.Rule{ID: id}); got != want {
			t.Errorf("%s: %s, want %s", id, got, want)
		}
	}
	for v, want := range map[string]string{"dev": "0.0.0-dev", "v1.2.3": "1.2.3", "": "0.0.0-dev", "2.0": "2.0"} {
		if got := sarifVersion(v); got != want {
			t.Errorf("version %q: %s, want %s", v, got, want)
		}
	}
}

// TestSARIFMultitool validates the files with Microsoft's SARIF Multitool
// (GitHub's and SARIF's rules), when it is installed.
func TestSARIFMultitool(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for name, r := range map[string]*Report{"pr": prReport(), "sample": sampleReport(), "empty": {Version: "dev"}} {
		b := sarifOf(t, SARIF{}, r)
		p := filepath.Join(dir, name+".sarif")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	sarifcheck.Multitool(t, files...)
}

func TestValidatorCatchesBrokenFiles(t *testing.T) {
	good := sarifOf(t, SARIF{}, prReport())
	for name, breakIt := range map[string]func(m map[string]any){
		"no version": func(m map[string]any) { delete(m, "version") },
		"null field": func(m map[string]any) {
			m["runs"].([]any)[0].(map[string]any)["results"].([]any)[0].(map[string]any)["guid"] = nil
		},
		"empty message":  func(m map[string]any) { result0(m)["message"] = map[string]any{"text": ""} },
		"absolute uri":   func(m map[string]any) { loc0(m)["artifactLocation"] = map[string]any{"uri": "file:///etc/passwd"} },
		"line 0":         func(m map[string]any) { loc0(m)["region"] = map[string]any{"startLine": 0} },
		"unknown rule":   func(m map[string]any) { result0(m)["ruleId"] = "nope"; delete(result0(m), "ruleIndex") },
		"two categories": func(m map[string]any) { m["runs"] = append(m["runs"].([]any), m["runs"].([]any)[0]) },
	} {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		breakIt(m)
		b, _ := json.Marshal(m)
		if errs := sarifcheck.Validate(b); len(errs) == 0 {
			t.Errorf("%s: accepted", name)
		}
	}
}

func result0(m map[string]any) map[string]any {
	return m["runs"].([]any)[0].(map[string]any)["results"].([]any)[0].(map[string]any)
}

func loc0(m map[string]any) map[string]any {
	return result0(m)["locations"].([]any)[0].(map[string]any)["physicalLocation"].(map[string]any)
}
