package render

import (
	"strings"
	"testing"
)

func TestInjectOrigin(t *testing.T) {
	for in, want := range map[string]struct {
		out   string
		added bool
	}{
		"resources: [a.yaml]\n":                                        {"buildMetadata: [originAnnotations]", true},
		"resources: [a.yaml]\nbuildMetadata: [managedByLabel]\n":       {"[managedByLabel, originAnnotations]", true},
		"resources: [a.yaml]\nbuildMetadata:\n  - originAnnotations\n": {"- originAnnotations", false},
	} {
		out, added, err := injectOrigin([]byte(in))
		if err != nil || added != want.added || !strings.Contains(string(out), want.out) || !strings.Contains(string(out), "a.yaml") {
			t.Errorf("%q: %q added=%v err=%v", in, out, added, err)
		}
	}
	if _, _, err := injectOrigin([]byte("a: [")); err == nil {
		t.Error("broken YAML accepted")
	}
}

func TestOriginFile(t *testing.T) {
	for in, want := range map[[2]string]string{
		{"overlays/dev", "../../base/deployment.yaml"}: "base/deployment.yaml",
		{".", "cm.yaml"}:            "cm.yaml",
		{"a", "../../outside.yaml"}: "",
		{"a", ""}:                   "",
	} {
		if got := originFile(in[0], in[1]); got != want {
			t.Errorf("%v: %q, want %q", in, got, want)
		}
	}
}
