package checks

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// configMapFile is the parsed argument of configmap_file@v1:
// [namespace/]configmap/key[:format]. configmap may be $self (the target
// ConfigMap); key may be a glob such as *.properties, which makes the fact a
// map from key to parsed content.
type configMapFile struct {
	namespace, name, key, format string
	glob                         bool
}

// fileFormats are the formats configmap_file@v1 parses.
var fileFormats = []string{"ini", "json", "properties", "env", "text", "yaml"}

func parseConfigMapFile(arg string, tt TargetType) (*configMapFile, error) {
	spec := strings.TrimSpace(arg)
	c := &configMapFile{}
	if i := strings.LastIndexByte(spec, ':'); i >= 0 {
		c.format = spec[i+1:]
		spec = spec[:i]
		if !slices.Contains(fileFormats, c.format) {
			return nil, fmt.Errorf("argument %q: unknown format %q (want %s)", arg, c.format, strings.Join(fileFormats, ", "))
		}
	}
	parts := strings.Split(spec, "/")
	switch len(parts) {
	case 2:
		c.name, c.key = parts[0], parts[1]
	case 3:
		c.namespace, c.name, c.key = parts[0], parts[1], parts[2]
	default:
		return nil, fmt.Errorf("argument %q: want [namespace/]configmap/key[:format]", arg)
	}
	if c.name == "" || c.key == "" {
		return nil, fmt.Errorf("argument %q: want [namespace/]configmap/key[:format]", arg)
	}
	if c.name == "$self" && tt == TargetGroup {
		return nil, fmt.Errorf("argument %q: $self is the target ConfigMap and a group check has no target object", arg)
	}
	if strings.ContainsAny(c.key, "*?[") {
		if _, err := path.Match(c.key, ""); err != nil {
			return nil, fmt.Errorf("argument %q: bad key pattern: %w", arg, err)
		}
		c.glob = true
	}
	return c, nil
}

// formatFor picks the format of a key: the explicit one, else by extension.
func (c *configMapFile) formatFor(key string) string {
	if c.format != "" {
		return c.format
	}
	return formatOfKey(key)
}

// formatOfKey is the format a key's extension says.
func formatOfKey(key string) string {
	switch strings.ToLower(path.Ext(key)) {
	case ".json":
		return "json"
	case ".yaml", ".yml":
		return "yaml"
	case ".ini":
		// Only .ini: .conf and .cfg files (redis.conf, nginx.conf,
		// haproxy.cfg) each have a syntax of their own, not INI's.
		return "ini"
	case ".properties":
		return "properties"
	case ".env":
		return "env"
	}
	return "text"
}

var configMapFileGatherer = &gathererDef{
	name: "configmap_file", version: 1, group: true,
	Summary: "A key of a ConfigMap of the same render target, parsed as ini, json, yaml, properties, env or text " +
		"(by the key's extension unless :format is given). On object checks the ConfigMap is looked up in the " +
		"object's namespace unless one is given. Errors: configmap-file-not-found, configmap-file-parse-error, " +
		"configmap-file-ambiguous.",
	Argument: "[namespace/]configmap/key[:format]; configmap may be $self (the target ConfigMap), key may be a glob (*.properties) giving a map of key to content",
	prepare: func(arg string, tt TargetType) (gatherFunc, error) {
		c, err := parseConfigMapFile(arg, tt)
		if err != nil {
			return nil, err
		}
		return c.gather, nil
	},
}

func (c *configMapFile) gather(s *subject) gathered {
	cm, ferr := c.find(s)
	if ferr != nil {
		at := (*origin)(nil)
		if s.obj != nil {
			at = &origin{obj: s.obj}
		}
		return gathered{at: at, err: ferr}
	}
	// The index's view: credential keys' values are redacted.
	data, _ := s.target.content(cm)["data"].(map[string]any)
	dataPath := manifest.Path{manifest.Key("data")}
	g := gathered{objects: []*manifest.Object{cm}, at: &origin{obj: cm, path: dataPath}}
	parse := func(key string) (any, *FactError) {
		v, ok := data[key]
		if !ok {
			return nil, factErr("configmap-file-not-found", "ConfigMap %s has no data key %q", describeObject(cm), key)
		}
		raw, ok := v.(string)
		if !ok {
			return nil, factErr("configmap-file-parse-error", "ConfigMap %s key %q holds %s, not a string (ConfigMap data values must be strings; quote it)", describeObject(cm), key, display(v))
		}
		format := c.formatFor(key)
		v, err := parseFile(format, raw)
		if err != nil {
			return nil, factErr("configmap-file-parse-error", "ConfigMap %s key %q: %v", describeObject(cm), key, err)
		}
		// A file's own credentials (db.password=... in a properties
		// file) are secrets too: checks see that they are set, never
		// their values, also when they read the file as text.
		if format == "text" {
			return redactFileCredentials(key, raw), nil
		}
		return manifest.MaskCredentialKeys(v), nil
	}
	if !c.glob {
		g.at = &origin{obj: cm, path: dataPath.Child(manifest.Key(c.key))}
		g.value, g.err = parse(c.key)
		return g
	}
	keys := make([]string, 0, len(data))
	for k := range data {
		if ok, _ := path.Match(c.key, k); ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	value := make(map[string]any, len(keys))
	for _, k := range keys {
		v, ferr := parse(k)
		if ferr != nil {
			g.err = ferr
			g.at = &origin{obj: cm, path: dataPath.Child(manifest.Key(k))}
			return g
		}
		value[k] = v
		g.items = append(g.items, item{key: k, at: origin{obj: cm, path: dataPath.Child(manifest.Key(k))}})
	}
	g.value = value
	return g
}

// find looks the ConfigMap up in the subject's render target.
func (c *configMapFile) find(s *subject) (*manifest.Object, *FactError) {
	if c.name == "$self" {
		if s.obj == nil || s.obj.ID.Kind != "ConfigMap" {
			kind := "a render target"
			if s.obj != nil {
				kind = s.obj.ID.Kind
			}
			return nil, factErr("configmap-file-not-a-configmap", "$self names the target ConfigMap, but the target is %s", kind)
		}
		return s.obj, nil
	}
	ns := c.namespace
	if ns == "" && s.obj != nil {
		ns = s.target.namespaceOf(s.obj)
	}
	var found []*manifest.Object
	for _, o := range s.target.byKind["ConfigMap"] {
		if o.ID.Name == c.name && (ns == "" && s.obj == nil || s.target.namespaceOf(o) == ns) {
			found = append(found, o)
		}
	}
	switch len(found) {
	case 0:
		where := ""
		if ns != "" {
			where = " in namespace " + ns
		}
		return nil, factErr("configmap-file-not-found", "no ConfigMap %s%s in render target %s", c.name, where, s.target.name)
	case 1:
		return found[0], nil
	}
	return nil, factErr("configmap-file-ambiguous", "%d ConfigMaps named %s in render target %s: give the namespace (namespace/%s/%s)", len(found), c.name, s.target.name, c.name, c.key)
}

func describeObject(o *manifest.Object) string {
	if o.ID.Namespace != "" {
		return o.ID.Namespace + "/" + o.ID.Name
	}
	return o.ID.Name
}

// redactFileCredentials removes from a key's raw text the values of the
// credentials it holds when it is parsed by its extension.
func redactFileCredentials(key, raw string) string {
	format := formatOfKey(key)
	if format == "text" {
		return raw
	}
	v, err := parseFile(format, raw)
	if err != nil {
		return raw
	}
	values := manifest.CredentialValues(v)
	if len(values) == 0 {
		return raw
	}
	return replaceWhole(raw, values)
}

// maxWholeValues bounds the values replaceWhole looks for at each word of
// a text; a file with more credentials is redacted whole.
const maxWholeValues = 256

// replaceWhole returns text with every occurrence of each value (longest
// first, as CredentialValues sorts them) that stands alone replaced by
// Redacted: a value is not redacted inside a longer word, so the password
// "admin" leaves "user: administrator" readable. Values are looked for
// where a word starts only.
func replaceWhole(text string, values []string) string {
	if len(values) > maxWholeValues {
		return manifest.Redacted
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		hit := ""
		for _, v := range values {
			if wordByte(text, i-1) && wordByte(text, i) {
				break
			}
			if strings.HasPrefix(text[i:], v) && !(wordByte(text, i-1) && wordByte(v, 0)) && !(wordByte(text, i+len(v)) && wordByte(v, len(v)-1)) {
				hit = v
				break
			}
		}
		if hit == "" {
			b.WriteByte(text[i])
			i++
			continue
		}
		b.WriteString(manifest.Redacted)
		i += len(hit)
	}
	return b.String()
}

// wordByte reports whether text[i] exists and continues a word (a letter,
// a digit or '_'; bytes of multi-byte characters count as letters).
func wordByte(text string, i int) bool {
	if i < 0 || i >= len(text) {
		return false
	}
	c := text[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
