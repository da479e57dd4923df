package compare

import (
	"encoding/base64"
	"errors"
	"maps"
	"regexp"
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
// prints that are long enough to follow, longest first.
func inputSecretValues(obj *manifest.Object) []string {
	return secretValuesOf(obj, minInputSecretLen)
}

// secretValuesOf lists the input's secret values of at least minLen
// bytes, longest first.
func secretValuesOf(obj *manifest.Object, minLen int) []string {
	seen := map[string]bool{}
	add := func(s string) {
		if len(s) >= minLen && s != manifest.Redacted {
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

// redactInputSecrets returns err without what could show the input's
// secret values: for an input that holds any (of any length), the message
// of a function the template called (fail, required, b64dec ...) and the
// value a range could not iterate over are left out — a mask in their
// place would still tell that, and where, a message held one — and the
// values themselves are replaced by the mask anywhere else (a reference
// whose own text happens to hold one). err itself when nothing changes.
func redactInputSecrets(err error, obj *manifest.Object) error {
	if len(secretValuesOf(obj, 1)) == 0 {
		return err
	}
	redact := func(msg string) string {
		msg = withoutValueText(msg)
		for _, s := range inputSecretValues(obj) {
			msg = strings.ReplaceAll(msg, s, maskSame)
		}
		return msg
	}
	var ny *notYAMLError
	if errors.As(err, &ny) {
		// Its output is never shown for an input with secrets, but still
		// places the error at its template line.
		inner := redact(ny.err.Error())
		if inner == ny.err.Error() {
			return err
		}
		return &notYAMLError{path: ny.path, err: &redactedError{msg: inner, inner: ny.err}, Text: ny.Text}
	}
	msg := err.Error()
	if changed := redact(msg); changed != msg {
		return &redactedError{msg: changed, inner: err}
	}
	return err
}

// valueTextRE finds where text/template's errors go on with text a value
// can be in: a called function's own error, and what a range was given.
var valueTextRE = regexp.MustCompile(`(error calling [\pL\pN_]+: |range can't iterate over )`)

// withoutValueText cuts an execution error's message where a value's text
// could begin.
func withoutValueText(msg string) string {
	m := valueTextRE.FindStringSubmatchIndex(msg)
	if m == nil {
		return msg
	}
	if strings.HasPrefix(msg[m[2]:], "range") {
		return msg[:m[2]] + "range can't iterate over the value it was given (not shown, as the input holds secret values)"
	}
	return msg[:m[3]] + "its message is not shown, as the input holds secret values"
}
