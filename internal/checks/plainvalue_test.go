package checks

import (
	"testing"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// The checks that judge credential values and the redaction of what plumb
// prints agree on which values are no credentials: D10012 and G10002 use
// manifest's pattern as their plain_value_pattern.
func TestPlainValuePatternIsManifests(t *testing.T) {
	cat := defaultCatalog(t)
	for _, id := range []string{"D10012", "G10002"} {
		c := cat.Get(id)
		if c == nil {
			t.Fatalf("no check %s", id)
		}
		found := false
		for _, v := range c.Values {
			if v.Name == "plain_value_pattern" {
				found = true
				if v.Default != manifest.PlainValuePattern {
					t.Errorf("%s: plain_value_pattern is %q, want manifest.PlainValuePattern %q", id, v.Default, manifest.PlainValuePattern)
				}
			}
		}
		if !found {
			t.Errorf("%s has no plain_value_pattern", id)
		}
	}
}

// A YAML configuration file's local tags stay with their values: the check
// sees the reference "!env_var SONARR_API_KEY", not the bare name.
func TestParseYAMLFileKeepsLocalTags(t *testing.T) {
	v, err := parseYAMLFile("sonarr:\n  main:\n    base_url: http://sonarr:8989\n    api_key: !env_var SONARR_API_KEY\n    list: [!secret a, b]\n    plain: !!str 12\n")
	if err != nil {
		t.Fatal(err)
	}
	main := v.(map[string]any)["sonarr"].(map[string]any)["main"].(map[string]any)
	if got := main["api_key"]; got != "!env_var SONARR_API_KEY" {
		t.Errorf("api_key = %#v", got)
	}
	if got := main["list"].([]any); got[0] != "!secret a" || got[1] != "b" {
		t.Errorf("list = %#v", got)
	}
	if got := main["plain"]; got != "12" {
		t.Errorf("a standard tag is no reference: plain = %#v", got)
	}
}

// A text read of a file redacts a credential where it stands alone, never
// inside a longer word.
func TestRedactFileCredentialsWholeWords(t *testing.T) {
	raw := "user=administrator\npassword=admin\nhome=/home/admin\n"
	got := redactFileCredentials("app.properties", raw)
	want := "user=administrator\npassword=<redacted>\nhome=/home/<redacted>\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
