package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/golden"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// sampleReport is a report with one finding of each level, a suppressed
// finding, an input error and an engine section.
func sampleReport() *Report {
	web := finding.ObjectID{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web", Target: "apps/web"}
	mk := func(f finding.Finding) finding.Finding { f.SetFingerprint(); return f }
	r := &Report{
		Version: "test",
		Findings: []finding.Finding{
			mk(finding.Finding{Source: "check", RuleID: "check/IMAGE_TAG", Level: finding.Error, Title: "Image tag pinned",
				Message: `container "web" uses the mutable tag "latest"`, Help: "Pin the image to a version or digest.",
				Object: web, Path: manifest.MustParsePath("spec.template.spec.containers[0].image"),
				Location: finding.Location{File: "apps/web/deployment.yaml", Line: 20, Column: 11, EndLine: 20, EndColumn: 30}}),
			mk(finding.Finding{Source: "check", RuleID: "check/PROBES", Level: finding.Warning, Message: "no readinessProbe\nsecond line",
				Object: web, Path: manifest.MustParsePath("spec.template.spec.containers[0]"),
				Location: finding.Location{File: "apps/web/deployment.yaml", Line: 18, Column: 11, EndLine: 18, EndColumn: 11}}),
			mk(finding.Finding{Source: "manifest", RuleID: "manifest/not-an-object", Level: finding.Note, Message: "skipped",
				Location: finding.Location{File: "apps/web/values.yaml", Line: 1, Column: 1}}),
			mk(finding.Finding{Source: "manifest", RuleID: "manifest/yaml-syntax", Level: finding.Error, Message: "YAML syntax error: x",
				Location: finding.Location{File: "apps/api/broken.yaml", Line: 4, Column: 3}, InputError: true}),
			mk(finding.Finding{Source: "check", RuleID: "check/PROBES", Level: finding.Warning, Message: "no livenessProbe",
				Object: web, Location: finding.Location{File: "apps/web/deployment.yaml", Line: 18, Column: 11},
				Suppressed: &finding.Suppression{Kind: "annotation", Reason: "probes come from the mesh"}}),
		},
		Rules:      []finding.Rule{{ID: "check/IMAGE_TAG", Name: "Image tag pinned", Short: "Image tag pinned", Level: finding.Error}},
		Objects:    []ObjectEntry{{ObjectID: web, File: "apps/web/deployment.yaml", Line: 1}},
		Targets:    []TargetEntry{{Name: "apps/web", Kind: "plain", Objects: 1}},
		DurationMS: 0,
		Sections:   map[string]any{"zeta": map[string]int{"b": 2, "a": 1}, "alpha": []string{"x"}},
	}
	finding.Sort(r.Findings)
	return r
}

func TestJSONGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := (JSON{}).Write(&buf, sampleReport()); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/report.json", buf.Bytes())
	var m map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	for _, k := range []string{"version", "findings", "summary", "objects", "duration_ms"} {
		if _, ok := m[k]; !ok {
			t.Errorf("contract key %q missing", k)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	r := sampleReport()
	b1, _ := MarshalJSON(r)
	back, err := ReadJSON(b1)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := MarshalJSON(back)
	if !bytes.Equal(b1, b2) {
		t.Errorf("a report read back does not write the same bytes:\n%s\n---\n%s", b1, b2)
	}
	if _, err := ReadJSON([]byte(`{"version": "1"}`)); err == nil {
		t.Error("a JSON object without the contract keys was accepted")
	}
}

func TestTextGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := (Text{}).Write(&buf, sampleReport()); err != nil {
		t.Fatal(err)
	}
	golden.Assert(t, "testdata/report.txt", buf.Bytes())
	buf.Reset()
	if err := (Text{Color: true}).Write(&buf, sampleReport()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte("\x1b[31m")) {
		t.Error("no colour with Color set")
	}
}

// TestTextNamesTheTargetOfRepeatedLines: a base shared by two overlays
// gives the same finding at the same line once per overlay; the two lines
// name their targets, and a line that is not repeated stays as it is.
// A base shared by two overlays gives one finding per overlay at the same
// line: the text report prints it once and names both targets.
func TestTextPrintsSharedLinesOnce(t *testing.T) {
	at := finding.Location{File: "base/deployment.yaml", Line: 10, Column: 11}
	mk := func(target, msg string) finding.Finding {
		f := finding.Finding{Source: "check", RuleID: "check/B10001", Level: finding.Warning, Message: msg, Location: at,
			Object: finding.ObjectID{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", Target: target}}
		f.SetFingerprint()
		return f
	}
	r := &Report{Findings: []finding.Finding{mk("overlays/dev", "no livenessProbe"), mk("overlays/prod", "no livenessProbe"), mk("overlays/prod", "no readinessProbe")}}
	finding.Sort(r.Findings)
	var buf bytes.Buffer
	if err := (Text{}).Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	want := "base/deployment.yaml:10:11: warning: no livenessProbe [check/B10001] (targets overlays/dev, overlays/prod)\n" +
		"base/deployment.yaml:10:11: warning: no readinessProbe [check/B10001]\n" +
		"\n3 findings: 0 errors, 3 warnings, 0 notes in 1 file"
	if !strings.HasPrefix(buf.String(), want) {
		t.Errorf("text:\n%s\nwant it to start with:\n%s", buf.String(), want)
	}
}

// Repository text in the text report is inert: no line starts like a
// workflow command (a runner reads them in a run: step's log, and ends a
// line at a bare CR too), and a terminal gets no escape sequence.
func TestTextPrintsRepositoryTextInert(t *testing.T) {
	mk := func(file, msg, target string) finding.Finding {
		f := finding.Finding{Source: "rule", RuleID: "rule/x", Level: finding.Error, Message: msg,
			Location: finding.Location{File: file, Line: 1, Column: 1}, Object: finding.ObjectID{Kind: "ConfigMap", Name: "c", Target: target}}
		f.SetFingerprint()
		return f
	}
	r := &Report{Findings: []finding.Finding{
		mk("::set-output name=approved::true.yaml", "m", "t"),
		mk("##[add-mask]x.yaml", "m", "t"),
		mk("a\r::add-mask::b.yaml", "red \x1b[31mtext\u009b\r\n::warning::x", "t"),
		mk("dup.yaml", "same", "one\n::set-output name=t::1"),
		mk("dup.yaml", "same", "two"),
	}}
	finding.Sort(r.Findings)
	var buf bytes.Buffer
	if err := (Text{}).Write(&buf, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, line := range regexp.MustCompile(`\r\n|\r|\n`).Split(out, -1) {
		if s := strings.TrimLeft(line, " \t"); strings.HasPrefix(s, "::") || strings.HasPrefix(s, "##[") {
			t.Errorf("a line starts a workflow command: %q", line)
		}
	}
	if strings.ContainsAny(out, "\x1b\r\u009b") {
		t.Errorf("control characters in the text report: %q", out)
	}
	for _, want := range []string{
		"./::set-output name=approved::true.yaml:1:1: error: m [rule/x]",
		"./##[add-mask]x.yaml:1:1: error: m [rule/x]",
		`a ::add-mask::b.yaml:1:1: error: red \x1b[31mtext\x9b ::warning::x [rule/x]`,
		"dup.yaml:1:1: error: same [rule/x] (targets one ::set-output name=t::1, two)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if got := InertLine("::x\n::y"); got != "./::x ::y" {
		t.Errorf("InertLine = %q", got)
	}
}

func TestSummary(t *testing.T) {
	s := sampleReport().Summarize()
	if s.Total != 5 || s.Levels["error"] != 2 || s.Levels["warning"] != 1 || s.Levels["note"] != 1 || s.Suppressed != 1 || s.InputErrors != 1 || s.Files != 3 {
		t.Errorf("summary = %+v", s)
	}
}

func TestParseOutputs(t *testing.T) {
	outs, err := ParseOutputs([]string{"text", "json=out.json"})
	if err != nil || len(outs) != 2 || outs[1] != (Output{Format: "json", File: "out.json"}) {
		t.Fatalf("%v %v", outs, err)
	}
	if _, err := ParseOutputs([]string{"xml"}); err == nil {
		t.Error("unknown format accepted")
	}
	if _, err := ParseOutputs([]string{"text", "json"}); err == nil {
		t.Error("two formats on stdout accepted")
	}
}

func TestWriteAllFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	var stdout bytes.Buffer
	if err := WriteAll([]Output{{Format: "json", File: out}, {Format: "text"}}, sampleReport(), &stdout); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(stdout.Bytes(), []byte("5 findings")) {
		t.Errorf("stdout = %s", stdout.String())
	}
	err := WriteAll([]Output{{Format: "json", File: filepath.Join(dir, "missing", "r.json")}}, sampleReport(), &stdout)
	if err == nil {
		t.Error("writing into a missing directory should fail")
	}
}
