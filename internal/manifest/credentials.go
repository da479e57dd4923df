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

// PlainValuePattern matches the values that a credential's name may hold
// without being a credential (IsPlainValue). The default catalog's checks
// D10012 and G10002 use the same pattern (their plain_value_pattern), so
// what they report and what plumb redacts agree.
const PlainValuePattern = `^\s*(?:(?i:true|false|yes|no|on|off|0|1)|(?:~|\.\.?)/[\w.@,~/-]+|/[a-z0-9_.-]{2,}(?:/[\w.@,~-]+)+/?|file://\S+|\$\(.*|\$\{.*|\$[A-Za-z_][A-Za-z0-9_]*|\{\{.*\}\}|![A-Za-z][\w.-]*(?:\s+\S.*)?)\s*$`

var plainValueRE = regexp.MustCompile(PlainValuePattern)

// IsPlainValue reports whether a value held under a credential's name
// (DB_PASSWORD, api_key, ...) is no credential itself:
//
//   - a boolean flag: MYSQL_ALLOW_EMPTY_PASSWORD: "true",
//     MYSQL_RANDOM_ROOT_PASSWORD: "yes" (true, false, yes, no, on, off, 0,
//     1, in any case);
//   - a file path, where the credential is read from: /run/secrets/db,
//     ./secrets/token, ~/.pgpass, file:///etc/app/key (an absolute path
//     has two segments or more and a lower-case first one, so that
//     base64 text that starts with a slash stays a credential);
//   - a reference resolved elsewhere: $(VAR) and ${VAR} (Kubernetes and
//     shell expansion), $VAR, {{ .Values.x }}, and a YAML local tag with
//     its argument (!env_var SONARR_API_KEY, !secret db_password, !ENV).
//
// Quotes around the value are ignored. A blank value is no credential
// either (see blank), but is not plain: checks test that it is empty.
func IsPlainValue(v string) bool {
	v = strings.Trim(v, `"'`)
	return v != "" && plainValueRE.MatchString(v)
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

// redactSettings redacts the values of the credential settings in text,
// line by line: a commented-out line (#, //, ;) is left as written, since
// it sets nothing.
func redactSettings(text string) (string, bool) {
	if !strings.ContainsAny(text, "=:") {
		return text, false
	}
	changed := false
	redact := func(re *regexp.Regexp, s string) string {
		return re.ReplaceAllStringFunc(s, func(m string) string {
			g := re.FindStringSubmatch(m)
			value := g[3]
			if !isCredentialSetting(g[1], value) {
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
	lines := strings.SplitAfter(text, "\n")
	for i, line := range lines {
		if isCommentLine(line) || !strings.ContainsAny(line, "=:") {
			continue
		}
		lines[i] = redact(settingRE, redact(jsonSettingRE, line))
	}
	if !changed {
		return text, false
	}
	return strings.Join(lines, ""), true
}

// isCredentialSetting reports whether a setting's value is a credential:
// its key names one and the value is neither blank, plain (IsPlainValue)
// nor already redacted.
func isCredentialSetting(key, value string) bool {
	v := strings.Trim(value, `"'`)
	return IsCredentialName(key) && v != "" && v != Redacted && !isReference(value) && !IsPlainValue(value)
}

// isCommentLine reports whether a line of a configuration file is a
// comment in the syntaxes settings are found in: # (YAML, properties, .env,
// shell, ini), ; (ini) and // (JSON5, HCL).
func isCommentLine(line string) bool {
	t := strings.TrimLeft(line, " \t")
	return strings.HasPrefix(t, "#") || strings.HasPrefix(t, ";") || strings.HasPrefix(t, "//")
}

// credentialValues returns the values RedactCredentialText removes from
// text.
func credentialValues(text string) []string {
	var out []string
	for _, line := range strings.SplitAfter(text, "\n") {
		if isCommentLine(line) || !strings.ContainsAny(line, "=:") {
			continue
		}
		for _, re := range []*regexp.Regexp{jsonSettingRE, settingRE} {
			for _, g := range re.FindAllStringSubmatch(line, -1) {
				if isCredentialSetting(g[1], g[3]) {
					out = append(out, strings.Trim(g[3], `"'`))
				}
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
