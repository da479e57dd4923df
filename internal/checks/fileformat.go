package checks

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// parseFile parses the content of a configuration file held in a ConfigMap.
func parseFile(format, raw string) (any, error) {
	switch format {
	case "json":
		return parseJSON(raw)
	case "yaml":
		return parseYAMLFile(raw)
	case "ini":
		return parseINI(raw)
	case "properties":
		return parseProperties(raw)
	case "env":
		return parseEnvFile(raw)
	}
	return raw, nil
}

// parseJSON decodes JSON with whole numbers as int64, like every other value
// the checks see.
func parseJSON(raw string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("invalid JSON: more than one value")
	}
	return jsonNumbers(v), nil
}

func jsonNumbers(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return normalizeNumber(f)
	case map[string]any:
		for k, e := range t {
			t[k] = jsonNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = jsonNumbers(e)
		}
	}
	return v
}

// parseYAMLFile decodes YAML with plumb's manifest decoder (YAML 1.2 core
// schema, bounded aliases). A stream of several documents becomes a list.
func parseYAMLFile(raw string) (any, error) {
	docs, problems := manifest.ParseYAML("file", []byte(raw), manifest.Limits{})
	if len(problems) > 0 {
		p := problems[0]
		return nil, fmt.Errorf("invalid YAML at line %d: %s", p.Location.Line, p.Message)
	}
	tagged := strings.Contains(raw, "!")
	value := func(d *manifest.Document) any {
		if tagged {
			return keepLocalTags(d.Node, d.Value)
		}
		return d.Value
	}
	switch len(docs) {
	case 0:
		return nil, nil
	case 1:
		return value(docs[0]), nil
	}
	out := make([]any, len(docs))
	for i, d := range docs {
		out[i] = value(d)
	}
	return out, nil
}

// keepLocalTags returns v, the decoded value of n, with every scalar that
// carries a local tag written as the tag and its text: an application's
// configuration file says "!env_var SONARR_API_KEY" (Recyclarr) or
// "!secret db_password" (Home Assistant) to take a value from elsewhere,
// and a check must see that reference, not the bare name the decoder
// leaves. v's maps and lists are the decoder's own, changed in place.
func keepLocalTags(n *yaml.Node, v any) any {
	if n == nil {
		return v
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
			return strings.TrimSpace(n.Tag + " " + n.Value)
		}
	case yaml.MappingNode:
		m, ok := v.(map[string]any)
		if !ok {
			return v
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Value == "<<" {
				continue
			}
			if e, ok := m[k.Value]; ok {
				m[k.Value] = keepLocalTags(n.Content[i+1], e)
			}
		}
	case yaml.SequenceNode:
		l, ok := v.([]any)
		if !ok || len(l) != len(n.Content) {
			return v
		}
		for i, c := range n.Content {
			l[i] = keepLocalTags(c, l[i])
		}
	}
	return v
}

// parseINI reads an ini file into {key: value} for keys before any section
// and {section: {key: value}} for sections. Values are strings; ';' and '#'
// start comments.
func parseINI(raw string) (any, error) {
	out := map[string]any{}
	cur := out
	for n, line := range strings.Split(raw, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || line[0] == ';' || line[0] == '#' {
			continue
		}
		if line[0] == '[' {
			if !strings.HasSuffix(line, "]") {
				return nil, fmt.Errorf("invalid ini at line %d: section header %q has no closing ]", n+1, line)
			}
			name := strings.TrimSpace(line[1 : len(line)-1])
			sec, ok := out[name].(map[string]any)
			if !ok {
				sec = map[string]any{}
				out[name] = sec
			}
			cur = sec
			continue
		}
		i := strings.IndexAny(line, "=:")
		if i < 0 {
			return nil, fmt.Errorf("invalid ini at line %d: %q is neither a section, a key = value pair nor a comment", n+1, line)
		}
		cur[strings.TrimSpace(line[:i])] = unquote(strings.TrimSpace(line[i+1:]))
	}
	return out, nil
}

// parseProperties reads a Java properties file: key=value, key: value or
// key value; '#' and '!' comments; a trailing backslash continues a line;
// \t \n \r \f \uXXXX and escaped separators are unescaped.
func parseProperties(raw string) (any, error) {
	out := map[string]any{}
	lines := strings.Split(raw, "\n")
	for n := 0; n < len(lines); n++ {
		line := strings.TrimLeft(strings.TrimSuffix(lines[n], "\r"), " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		for endsWithContinuation(line) && n+1 < len(lines) {
			n++
			line = line[:len(line)-1] + strings.TrimLeft(strings.TrimSuffix(lines[n], "\r"), " \t\f")
		}
		// The key ends at the first unescaped '=', ':' or whitespace.
		i := 0
		for i < len(line) && !strings.ContainsRune("=: \t\f", rune(line[i])) {
			if line[i] == '\\' {
				i++
			}
			i++
		}
		key := line[:min(i, len(line))]
		rest := strings.TrimLeft(line[min(i, len(line)):], " \t\f")
		if rest != "" && (rest[0] == '=' || rest[0] == ':') {
			rest = strings.TrimLeft(rest[1:], " \t\f")
		}
		k, err := unescapeProperties(key)
		if err != nil {
			return nil, fmt.Errorf("invalid properties at line %d: %w", n+1, err)
		}
		v, err := unescapeProperties(rest)
		if err != nil {
			return nil, fmt.Errorf("invalid properties at line %d: %w", n+1, err)
		}
		out[k] = v
	}
	return out, nil
}

func endsWithContinuation(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

func unescapeProperties(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf("truncated \\u escape in %q", s)
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 32)
			if err != nil {
				return "", fmt.Errorf("bad \\u escape in %q", s)
			}
			b.WriteRune(rune(r))
			i += 4
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// parseEnvFile reads KEY=VALUE lines (an optional "export " prefix, '#'
// comments, quotes around values stripped).
func parseEnvFile(raw string) (any, error) {
	out := map[string]any{}
	for n, line := range strings.Split(raw, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || line[0] == '#' {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("invalid env file at line %d: %q is not KEY=VALUE", n+1, line)
		}
		out[strings.TrimSpace(k)] = unquote(strings.TrimSpace(v))
	}
	return out, nil
}

// unquote strips one pair of matching quotes.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		if s[0] == '"' {
			if u, err := strconv.Unquote(s); err == nil {
				return u
			}
		}
		return s[1 : len(s)-1]
	}
	return s
}
