package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
	"github.com/plumb-ci/plumb/internal/report/sarifcheck"
)

// A finding's fix is its SARIF result's fixes: the edited lines replaced,
// the region ending before the last line's break and the inserted text
// without it; the file passes the SARIF Multitool's GitHub and SARIF
// rules.
func TestSARIFFixes(t *testing.T) {
	f := finding.Finding{Source: "check", RuleID: "check/D10001", Level: finding.Error, Message: "container web may run as root",
		Object:   finding.ObjectID{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "shop", Name: "web"},
		Path:     manifest.MustParsePath("spec.template.spec.containers[0]"),
		Location: finding.Location{File: "apps/web.yaml", Line: 10, Column: 11},
		Fix: &finding.Fix{Description: "set securityContext.runAsNonRoot: true", Edits: []finding.Edit{{
			File: "apps/web.yaml", StartLine: 10, EndLine: 10, Old: "        - name: wéb\n",
			New: "        - name: wéb\n          securityContext:\n            runAsNonRoot: true\n"}}}}
	f.SetFingerprint()
	b := sarifOf(t, SARIF{}, &Report{Version: "test", Findings: []finding.Finding{f}})
	var log struct {
		Runs []struct {
			Results []struct {
				Fixes []struct {
					Description     struct{ Text string }
					ArtifactChanges []struct {
						ArtifactLocation struct{ URI string }
						Replacements     []struct {
							DeletedRegion   struct{ StartLine, StartColumn, EndLine, EndColumn int }
							InsertedContent struct{ Text string }
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatal(err)
	}
	fixes := log.Runs[0].Results[0].Fixes
	if len(fixes) != 1 || fixes[0].Description.Text != "set securityContext.runAsNonRoot: true." || len(fixes[0].ArtifactChanges) != 1 {
		t.Fatalf("fixes %+v", fixes)
	}
	ch := fixes[0].ArtifactChanges[0]
	r := ch.Replacements[0]
	if ch.ArtifactLocation.URI != "apps/web.yaml" || r.DeletedRegion.StartLine != 10 || r.DeletedRegion.StartColumn != 1 ||
		r.DeletedRegion.EndLine != 10 || r.DeletedRegion.EndColumn != 20 ||
		r.InsertedContent.Text != "        - name: wéb\n          securityContext:\n            runAsNonRoot: true" {
		t.Errorf("change %+v", ch)
	}
	if errs := sarifcheck.Validate(b); len(errs) > 0 {
		t.Errorf("SARIF: %v", errs)
	}
	p := filepath.Join(t.TempDir(), "fix.sarif")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	sarifcheck.Multitool(t, p)
}
