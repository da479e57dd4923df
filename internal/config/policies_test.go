package config

import (
	"path/filepath"
	"testing"
)

func TestPoliciesSettings(t *testing.T) {
	cwd := t.TempDir()
	cfg, err := resolveText(t, cwd, "policies: [platform/policies]\n", "--policies", "extra.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Policies
	if len(p) != 2 || p[0].Path != filepath.Join(cwd, "platform/policies") || p[0].Display != "platform/policies" || p[0].Workflow ||
		p[1].Display != "extra.yaml" || !p[1].Workflow {
		t.Errorf("policies: %+v", p)
	}
}
