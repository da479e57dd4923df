package fix

import (
	"strings"
	"testing"

	"github.com/plumb-ci/plumb/internal/diff"
)

// A diff of a fixed file shows no credential in its context lines: not
// the environment variable above the edited line, not a Secret in the
// same file, not a token in a comment.
func TestMaskSecretLines(t *testing.T) {
	before := "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  password: hunter2\n  key: |\n    line-one\n    line-two\n---\n" +
		"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      containers:\n        - name: c\n" +
		"          env:\n            - name: MODE\n              value: fast\n            - name: DB_PASSWORD\n              value: \"s3cr3t\"\n" +
		"          # ghp_abcdefghijklmnopqrstuvwxyz0123456789\n          image: r.io/i:1\n"
	after := strings.Replace(before, "          image: r.io/i:1\n", "          image: r.io/i:1\n          securityContext:\n            runAsNonRoot: true\n", 1)
	d := diff.Unified("a/x.yaml", "b/x.yaml", MaskSecretLines("x.yaml", before), MaskSecretLines("x.yaml", after))
	for _, secret := range []string{"hunter2", "line-one", "line-two", "s3cr3t", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"} {
		if strings.Contains(d, secret) {
			t.Errorf("the diff shows %q:\n%s", secret, d)
		}
	}
	for _, want := range []string{"+          securityContext:", "              value: <redacted>"} {
		if !strings.Contains(d, want) {
			t.Errorf("the diff lacks %q:\n%s", want, d)
		}
	}
	if got := MaskSecretLines("y.yaml", "a: [unclosed\n"); got != "a: [unclosed\n" {
		t.Errorf("a file that does not parse: %q", got)
	}
}
