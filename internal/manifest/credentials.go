package manifest

import (
	"regexp"
	"strings"
)

// Credentials outside Secrets. Besides a Secret's values, plumb never
// prints (SecretPaths):
//
//   - a value whose key or variable name names a credential
//     (IsCredentialName): DB_PASSWORD, db.password, apiKey, PGPASSWORD,
//     MYSQL_PWD, AWS_SECRET_ACCESS_KEY, GITHUB_PAT, SSH_KEY ...;
//   - an environment variable's or ConfigMap value's URL with a password
//     in its userinfo (DATABASE_URL: postgres://app:PASSWORD@db/app),
//     unless the password is a $(VAR) or ${VAR} reference;
//   - inside a ConfigMap value that holds a file or a line of settings
//     (app.properties, config.json, an .env file, JAVA_OPTS), the value of
//     every setting whose key names a credential (db.password=...,
//     "password": "...", -Dapi.token=...) and every URL password: the
//     rest of the text stays readable (RedactCredentialText).

// urlPasswordRE finds the password of a URL's userinfo
// (scheme://user:password@host); group 1 is what comes before it.
var urlPasswordRE = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.\-]*://[^\s/@:"']*:)([^\s/@"']+)@`)

// settingRE finds key=value and key: value settings in text: a properties
// or .env file, YAML, a line of options (-Dkey=value, a=1;b=2, a URL
// query). Group 1 is the key, 3 the value.
var settingRE = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_.\-]*)(\s*[=:][ \t]*)("(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s"',;&}\]]+)`)

// jsonSettingRE finds "key": "value" pairs (JSON, and YAML flow style).
var jsonSettingRE = regexp.MustCompile(`"((?:[^"\\\n]|\\.)*)"(\s*:\s*)("(?:[^"\\\n]|\\.)*")`)

// isReference reports whether a value only refers to a variable ($(VAR),
// ${VAR}, $VAR): no credential in itself.
func isReference(v string) bool {
	v = strings.Trim(v, `"'`)
	return strings.HasPrefix(v, "$(") || strings.HasPrefix(v, "${") || strings.HasPrefix(v, "$") && len(v) > 1 && !strings.ContainsAny(v[1:], "$")
}

// HasURLPassword reports whether s holds a URL with a literal password.
func HasURLPassword(s string) bool {
	for _, m := range urlPasswordRE.FindAllStringSubmatch(s, -1) {
		if !isReference(m[2]) {
			return true
		}
	}
	return false
}

// RedactCredentialText returns text with the values of the credential
// settings it holds and its credential shapes (RedactCredentialShapes: URL
// passwords, tokens, ...) replaced by Redacted, and whether it found any.
func RedactCredentialText(text string) (string, bool) {
	out, settings := redactSettings(text)
	out, shapes := RedactCredentialShapes(out)
	return out, settings || shapes
}

// redactSettings redacts the values of the credential settings in text.
func redactSettings(text string) (string, bool) {
	if !strings.ContainsAny(text, "=:") {
		return text, false
	}
	changed := false
	redact := func(re *regexp.Regexp, s string) string {
		return re.ReplaceAllStringFunc(s, func(m string) string {
			g := re.FindStringSubmatch(m)
			value := g[3]
			if !IsCredentialName(g[1]) || strings.Trim(value, `"'`) == "" || isReference(value) || value == Redacted {
				return m
			}
			changed = true
			quote := ""
			if value[0] == '"' || value[0] == '\'' {
				quote = value[:1]
			}
			return m[:len(m)-len(value)] + quote + Redacted + quote
		})
	}
	out := redact(jsonSettingRE, text)
	out = redact(settingRE, out)
	return out, changed
}

// credentialValues returns the values RedactCredentialText removes from
// text.
func credentialValues(text string) []string {
	var out []string
	for _, re := range []*regexp.Regexp{jsonSettingRE, settingRE} {
		for _, g := range re.FindAllStringSubmatch(text, -1) {
			if v := strings.Trim(g[3], `"'`); IsCredentialName(g[1]) && v != "" && !isReference(g[3]) {
				out = append(out, v)
			}
		}
	}
	return append(out, credentialShapeValues(text)...)
}

// SecretValues lists the strings of an object that plumb never prints:
// the string values at its SecretPaths, and the credentials inside the
// texts among them. A redactor removes them from free text (a message
// that quotes a field).
func SecretValues(content map[string]any) []string {
	return secretValuesAt(content, SecretPaths(content))
}

// ObjectSecretValues is SecretValues of an object, its SecretFields
// included.
func ObjectSecretValues(o *Object) []string {
	return secretValuesAt(o.Content, ObjectSecretPaths(o))
}

// SecretValuesAt is SecretValues of content whose SecretPaths (or
// ObjectSecretPaths) are known.
func SecretValuesAt(content map[string]any, paths []Path) []string {
	return secretValuesAt(content, paths)
}

func secretValuesAt(content map[string]any, paths []Path) []string {
	var out []string
	for _, p := range paths {
		v, _ := Lookup(content, p)
		s, ok := v.(string)
		if !ok {
			continue
		}
		out = append(out, s)
		out = append(out, credentialValues(s)...)
	}
	return out
}
