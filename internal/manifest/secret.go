package manifest

import (
	"slices"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// Redacted replaces every Secret value plumb prints.
const Redacted = "<redacted>"

// LastApplied is the annotation `kubectl apply` writes and `kubectl get -o
// yaml` prints: it repeats the whole object as JSON, values included.
const LastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// IsSecret reports whether content is a core/v1 Secret.
func IsSecret(content map[string]any) bool {
	kind, _ := content["kind"].(string)
	api, _ := content["apiVersion"].(string)
	return kind == "Secret" && (api == "v1" || api == "")
}

// isConfigMap reports whether content is a core/v1 ConfigMap.
func isConfigMap(content map[string]any) bool {
	kind, _ := content["kind"].(string)
	api, _ := content["apiVersion"].(string)
	return kind == "ConfigMap" && (api == "v1" || api == "")
}

// secretValueFields are the fields of a Secret whose values are secret.
var secretValueFields = []string{"data", "stringData", "binaryData"}

// SecretPaths lists the fields of an object whose values plumb never
// prints, in a fixed order:
//
//   - every value of a Secret's data, stringData and binaryData (the field
//     whole when it is not a mapping);
//   - a ConfigMap's data or binaryData value whose key names a credential
//     (password, db.password, API_KEY: see IsCredentialName), or that holds
//     a URL with a password, unless empty;
//   - a ConfigMap's data value that holds credential settings or URL
//     passwords inside its text (a file such as app.properties: see
//     RedactCredentialText), which MaskSecretContent redacts in place;
//   - any other string of the object that holds credential-shaped text (a
//     GitHub token, an Authorization header, a private key: see
//     RedactCredentialShapes), also redacted in place;
//   - the value of an environment variable whose name names a credential
//     or whose value is a URL with a password (an item of an env list with
//     name and value, wherever it is: the containers of any workload kind,
//     a CRD's pod template), unless empty;
//   - the kubectl last-applied-configuration annotation of an object with
//     any of these, which repeats them.
func SecretPaths(content map[string]any) []Path {
	whole, texts := objectSecrets(content, nil)
	for _, t := range texts {
		whole = append(whole, t.path)
	}
	return withLastApplied(content, whole, false)
}

// objectSecrets finds an object's secrets, the last-applied annotation
// aside: whole, the paths whose whole value is secret (extra, fields that
// hold a copy of a secret value, among them), and texts, the strings that
// hold credentials inside their text with their redacted text.
func objectSecrets(content map[string]any, extra []Path) (whole []Path, texts []textSecret) {
	if IsSecret(content) {
		for _, f := range secretValueFields {
			switch v := content[f].(type) {
			case map[string]any:
				for _, k := range sortedKeys(v) {
					whole = append(whole, Path{Key(f), Key(k)})
				}
			case nil:
			default:
				whole = append(whole, Path{Key(f)})
			}
		}
	}
	if isConfigMap(content) {
		for _, f := range []string{"data", "binaryData"} {
			m, _ := content[f].(map[string]any)
			for _, k := range sortedKeys(m) {
				if blank(m[k]) {
					continue
				}
				if s, _ := m[k].(string); credentialKeyValue(k, m[k]) || !strings.Contains(s, "\n") && HasURLPassword(s) {
					whole = append(whole, Path{Key(f), Key(k)})
				}
			}
		}
	}
	// The walk's path buffer: deep enough for any workload, so that the
	// walk appends into it instead of allocating at every level.
	w := secretWalk{whole: whole}
	w.walk(content, make(Path, 0, 16))
	whole = append(w.whole, notSecretNames(content, w.env)...)
	whole = append(whole, extra...)
	texts = append(configMapTexts(content), shapeTexts(content, whole, w.shapes)...)
	return whole, texts
}

// withLastApplied adds the last-applied annotation of an object with
// secrets (out, or others when more is set) or of a Secret.
func withLastApplied(content map[string]any, out []Path, more bool) []Path {
	if len(out) > 0 || more || IsSecret(content) {
		meta, _ := content["metadata"].(map[string]any)
		anns, _ := meta["annotations"].(map[string]any)
		if _, ok := anns[LastApplied]; ok {
			out = append(out, Path{Key("metadata"), Key("annotations"), Key(LastApplied)})
		}
	}
	return out
}

// textSecret is a value with credentials inside its text, and the text
// with them redacted.
type textSecret struct {
	path Path
	text string
}

// configMapTexts lists a ConfigMap's data values (not already secret
// whole) that hold credential settings, URL passwords or credential
// shapes, each with its redacted text.
func configMapTexts(content map[string]any) []textSecret {
	if !isConfigMap(content) {
		return nil
	}
	m, _ := content["data"].(map[string]any)
	var out []textSecret
	for _, k := range sortedKeys(m) {
		s, ok := m[k].(string)
		if !ok || s == "" || credentialKeyValue(k, s) || !strings.Contains(s, "\n") && HasURLPassword(s) {
			continue
		}
		if red, changed := RedactCredentialText(s); changed {
			out = append(out, textSecret{path: Path{Key("data"), Key(k)}, text: red})
		}
	}
	return out
}

// secretWalk is one walk of an object for what lies below its top level:
// the value paths of environment variables that hold a URL password
// (whole) or whose name names a credential (env), and the strings that may
// hold credential shapes (shapes, each with its text as it is).
type secretWalk struct {
	whole  []Path
	env    []Path
	shapes []textSecret
}

// walk walks v, whose path is p. p is a buffer the walk extends and
// truncates; only found paths are copied, so most objects cost no
// allocation.
func (w *secretWalk) walk(v any, p Path) {
	switch t := v.(type) {
	case map[string]any:
		if list, ok := t["env"].([]any); ok {
			for i, item := range list {
				if e, ok := item.(map[string]any); ok {
					name, _ := e["name"].(string)
					v, has := e["value"]
					sv, _ := v.(string)
					switch {
					case !has || blank(v):
					case HasURLPassword(sv):
						w.whole = append(w.whole, append(slices.Clone(p), Key("env"), Index(i), Key("value")))
					case credentialKeyValue(name, v):
						w.env = append(w.env, append(slices.Clone(p), Key("env"), Index(i), Key("value")))
					}
				}
			}
		}
		n, ne := len(w.whole), len(w.env)
		for k, e := range t {
			switch ev := e.(type) {
			case string:
				if mayHoldShape(ev) {
					w.shapes = append(w.shapes, textSecret{path: append(slices.Clone(p), Key(k)), text: ev})
				}
			case map[string]any, []any:
				w.walk(e, append(p, Key(k)))
			}
		}
		// Map order is random: sort what this level found below it.
		if len(w.whole)-n > 1 {
			slices.SortFunc(w.whole[n:], func(a, b Path) int { return strings.Compare(a.String(), b.String()) })
		}
		if len(w.env)-ne > 1 {
			slices.SortFunc(w.env[ne:], func(a, b Path) int { return strings.Compare(a.String(), b.String()) })
		}
	case []any:
		for i, e := range t {
			switch ev := e.(type) {
			case string:
				if mayHoldShape(ev) {
					w.shapes = append(w.shapes, textSecret{path: append(slices.Clone(p), Index(i)), text: ev})
				}
			case map[string]any, []any:
				w.walk(e, append(p, Index(i)))
			}
		}
	}
}

// blank reports whether a value is empty: nothing to hide, and a check
// may test that it is empty (D10012 accepts value: "").
func blank(v any) bool { return v == nil || v == "" }

// credentialKeyValue reports whether the value v of key k is a credential
// by its name: the name names one, and v is not blank or plain (a path, a
// flag, a reference: IsPlainValue).
func credentialKeyValue(k string, v any) bool {
	s, isString := v.(string)
	return IsCredentialName(k) && !blank(v) && !(isString && IsPlainValue(s))
}

// notSecretNames returns the paths of env whose value is not the name of
// a Secret the object references: JGROUPS_ENCRYPT_SECRET=eap7-app-secret
// beside a volume of Secret eap7-app-secret names the Secret the pod
// mounts, and holds no credential.
func notSecretNames(content map[string]any, env []Path) []Path {
	if len(env) == 0 {
		return nil
	}
	names := ReferencedSecretNames(content)
	if len(names) == 0 {
		return env
	}
	out := env[:0:0]
	for _, p := range env {
		v, _ := Lookup(content, p)
		if s, _ := v.(string); !names[s] {
			out = append(out, p)
		}
	}
	return out
}

// ReferencedSecretNames are the names of the Secrets an object's pod
// specs reference, wherever they sit: secret volumes (secretName),
// projected Secret sources, secretKeyRef and secretRef (env, envFrom, and
// the CRDs that copy the shape) and imagePullSecrets.
func ReferencedSecretNames(content map[string]any) map[string]bool {
	names := map[string]bool{}
	var walk func(v any, parent string)
	walk = func(v any, parent string) {
		switch t := v.(type) {
		case map[string]any:
			if n, ok := t["secretName"].(string); ok && n != "" {
				names[n] = true
			}
			if n, ok := t["name"].(string); ok && n != "" && (parent == "secretKeyRef" || parent == "secretRef" || parent == "secret" || parent == "imagePullSecrets") {
				names[n] = true
			}
			for k, e := range t {
				walk(e, k)
			}
		case []any:
			for _, e := range t {
				walk(e, parent)
			}
		}
	}
	walk(content, "")
	return names
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// credentialWords are the last words of a name that holds a credential.
var credentialWords = map[string]bool{
	"password": true, "passwd": true, "pass": true, "pwd": true, "secret": true, "token": true, "credential": true,
	"credentials": true, "apikey": true, "passphrase": true, "pat": true,
}

// keyQualifiers are the words before a last word "key" that make it a
// credential (API_KEY, SSH_KEY, SECRET_KEY, AWS_SECRET_ACCESS_KEY).
var keyQualifiers = map[string]bool{
	"api": true, "private": true, "secret": true, "ssh": true, "signing": true, "encryption": true, "master": true,
}

// IsCredentialName reports whether a key or variable name says its value
// is a credential. Words are split at '_', '-', '.', spaces and lowerCamel
// humps, and compared without case:
//
//   - the last word is password, passwd, pass, pwd, passphrase, secret,
//     token, credential(s), apikey or pat (DB_PASSWORD, db.password,
//     clientSecret, auth_token, DB_PASS, MYSQL_PWD, GITHUB_PAT);
//   - or it ends in password or passwd (PGPASSWORD);
//   - or it is key and a word before it is api, private, secret, ssh,
//     signing, encryption or master (API_KEY, apiKey, SSH_KEY, SECRET_KEY,
//     AWS_SECRET_ACCESS_KEY).
//
// PASSWORD_POLICY, token_ttl, tokenizer, AWS_ACCESS_KEY_ID and
// PUBLIC_KEY are not. It covers the default credential_name_pattern of
// check D10012 and more: what is masked is wider than what is reported.
func IsCredentialName(name string) bool {
	words := nameWords(name)
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	if credentialWords[last] || strings.HasSuffix(last, "password") || strings.HasSuffix(last, "passwd") {
		return true
	}
	if last == "key" {
		for _, w := range words[:len(words)-1] {
			if keyQualifiers[w] {
				return true
			}
		}
	}
	return false
}

// nameWords splits a name into lower-case words at '_', '-', '.', spaces
// and lower-to-upper case changes.
func nameWords(name string) []string {
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, strings.ToLower(cur.String()))
			cur.Reset()
		}
	}
	var prev rune
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || unicode.IsSpace(r):
			flush()
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)):
			flush()
			cur.WriteRune(r)
		default:
			cur.WriteRune(r)
		}
		prev = r
	}
	flush()
	return words
}

// HasSecrets reports whether an object holds a value plumb never prints.
func HasSecrets(content map[string]any) bool { return len(SecretPaths(content)) > 0 }

// MaskSecretContent returns a copy of content with every value at its
// SecretPaths replaced by Redacted, except that a value with credentials
// inside its text keeps its text with only them redacted; content itself
// when there is none.
func MaskSecretContent(content map[string]any) map[string]any {
	out, _ := MaskSecrets(content)
	return out
}

// MaskSecrets is MaskSecretContent, and whether anything was masked.
func MaskSecrets(content map[string]any) (map[string]any, bool) {
	t := secretTrie(content)
	if t == nil {
		return content, false
	}
	out, _ := t.mask(content, Redacted).(map[string]any)
	return out, true
}

// secretTrie holds an object's secret paths, the text ones with their
// redacted text; nil when there is none.
func secretTrie(content map[string]any, extra ...Path) *pathTrie {
	whole, texts := objectSecrets(content, extra)
	// The annotation repeats the texts' credentials too.
	whole = withLastApplied(content, whole, len(texts) > 0)
	if len(whole) == 0 && len(texts) == 0 {
		return nil
	}
	t := newPathTrie(whole)
	for _, ts := range texts {
		n := t
		for _, seg := range ts.path {
			n = n.child(seg)
		}
		n.leaf, n.text, n.hasText = true, ts.text, true
	}
	return t
}

// MaskPaths returns a copy of content with the values at paths replaced by
// mask (paths that do not resolve are skipped); content itself when paths
// is empty. The original is never changed: the maps and lists along the
// paths are copied, the rest is shared.
func MaskPaths(content map[string]any, paths []Path, mask any) map[string]any {
	if len(paths) == 0 {
		return content
	}
	out, _ := newPathTrie(paths).mask(content, mask).(map[string]any)
	return out
}

// pathTrie holds a set of paths by segment. A leaf with text replaces
// the value with that text instead of the mask.
type pathTrie struct {
	leaf    bool
	hasText bool
	text    string
	keys    map[string]*pathTrie
	index   map[int]*pathTrie
}

func newPathTrie(paths []Path) *pathTrie {
	root := &pathTrie{}
	for _, p := range paths {
		t := root
		for _, seg := range p {
			t = t.child(seg)
		}
		t.leaf = true
	}
	return root
}

func (t *pathTrie) child(seg Segment) *pathTrie {
	if seg.IsIndex {
		if t.index == nil {
			t.index = map[int]*pathTrie{}
		}
		if t.index[seg.Index] == nil {
			t.index[seg.Index] = &pathTrie{}
		}
		return t.index[seg.Index]
	}
	if t.keys == nil {
		t.keys = map[string]*pathTrie{}
	}
	if t.keys[seg.Key] == nil {
		t.keys[seg.Key] = &pathTrie{}
	}
	return t.keys[seg.Key]
}

// mask returns v with the values at the trie's paths replaced.
func (t *pathTrie) mask(v any, mask any) any {
	if t.leaf && t.hasText {
		return t.text
	}
	if t.leaf {
		return mask
	}
	switch c := v.(type) {
	case map[string]any:
		if len(t.keys) == 0 {
			return v
		}
		out := make(map[string]any, len(c))
		for k, e := range c {
			out[k] = e
		}
		for k, sub := range t.keys {
			if e, ok := c[k]; ok {
				out[k] = sub.mask(e, mask)
			}
		}
		return out
	case []any:
		if len(t.index) == 0 {
			return v
		}
		out := slices.Clone(c)
		for i, sub := range t.index {
			if i < len(c) {
				out[i] = sub.mask(c[i], mask)
			}
		}
		return out
	}
	return v
}

// MaskSecretNode returns a copy of an object's node in which the values at
// its SecretPaths are Redacted scalars, keeping comments and layout; the
// node itself when there is nothing to mask. ok is false when a path runs
// through an alias or a merge key: the caller prints the masked content
// instead.
func MaskSecretNode(content map[string]any, n *yaml.Node) (masked *yaml.Node, ok bool) {
	t := secretTrie(content)
	if t == nil || n == nil {
		return n, true
	}
	return t.maskNode(n)
}

// maskNode copies the mapping and sequence nodes along the trie's paths;
// values are followed only through direct children.
func (t *pathTrie) maskNode(n *yaml.Node) (*yaml.Node, bool) {
	if t.leaf {
		if n.Anchor != "" {
			return nil, false // an alias elsewhere would print a dangling *name
		}
		if t.hasText {
			if n.Kind != yaml.ScalarNode {
				return nil, false
			}
			out := *n
			out.Value = t.text
			return &out, true
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: Redacted, Line: n.Line, Column: n.Column}, true
	}
	out := *n
	switch n.Kind {
	case yaml.MappingNode:
		out.Content = slices.Clone(n.Content)
		for k, sub := range t.keys {
			found := false
			for i := 0; i+1 < len(out.Content); i += 2 {
				if key := out.Content[i]; key.Kind == yaml.ScalarNode && key.Value == k && !isMergeKey(key) {
					v, ok := sub.maskNode(out.Content[i+1])
					if !ok {
						return nil, false
					}
					out.Content[i+1], found = v, true
				}
			}
			if !found {
				return nil, false
			}
		}
		if len(t.index) > 0 {
			return nil, false
		}
	case yaml.SequenceNode:
		out.Content = slices.Clone(n.Content)
		for i, sub := range t.index {
			if i >= len(out.Content) {
				return nil, false
			}
			v, ok := sub.maskNode(out.Content[i])
			if !ok {
				return nil, false
			}
			out.Content[i] = v
		}
		if len(t.keys) > 0 {
			return nil, false
		}
	default:
		return nil, false
	}
	return &out, true
}

// MaskCredentialKeys returns v with the non-empty value of every mapping
// key that names a credential (IsCredentialName), at any depth, replaced by
// Redacted: for structured text read out of a ConfigMap (an
// application.properties with db.password=..., an INI [auth] section). v
// itself is returned when there is nothing to mask.
func MaskCredentialKeys(v any) any {
	out, _ := maskCredentialKeys(v)
	return out
}

func maskCredentialKeys(v any) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		return RewriteMap(t, func(k string, e any) (any, bool) {
			if _, scalar := e.(string); !credentialKeyValue(k, e) || (!scalar && isContainer(e)) {
				return maskCredentialKeys(e)
			}
			return Redacted, true
		})
	case []any:
		return RewriteList(t, maskCredentialKeys)
	}
	return v, false
}

func isContainer(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return true
	}
	return false
}

// CredentialValues lists the non-empty string values of mapping keys that
// name a credential, at any depth, longest first (so a text replacer
// removes a value whole before a shorter one inside it).
func CredentialValues(v any) []string {
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				if s, ok := e.(string); ok && credentialKeyValue(k, s) {
					seen[s] = true
				}
				walk(e)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	return out
}

// ObjectSecretPaths is SecretPaths of an object's content with the fields
// that hold a copy of another object's secret value (Object.SecretFields).
func ObjectSecretPaths(o *Object) []Path {
	whole, texts := objectSecrets(o.Content, o.SecretFields)
	for _, t := range texts {
		whole = append(whole, t.path)
	}
	return withLastApplied(o.Content, whole, false)
}

// MaskObject is MaskSecrets of an object, its SecretFields included.
func MaskObject(o *Object) (map[string]any, bool) {
	t := secretTrie(o.Content, o.SecretFields...)
	if t == nil {
		return o.Content, false
	}
	out, _ := t.mask(o.Content, Redacted).(map[string]any)
	return out, true
}

// MaskObjectContent is MaskObject without the flag.
func MaskObjectContent(o *Object) map[string]any {
	out, _ := MaskObject(o)
	return out
}

// MaskObjectNode is MaskSecretNode of an object, its SecretFields
// included.
func MaskObjectNode(o *Object) (*yaml.Node, bool) {
	t := secretTrie(o.Content, o.SecretFields...)
	if t == nil || o.Node == nil {
		return o.Node, true
	}
	return t.maskNode(o.Node)
}
