package change

import (
	"fmt"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// dig walks nested mappings by key.
func dig(v any, keys ...string) (any, bool) {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// str is the string at keys, "" when absent or not a string.
func str(v any, keys ...string) string {
	s, _ := dig(v, keys...)
	out, _ := s.(string)
	return out
}

func mapping(v any, keys ...string) map[string]any {
	m, _ := dig(v, keys...)
	out, _ := m.(map[string]any)
	return out
}

func list(v any, keys ...string) []any {
	l, _ := dig(v, keys...)
	out, _ := l.([]any)
	return out
}

// path builds a field path from keys.
func path(keys ...string) manifest.Path {
	p := make(manifest.Path, len(keys))
	for i, k := range keys {
		p[i] = manifest.Key(k)
	}
	return p
}

// show prints a value short and on one line for a message.
func show(v any) string {
	switch t := v.(type) {
	case nil:
		return "(unset)"
	case string:
		return fmt.Sprintf("%q", t)
	case map[string]any, []any:
		s := flow(t)
		if len(s) > 120 {
			s = s[:117] + "..."
		}
		return s
	}
	return fmt.Sprint(v)
}

// flow prints a value tree in YAML flow style with sorted keys.
func flow(v any) string {
	switch t := v.(type) {
	case map[string]any:
		keys := sortedKeys(t)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + flow(t[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(t))
		for i, c := range t {
			parts[i] = flow(c)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case string:
		return t
	}
	return fmt.Sprint(v)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// describe names an object for a message: Kind namespace/name.
func describe(id manifest.ObjectID) string {
	if id.Namespace != "" {
		return id.Kind + " " + id.Namespace + "/" + id.Name
	}
	return id.Kind + " " + id.Name
}

// at is a finding of rule about obj at field p (the object's document
// start when p is absent from it).
func at(rule string, level finding.Level, obj *manifest.Object, p manifest.Path, title, msg string) finding.Finding {
	loc, exact := obj.Locate(p)
	if !exact && loc.IsZero() {
		loc, _ = obj.Locate(nil)
	}
	return finding.Finding{
		RuleID:   rule,
		Level:    level,
		Title:    title,
		Message:  msg,
		Help:     ruleHelp[rule],
		Object:   obj.ID,
		Path:     p,
		Location: loc,
	}
}

// recreatedByTool reports whether the object asks its GitOps tool to
// delete and recreate it when an update is refused (Argo CD's
// Replace=true or Force=true sync options, Flux's force annotation): the
// change is then applied, not rejected.
func recreatedByTool(o *manifest.Object) bool {
	a := o.Annotations()
	if opts := a["argocd.argoproj.io/sync-options"]; opts != "" {
		for _, opt := range strings.Split(opts, ",") {
			switch strings.TrimSpace(opt) {
			case "Replace=true", "Force=true":
				return true
			}
		}
	}
	return a["kustomize.toolkit.fluxcd.io/force"] == "enabled"
}

// isHook reports whether Helm or Argo CD runs the object as a hook: it is
// deleted and created anew for each run, never updated.
func isHook(o *manifest.Object) bool {
	a := o.Annotations()
	return a["helm.sh/hook"] != "" || a["argocd.argoproj.io/hook"] != ""
}
