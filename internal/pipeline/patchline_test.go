package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/config"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// TestFindingsAtThePatchLine is issue 34's kustomize pattern: an overlay
// whose strategic merge patch sets privileged: true and runAsUser: 0,
// deletes readinessProbe and nulls limits, and whose JSON 6902 patch adds
// SYS_ADMIN and removes a container's required name. Each finding is at
// the patch line that caused it; the findings about fields no patch
// touched stay at the base container.
func TestFindingsAtThePatchLine(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("testdata", "patchline"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := configFor(t, root, nil, nil)
	cfg.FailOn = config.FailOnNever
	cfg.Reproducible = true
	res, err := Check(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range res.Report.Findings {
		if strings.Contains(f.Message, "container web") || f.RuleID == "schema/required" {
			got[fmt.Sprintf("%s %s", manifest.FormatLocation(manifest.Location{File: f.Location.File, Line: f.Location.Line}), f.RuleID)] = true
		}
	}
	for _, want := range []string{
		"overlay/security.yaml:11 check/D10003", // privileged: true
		"overlay/security.yaml:12 check/D10001", // runAsUser: 0
		"overlay/ops.yaml:3 check/D10008",       // add SYS_ADMIN
		"overlay/security.yaml:16 check/A10003", // limits: null
		"overlay/ops.yaml:4 schema/required",    // remove .../1/name
		"overlay/security.yaml:13 check/B10002", // readinessProbe: {$patch: delete}
		// No patch touched these fields: the base container.
		"base/deployment.yaml:15 check/B10001", // no livenessProbe
		"base/deployment.yaml:15 check/D10002", // no readOnlyRootFilesystem
		"base/deployment.yaml:15 check/D10011", // no seccompProfile
	} {
		if !got[want] {
			t.Errorf("no finding %s; got %v", want, keys(got))
		}
	}
	if len(got) != 9 {
		t.Errorf("%d findings, want 9: %v", len(got), keys(got))
	}
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
