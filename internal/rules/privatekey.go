package rules

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// privateKeyHeader matches the PEM and OpenSSH armour of private keys.
var privateKeyHeader = regexp.MustCompile(`-----BEGIN ((RSA|DSA|EC|OPENSSH|ENCRYPTED|ANY) )?PRIVATE KEY-----|-----BEGIN PGP PRIVATE KEY BLOCK-----`)

// base64PEM is how "-----BEGIN" starts once base64-encoded (Secret data,
// ConfigMap binaryData).
const base64PEM = "LS0tLS1CRUdJTi"

// privateKeyPaths returns the field paths of a document whose string values
// hold a private key, in plain text or base64-encoded. The paths (never the
// keys) are what inventory[source][private_keys] shows.
func privateKeyPaths(v any) []string {
	found := privateKeyFields(v)
	out := make([]string, len(found))
	for i, p := range found {
		out[i] = p.String()
	}
	return out
}

// privateKeyFields returns the paths of the string values of v that hold a
// private key, sorted by their printed form.
func privateKeyFields(v any) []manifest.Path {
	var out []manifest.Path
	// The path is a stack reused along the walk; it is copied only for a
	// match, which keeps the walk of every document cheap.
	stack := make(manifest.Path, 0, 16)
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				stack = append(stack, manifest.Key(k))
				walk(e)
				stack = stack[:len(stack)-1]
			}
		case []any:
			for i, e := range t {
				stack = append(stack, manifest.Index(i))
				walk(e)
				stack = stack[:len(stack)-1]
			}
		case string:
			if holdsPrivateKey(t) {
				out = append(out, slices.Clone(stack))
			}
		}
	}
	walk(v)
	slices.SortFunc(out, func(a, b manifest.Path) int { return strings.Compare(a.String(), b.String()) })
	return out
}

func holdsPrivateKey(s string) bool {
	if strings.Contains(s, "PRIVATE KEY") && privateKeyHeader.MatchString(s) {
		return hasKeyBody(s)
	}
	trimmed := strings.TrimSpace(s)
	if !strings.HasPrefix(trimmed, base64PEM) {
		return false
	}
	decoded, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(trimmed), ""))
	return err == nil && privateKeyHeader.Match(decoded) && hasKeyBody(string(decoded))
}

// minKeyBody is the fewest base64 characters a private key's body can have:
// the smallest real keys (an Ed25519 key in OpenSSH's format, an EC P-256
// key) take well over 200.
const minKeyBody = 100

// hasKeyBody reports whether one of the armoured blocks of s holds what
// can be a key: only base64 between the BEGIN and END lines (armour
// headers such as Proc-Type: aside), and enough of it. Documentation and
// examples write placeholders there — "...", "REDACTED", "<your key>", a
// short made-up body — which are not findings.
func hasKeyBody(s string) bool {
	for _, loc := range privateKeyHeader.FindAllStringIndex(s, -1) {
		body := s[loc[1]:]
		if end := strings.Index(body, "-----END"); end >= 0 {
			body = body[:end]
		}
		n, clean := 0, true
		for _, line := range strings.Split(body, "\n") {
			line = strings.TrimSpace(line)
			if strings.Contains(line, ":") {
				continue // an armour header (Proc-Type:, DEK-Info:, Version:)
			}
			for _, r := range line {
				switch {
				case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '+', r == '/', r == '=':
					n++
				case r == ' ' || r == '\t' || r == '\r':
				default:
					clean = false
				}
			}
		}
		if clean && n >= minKeyBody {
			return true
		}
	}
	return false
}
