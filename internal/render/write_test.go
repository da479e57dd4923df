package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/golden"
)

// TestShowOrigin: every line that starts a field ends with the source line
// that supplied it.
func TestShowOrigin(t *testing.T) {
	res := renderRepo(t, "testdata/repo", fixtureOptions())
	var buf bytes.Buffer
	must(t, Write(&buf, res.Targets, WriteOptions{ShowOrigin: true}))
	golden.AssertString(t, "testdata/golden/repo-show-origin.yaml", buf.String())
	// Without the comments, the stream is the plain render.
	var plain bytes.Buffer
	must(t, Write(&plain, res.Targets, WriteOptions{}))
	var stripped []string
	for _, l := range strings.SplitAfter(buf.String(), "\n") {
		if i := strings.LastIndex(l, "  # "); i >= 0 && !strings.HasPrefix(l, "#") {
			l = l[:i] + "\n"
		}
		stripped = append(stripped, l)
	}
	if strings.Join(stripped, "") != plain.String() {
		t.Error("--show-origin changes more than comments")
	}
}

// TestSecretsRedacted: generated and plain Secrets print no value, with or
// without --show-origin, and the rest of the object is as krusty prints it.
func TestSecretsRedacted(t *testing.T) {
	res := renderRepo(t, "testdata/generators", Options{})
	for _, opts := range []WriteOptions{{}, {ShowOrigin: true}} {
		var buf bytes.Buffer
		must(t, Write(&buf, res.Targets, opts))
		out := buf.String()
		for _, secret := range []string{"s3cr3t", "czNjcjN0"} { // the value, and its base64
			if strings.Contains(out, secret) {
				t.Errorf("secret value printed:\n%s", out)
			}
		}
		if !strings.Contains(out, "password: <redacted>") {
			t.Errorf("no redacted key:\n%s", out)
		}
	}
	for _, p := range res.Problems {
		if strings.Contains(p.Message, "s3cr3t") {
			t.Errorf("secret in problem %s", p.Message)
		}
	}
}
