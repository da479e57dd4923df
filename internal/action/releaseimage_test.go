package action

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestReleasePinsTheActionToItsImage runs the script the release workflow
// runs in the commit it tags: action.yml must then pull the release's image
// instead of building the Dockerfile, and change in nothing else. (main's
// action.yml builds from source, for the self-test: see
// TestActionYAMLMatchesTheCode.)
func TestReleasePinsTheActionToItsImage(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	orig, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "action.yml")
	if err := os.WriteFile(file, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	pin := func(tag string) (string, error) {
		out, err := exec.Command("bash", "../../.ci/pin-action-image", tag, file).CombinedOutput()
		return string(out), err
	}
	for range 2 { // a rerun of the release changes nothing more
		if out, err := pin("v1.4.0"); err != nil {
			t.Fatalf("pin-action-image: %v\n%s", err, out)
		}
	}
	pinned, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var before, after map[string]any
	if err := yaml.Unmarshal(orig, &before); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(pinned, &after); err != nil {
		t.Fatalf("the pinned action.yml is not YAML: %v", err)
	}
	runs := after["runs"].(map[string]any)
	if runs["image"] != "docker://ghcr.io/plumb-ci/plumb:v1.4.0" {
		t.Errorf("runs.image = %v", runs["image"])
	}
	before["runs"].(map[string]any)["image"] = runs["image"]
	b1, _ := yaml.Marshal(before)
	b2, _ := yaml.Marshal(after)
	if !bytes.Equal(b1, b2) {
		t.Errorf("the script changed more than runs.image:\n%s", pinned)
	}

	if out, err := pin("1.4"); err == nil {
		t.Errorf("a tag that is not vX.Y.Z was accepted: %s", out)
	}
}
