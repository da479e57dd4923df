package compare

import (
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// A reference template reads the input object whole, secret values
// included: {{ .stringData.token }} in a label, or fail with a credential
// variable's value, would print the input's secret in the diff or the
// error. Values read from the input's secret fields stay masked in
// whatever the template produces: every field of the rendered reference
// that holds one of them (as written, or a Secret's data base64-decoded)
// is masked like the input's own secret fields, and an error the template
// raises has them replaced. A template that transforms a value (b64enc,
// upper, a substring) produces text plumb cannot recognise; reference
// templates come from the reference's author, not from the repository
// under review, and a reference that means to print secrets is out of
// scope.

// minInputSecretLen is the shortest input secret followed into a
// template's output (shorter values occur everywhere).
const minInputSecretLen = 4

// inputSecretValues lists the values of an input object plumb never
// prints, longest first.
func inputSecretValues(obj *manifest.Object) []string {
	seen := map[string]bool{}
	add := func(s string) {
		if len(s) >= minInputSecretLen && s != manifest.Redacted {
			seen[s] = true
		}
	}
	for _, s := range manifest.ObjectSecretValues(obj) {
		add(s)
		add(strings.TrimSpace(s))
	}
	if manifest.IsSecret(obj.Content) {
		for _, f := range []string{"data", "binaryData"} {
			m, _ := obj.Content[f].(map[string]any)
			for _, v := range m {
				if s, ok := v.(string); ok {
					if b, err := base64.StdEncoding.DecodeString(s); err == nil && utf8.Valid(b) {
						add(string(b))
						add(strings.TrimSpace(string(b)))
					}
				}
			}
		}
	}
	out := slices.Collect(maps.Keys(seen))
	slices.SortFunc(out, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return out
}

// fieldsHoldingInputSecrets returns the fields of a rendered reference
// whose string value holds a secret value of the input.
func fieldsHoldingInputSecrets(rendered map[string]any, obj *manifest.Object) []manifest.Path {
	values := inputSecretValues(obj)
	if len(values) == 0 {
		return nil
	}
	var out []manifest.Path
	var walk func(v any, p manifest.Path)
	walk = func(v any, p manifest.Path) {
		switch t := v.(type) {
		case string:
			for _, s := range values {
				if strings.Contains(t, s) {
					out = append(out, slices.Clone(p))
					return
				}
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(t)) {
				walk(t[k], append(p, manifest.Key(k)))
			}
		case []any:
			for i, e := range t {
				walk(e, append(p, manifest.Index(i)))
			}
		}
	}
	walk(rendered, nil)
	return out
}

// redactedError is a template error with the input's secrets replaced.
type redactedError struct {
	msg   string
	inner error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.inner }

// redactInputSecrets returns err with the input's secret values in its
// text replaced by the mask; err itself when it holds none.
func redactInputSecrets(err error, obj *manifest.Object) error {
	values := inputSecretValues(obj)
	msg := err.Error()
	changed := msg
	for _, s := range values {
		changed = strings.ReplaceAll(changed, s, maskSame)
	}
	if changed == msg {
		return err
	}
	var ny *notYAMLError
	if errors.As(err, &ny) {
		// Its output is never shown for an input with secrets.
		return fmt.Errorf("%s", changed)
	}
	return &redactedError{msg: changed, inner: err}
}
