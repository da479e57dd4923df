package manifest

import "go.yaml.in/yaml/v3"

// Redacted replaces every Secret value plumb prints.
const Redacted = "<redacted>"

// IsSecret reports whether content is a core/v1 Secret.
func IsSecret(content map[string]any) bool {
	kind, _ := content["kind"].(string)
	api, _ := content["apiVersion"].(string)
	return kind == "Secret" && (api == "v1" || api == "")
}

// secretValueFields are the fields of a Secret whose values are secret.
var secretValueFields = []string{"data", "stringData"}

// MaskSecretNode returns a copy of an object node in which the values of a
// Secret's data and stringData are replaced by Redacted; other nodes are
// returned as they are. Keys stay visible so a reader sees what changed.
func MaskSecretNode(content map[string]any, n *yaml.Node) *yaml.Node {
	if !IsSecret(content) || n == nil || n.Kind != yaml.MappingNode {
		return n
	}
	out := *n
	out.Content = make([]*yaml.Node, len(n.Content))
	copy(out.Content, n.Content)
	for i := 0; i+1 < len(out.Content); i += 2 {
		k := out.Content[i]
		if k.Value != secretValueFields[0] && k.Value != secretValueFields[1] {
			continue
		}
		v := deref(out.Content[i+1])
		if v == nil || v.Kind != yaml.MappingNode {
			continue
		}
		masked := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: v.Line, Column: v.Column}
		for j := 0; j+1 < len(v.Content); j += 2 {
			masked.Content = append(masked.Content, v.Content[j],
				&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: Redacted, Line: v.Content[j+1].Line, Column: v.Content[j+1].Column})
		}
		out.Content[i+1] = masked
	}
	return &out
}

// MaskSecretContent returns a copy of content with a Secret's values
// replaced by Redacted; other objects are returned as they are.
func MaskSecretContent(content map[string]any) map[string]any {
	if !IsSecret(content) {
		return content
	}
	out := make(map[string]any, len(content))
	for k, v := range content {
		out[k] = v
	}
	for _, f := range secretValueFields {
		if m, ok := content[f].(map[string]any); ok {
			masked := make(map[string]any, len(m))
			for k := range m {
				masked[k] = Redacted
			}
			out[f] = masked
		}
	}
	return out
}
