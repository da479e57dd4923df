package manifest

import (
	"regexp"
	"slices"
	"strings"
)

// Credential-shaped text. Whatever its name or place, a string of any
// object that holds text shaped like a credential has that text redacted
// in place, the rest kept readable (SecretPaths lists the string, the
// masks print it redacted), as a ConfigMap file's credential settings
// are:
//
//   - GitHub tokens: ghp_, gho_, ghu_, ghs_, ghr_ and github_pat_ followed
//     by at least 20 characters of the token's alphabet;
//   - the value of an Authorization header: "authorization", ":" or "="
//     (quotes allowed around the name and the value, as in JSON), then
//     basic, bearer or token and a credential of at least 8 characters
//     that are not all lower-case letters (any case: git writes
//     "extraheader = AUTHORIZATION: basic ..." into .git/config); a
//     reference ($TOKEN, ${TOKEN}) or a word is not one;
//   - AWS access key ids: AKIA or ASIA and 16 capitals or digits;
//   - the body of a PEM private key, from -----BEGIN ... PRIVATE KEY-----
//     to its END line (or the end of the text);
//   - the password of a URL's userinfo (scheme://user:PASSWORD@host),
//     unless it is a $(VAR) or ${VAR} reference.
//
// Certificates, public keys, image digests, UUIDs and base64 data are
// none of these.

var (
	githubTokenRE = regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`)
	// authHeaderRE's group 1 is what stays: the header's name and scheme.
	authHeaderRE = regexp.MustCompile(`(?i)(\bauthorization["']?[ \t]*[:=][ \t]*["']?(?:basic|bearer|token)[ \t]+)([A-Za-z0-9+/._~\-]{8,}=*)`)
	awsKeyRE     = regexp.MustCompile(`\b(?:AKIA|ASIA)[A-Z0-9]{16}\b`)
	// pemKeyRE's group 1 names the key's kind (RSA, EC, OPENSSH, ...).
	pemKeyRE = regexp.MustCompile(`-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----(?s:.*?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\z)`)
)

// credentialLike reports whether the word after an Authorization scheme
// is a credential rather than a word ("token required"): it has a
// character other than a lower-case letter, as base64, JWTs and hex
// tokens do.
func credentialLike(w string) bool {
	return strings.IndexFunc(w, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0
}

// minShape is the length of the shortest credential shape: a URL with a
// password, a://b:c@d.
const minShape = 9

// shapeBytes are bytes every credential shape holds one of: '_' (GitHub
// tokens), '@' (URLs with a password), 'z' or 'Z' (authorization), 'I'
// (AKIA, ASIA) and 'V' (PRIVATE KEY). Most strings have none, and one
// pass over them is cheaper than looking for each shape.
var shapeBytes = [256]bool{'_': true, '@': true, 'z': true, 'Z': true, 'I': true, 'V': true}

// mayHoldShape reports, cheaply, whether s may hold a credential shape:
// it runs on every string of every object, and most hold none.
func mayHoldShape(s string) bool {
	if len(s) < minShape {
		return false
	}
	i := 0
	for i < len(s) && !shapeBytes[s[i]] {
		i++
	}
	if i == len(s) {
		return false
	}
	return strings.IndexByte(s, '_') >= 0 && strings.Contains(s, "gh") ||
		strings.Contains(s, "://") && strings.IndexByte(s, '@') >= 0 ||
		strings.Contains(s, "uthorization") || strings.Contains(s, "UTHORIZATION") ||
		strings.Contains(s, "AKIA") || strings.Contains(s, "ASIA") ||
		strings.Contains(s, "PRIVATE KEY")
}

// RedactCredentialShapes returns text with its credential-shaped parts
// replaced by Redacted, and whether it found any.
func RedactCredentialShapes(text string) (string, bool) {
	if !mayHoldShape(text) {
		return text, false
	}
	changed := false
	out := pemKeyRE.ReplaceAllStringFunc(text, func(m string) string {
		changed = true
		g := pemKeyRE.FindStringSubmatch(m)
		end := ""
		if strings.Contains(m, "-----END ") {
			end = "-----END " + g[1] + "PRIVATE KEY-----"
		}
		return "-----BEGIN " + g[1] + "PRIVATE KEY-----" + Redacted + end
	})
	out = authHeaderRE.ReplaceAllStringFunc(out, func(m string) string {
		g := authHeaderRE.FindStringSubmatch(m)
		if !credentialLike(g[2]) {
			return m
		}
		changed = true
		return g[1] + Redacted
	})
	for _, re := range []*regexp.Regexp{githubTokenRE, awsKeyRE} {
		out = re.ReplaceAllStringFunc(out, func(string) string {
			changed = true
			return Redacted
		})
	}
	out = urlPasswordRE.ReplaceAllStringFunc(out, func(m string) string {
		g := urlPasswordRE.FindStringSubmatch(m)
		if isReference(g[2]) || g[2] == Redacted {
			return m
		}
		changed = true
		return g[1] + Redacted + "@"
	})
	return out, changed
}

// credentialShapeValues returns the parts of text RedactCredentialShapes
// removes.
func credentialShapeValues(text string) []string {
	if !mayHoldShape(text) {
		return nil
	}
	out := pemKeyRE.FindAllString(text, -1)
	for _, g := range authHeaderRE.FindAllStringSubmatch(text, -1) {
		if credentialLike(g[2]) {
			out = append(out, g[2])
		}
	}
	out = append(out, githubTokenRE.FindAllString(text, -1)...)
	out = append(out, awsKeyRE.FindAllString(text, -1)...)
	for _, g := range urlPasswordRE.FindAllStringSubmatch(text, -1) {
		if !isReference(g[2]) {
			out = append(out, g[2])
		}
	}
	return out
}

// shapeTexts returns the candidates (strings mayHoldShape let through,
// with their paths) that hold credential shapes, with their redacted
// text, in path order. Values masked otherwise are left out: a Secret's,
// a ConfigMap's data (configMapTexts reads them), the paths in whole, and
// the last-applied annotation (masked whole when anything is found).
func shapeTexts(content map[string]any, whole []Path, candidates []textSecret) []textSecret {
	var out []textSecret
	for _, c := range candidates {
		top := c.path[0].Key
		switch {
		case IsSecret(content) && slices.Contains(secretValueFields, top),
			isConfigMap(content) && (top == "data" || top == "binaryData"),
			len(c.path) == 3 && top == "metadata" && c.path[1].Key == "annotations" && c.path[2].Key == LastApplied,
			slices.ContainsFunc(whole, c.path.HasPrefix):
			continue
		}
		if red, changed := RedactCredentialShapes(c.text); changed {
			out = append(out, textSecret{path: c.path, text: red})
		}
	}
	slices.SortFunc(out, func(a, b textSecret) int { return strings.Compare(a.path.String(), b.path.String()) })
	return out
}
