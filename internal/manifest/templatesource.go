package manifest

import (
	"bytes"
	"path"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// SkipTemplateSource is a file that is the source of a template, not a
// manifest: its placeholders ({{ }}, {NAME}, ${NAME}) are filled in by a
// tool before anything is applied, so it is neither a syntax error nor an
// object to check (templatesource.go).
const SkipTemplateSource SkipReason = "template source"

// templateExtensions mark a file as a template whatever it holds: Go
// templates (Helm's helpers, gomplate), Jinja.
var templateExtensions = []string{".tmpl", ".tpl", ".gotmpl", ".j2", ".jinja", ".jinja2"}

// templateNameMarkers mark a YAML or JSON file as a template when it also
// holds a placeholder: "deploy.template.yaml", "etcd-controller-template.yaml".
// Without a placeholder such a file is read (a PodTemplate, an example).
var templateNameMarkers = []string{".template.", "-template.", "_template.", ".tmpl.", ".tpl.", ".gotmpl.", ".j2."}

var (
	// A Go template action, on one line: {{ .Values.x }}, {{uid}}.
	actionRE = regexp.MustCompile(`\{\{.*?\}\}`)
	// A line that is only template actions ({{- if .x }}, {{ end }}).
	actionLineRE = regexp.MustCompile(`^\s*(\{\{.*?\}\}\s*)+$`)
	// Shell and Flux/clusterctl substitution: ${NAME}, ${NAME:-default}, ${NAME:=default}.
	dollarRE = regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*(?:(?::?[-=+?])[^}\n]*)?\}`)
	// A brace placeholder: {IMAGE}, {namespace}.
	braceRE = regexp.MustCompile(`\{[A-Za-z_][A-Za-z0-9_]*\}`)
	// An upper-case brace placeholder, which YAML reads as a one-key flow
	// mapping ({IMAGE: null}) instead of failing.
	upperBraceRE = regexp.MustCompile(`\{[A-Z][A-Z0-9_]*\}`)
)

// IsTemplateName reports whether a file's name alone marks it as a
// template (templateExtensions).
func IsTemplateName(name string) bool {
	base := strings.ToLower(path.Base(name))
	for _, ext := range templateExtensions {
		if strings.HasSuffix(base, ext) {
			return true
		}
	}
	return false
}

// hasTemplateNameMarker reports whether a manifest-named file says in its
// name that it is a template (templateNameMarkers).
func hasTemplateNameMarker(name string) bool {
	base := strings.ToLower(path.Base(name))
	for _, m := range templateNameMarkers {
		if strings.Contains(base, m) {
			return true
		}
	}
	return false
}

// hasPlaceholder reports whether data holds a template placeholder.
func hasPlaceholder(data []byte) bool {
	return bytes.Contains(data, []byte("{{")) || dollarRE.Match(data) || braceRE.Match(data)
}

// IsTemplateSource reports whether the file name, whose content is data
// and whose parse gave docs and problems, is a template source: its name
// is a template's; or its name says template and it holds a placeholder;
// or it fails to parse only because of its placeholders (with each
// placeholder replaced by a plain word it parses); or it parses to a
// one-key flow mapping where an upper-case placeholder stands (image:
// {IMAGE}). An OpenShift Template is an object plumb processes, never a
// template source.
func IsTemplateSource(name string, data []byte, docs []*Document, problems []Problem) bool {
	if IsTemplateName(name) {
		return true
	}
	if hasOpenShiftTemplate(docs) {
		return false
	}
	if hasTemplateNameMarker(name) && hasPlaceholder(data) {
		return true
	}
	if hasSyntaxError(problems) {
		return hasPlaceholder(data) && parsesWithoutPlaceholders(name, data)
	}
	return upperBraceRE.Match(data) && hasFlowPlaceholder(docs)
}

func hasSyntaxError(problems []Problem) bool {
	for _, p := range problems {
		if p.Rule == RuleYAMLSyntax {
			return true
		}
	}
	return false
}

func hasOpenShiftTemplate(docs []*Document) bool {
	for _, d := range docs {
		m, _ := d.Value.(map[string]any)
		av, _ := m["apiVersion"].(string)
		if k, _ := m["kind"].(string); k == "Template" && (av == "v1" || strings.HasPrefix(av, "template.openshift.io/")) {
			return true
		}
	}
	return false
}

// parsesWithoutPlaceholders replaces every placeholder by a plain word
// (and a line of template actions alone by nothing) and reports whether
// the result parses. Lines are kept, so the cost is one more parse.
func parsesWithoutPlaceholders(name string, data []byte) bool {
	lines := bytes.Split(data, []byte("\n"))
	for i, l := range lines {
		if actionLineRE.Match(l) {
			lines[i] = nil
			continue
		}
		l = actionRE.ReplaceAll(l, []byte("x"))
		l = dollarRE.ReplaceAll(l, []byte("x"))
		lines[i] = braceRE.ReplaceAll(l, []byte("x"))
	}
	_, problems := Parse(name, bytes.Join(lines, []byte("\n")), Limits{})
	return !hasSyntaxError(problems)
}

// hasFlowPlaceholder reports whether a document holds {NAME} read as a
// flow mapping with one upper-case key and no value: a placeholder, as no
// Kubernetes field takes such a mapping.
func hasFlowPlaceholder(docs []*Document) bool {
	for _, d := range docs {
		if walkNodes(d.Node, isFlowPlaceholder) {
			return true
		}
	}
	return false
}

func isFlowPlaceholder(n *yaml.Node) bool {
	if n.Kind != yaml.MappingNode || n.Style&yaml.FlowStyle == 0 || len(n.Content) != 2 {
		return false
	}
	k, v := n.Content[0], n.Content[1]
	return k.Kind == yaml.ScalarNode && k.Style == 0 && upperBraceRE.MatchString("{"+k.Value+"}") &&
		v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" && v.Value == ""
}

// walkNodes reports whether match holds for n or a node below it (aliases
// are not followed: their targets are walked where they are defined).
func walkNodes(n *yaml.Node, match func(*yaml.Node) bool) bool {
	if n == nil {
		return false
	}
	if match(n) {
		return true
	}
	for _, c := range n.Content {
		if walkNodes(c, match) {
			return true
		}
	}
	return false
}
