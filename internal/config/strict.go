package config

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// decodeStrict decodes a YAML node into out (a pointer to a struct) and
// reports, all at once, every key that the struct does not define and every
// value of the wrong type, each as file:line:col.
func decodeStrict(file string, n *yaml.Node, out any) error {
	var errs []error
	checkKeys(file, n, reflect.TypeOf(out).Elem(), "", &errs)
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if err := n.Decode(out); err != nil {
		return typeErrors(file, err)
	}
	return nil
}

// checkKeys walks a node alongside the Go type it decodes into.
func checkKeys(file string, n *yaml.Node, t reflect.Type, section string, errs *[]error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return // a type that decodes itself checks its own input
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if want, bad := wrongKind(n, t); bad {
		*errs = append(*errs, fmt.Errorf("%s:%d:%d: %s: the value is %s, want %s", file, n.Line, n.Column, section, describeNode(n), want))
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return // a type error that Decode reports
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			f, ok := fields[k.Value]
			if !ok {
				*errs = append(*errs, fmt.Errorf("%s:%d:%d: unknown key %q%s (known keys: %s)",
					file, k.Line, k.Column, k.Value, inSection(section), strings.Join(sortedKeys(fields), ", ")))
				continue
			}
			checkKeys(file, v, f.Type, join(section, k.Value), errs)
		}
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			for _, c := range n.Content {
				checkKeys(file, c, t.Elem(), section, errs)
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				checkKeys(file, n.Content[i+1], t.Elem(), join(section, n.Content[i].Value), errs)
			}
		}
	}
}

var unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()

// wrongKind reports a value that cannot decode into t, and what t wants,
// so the message names the setting and says what to write; yaml.v3's own
// error names neither ("cannot unmarshal !!str `maybe` into bool").
func wrongKind(n *yaml.Node, t reflect.Type) (string, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return "", false
	}
	scalar := n.Kind == yaml.ScalarNode
	switch t.Kind() {
	case reflect.Bool:
		return "true or false", !scalar || n.Tag != "!!bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number", !scalar || n.Tag != "!!int"
	case reflect.String:
		return "a string", !scalar
	case reflect.Slice:
		return "a list (one item per line, each starting with -, or [a, b])", n.Kind != yaml.SequenceNode
	case reflect.Struct, reflect.Map:
		return "a mapping of keys to values", n.Kind != yaml.MappingNode
	}
	return "", false
}

// describeNode names a value as people read YAML.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	switch n.Tag {
	case "!!bool":
		return "the boolean " + n.Value
	case "!!int", "!!float":
		return "the number " + n.Value
	}
	return fmt.Sprintf("the string %q", n.Value)
}

func inSection(s string) string {
	if s == "" {
		return ""
	}
	return " in " + s
}

func join(section, key string) string {
	if section == "" {
		return key
	}
	return section + "." + key
}

func yamlFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("yaml")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if strings.Contains(tag, ",inline") {
			for k, v := range yamlFields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f
	}
	return out
}

func sortedKeys(m map[string]reflect.StructField) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

var typeErrLine = regexp.MustCompile(`^\s*line (\d+): (.*)$`)

// typeErrors rewrites yaml.v3's "line N: cannot unmarshal ..." errors as
// file:N: messages.
func typeErrors(file string, err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("%s: %w", file, err)
	}
	var errs []error
	for _, e := range te.Errors {
		if m := typeErrLine.FindStringSubmatch(e); m != nil {
			errs = append(errs, fmt.Errorf("%s:%s: %s", file, m[1], m[2]))
		} else {
			errs = append(errs, fmt.Errorf("%s: %s", file, e))
		}
	}
	return errors.Join(errs...)
}
