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
//     (password, db.password, API_KEY: see IsCredentialName), unless empty;
//   - the value of an environment variable whose name names a credential
//     (an item of an env list with name and value, wherever it is: the
//     containers of any workload kind, a CRD's pod template), unless empty;
//   - the kubectl last-applied-configuration annotation of an object with
//     any of these, which repeats them.
func SecretPaths(content map[string]any) []Path {
	var out []Path
	if IsSecret(content) {
		for _, f := range secretValueFields {
			switch v := content[f].(type) {
			case map[string]any:
				for _, k := range sortedKeys(v) {
					out = append(out, Path{Key(f), Key(k)})
				}
			case nil:
			default:
				out = append(out, Path{Key(f)})
			}
		}
	}
	if isConfigMap(content) {
		for _, f := range []string{"data", "binaryData"} {
			m, _ := content[f].(map[string]any)
			for _, k := range sortedKeys(m) {
				if IsCredentialName(k) && !blank(m[k]) {
					out = append(out, Path{Key(f), Key(k)})
				}
			}
		}
	}
	out = appendCredentialEnv(out, content, nil)
	if len(out) > 0 || IsSecret(content) {
		meta, _ := content["metadata"].(map[string]any)
		anns, _ := meta["annotations"].(map[string]any)
		if _, ok := anns[LastApplied]; ok {
			out = append(out, Path{Key("metadata"), Key("annotations"), Key(LastApplied)})
		}
	}
	return out
}

// appendCredentialEnv appends the value paths of credential environment
// variables below v, whose path is p. p is a buffer the walk extends and
// truncates; only found paths are copied, so most objects cost no
// allocation.
func appendCredentialEnv(out []Path, v any, p Path) []Path {
	switch t := v.(type) {
	case map[string]any:
		if list, ok := t["env"].([]any); ok {
			for i, item := range list {
				if e, ok := item.(map[string]any); ok {
					name, _ := e["name"].(string)
					if v, has := e["value"]; has && !blank(v) && IsCredentialName(name) {
						out = append(out, append(slices.Clone(p), Key("env"), Index(i), Key("value")))
					}
				}
			}
		}
		n := len(out)
		for k, e := range t {
			switch e.(type) {
			case map[string]any, []any:
				if k != "env" {
					out = appendCredentialEnv(out, e, append(p, Key(k)))
				}
			}
		}
		// Map order is random: sort what this level found below it.
		if len(out)-n > 1 {
			slices.SortFunc(out[n:], func(a, b Path) int { return strings.Compare(a.String(), b.String()) })
		}
	case []any:
		for i, e := range t {
			switch e.(type) {
			case map[string]any, []any:
				out = appendCredentialEnv(out, e, append(p, Index(i)))
			}
		}
	}
	return out
}

// blank reports whether a value is empty: nothing to hide, and a check
// may test that it is empty (D10012 accepts value: "").
func blank(v any) bool { return v == nil || v == "" }

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
	"password": true, "passwd": true, "secret": true, "token": true, "credential": true, "credentials": true,
	"apikey": true, "passphrase": true,
}

// IsCredentialName reports whether a key or variable name says its value
// is a credential: its last word (words split at '_', '-', '.' and
// lowerCamel humps) is password, passwd, passphrase, secret, token,
// credential(s) or apikey, or its last two are "api key" or "private key".
// DB_PASSWORD, db.password, clientSecret, auth_token, API_KEY and apiKey
// are; PASSWORD_POLICY, token_ttl and tokenizer are not. It is the default
// credential_name_pattern of check D10012, plus lowerCamel names.
func IsCredentialName(name string) bool {
	words := nameWords(name)
	if len(words) == 0 {
		return false
	}
	last := words[len(words)-1]
	if credentialWords[last] {
		return true
	}
	if len(words) >= 2 && last == "key" {
		prev := words[len(words)-2]
		return prev == "api" || prev == "private"
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
// SecretPaths replaced by Redacted; content itself when there is none.
func MaskSecretContent(content map[string]any) map[string]any {
	return MaskPaths(content, SecretPaths(content), Redacted)
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

// pathTrie holds a set of paths by segment.
type pathTrie struct {
	leaf  bool
	keys  map[string]*pathTrie
	index map[int]*pathTrie
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
	paths := SecretPaths(content)
	if len(paths) == 0 || n == nil {
		return n, true
	}
	return newPathTrie(paths).maskNode(n)
}

// maskNode copies the mapping and sequence nodes along the trie's paths;
// values are followed only through direct children.
func (t *pathTrie) maskNode(n *yaml.Node) (*yaml.Node, bool) {
	if t.leaf {
		if n.Anchor != "" {
			return nil, false // an alias elsewhere would print a dangling *name
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
			if _, scalar := e.(string); !IsCredentialName(k) || blank(e) || (!scalar && isContainer(e)) {
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
				if s, ok := e.(string); ok && s != "" && IsCredentialName(k) {
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
