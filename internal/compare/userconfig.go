package compare

import (
	"fmt"
	"slices"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// UserConfig is the diff configuration (-c / --diff-config): settings that
// belong to one cluster rather than to the reference.
type UserConfig struct {
	File string
	// CorrelationPairs maps an input identity (apiVersion_kind_namespace_name,
	// or apiVersion_kind_name) to the template it must be compared with.
	CorrelationPairs map[string]string
}

// ReadUserConfig reads a diff configuration file and checks that every
// manual pair names a template of ref.
func ReadUserConfig(file, display string, ref *Reference) (*UserConfig, Problems) {
	data, err := manifest.ReadRegularFile(file, maxTemplateBytes)
	if err != nil {
		return nil, Problems{{Location: loc(display, 0), Message: fmt.Sprintf("cannot read the diff config: %v", cleanPathErr(err))}}
	}
	return ParseUserConfig(display, data, ref)
}

// ParseUserConfig parses diff configuration content (strictly; keys match
// case-insensitively as in kube-compare).
func ParseUserConfig(file string, data []byte, ref *Reference) (*UserConfig, Problems) {
	cfg := &UserConfig{File: file, CorrelationPairs: map[string]string{}}
	root, ps := parseYAMLNode(file, data)
	if len(ps) > 0 {
		return nil, ps
	}
	if root == nil {
		return cfg, nil
	}
	r := newNodeReader(file, data)
	top := r.fields(root, "diff config", []string{"correlationSettings"}, false)
	cs := r.fields(top["correlationSettings"], "correlationSettings", []string{"manualCorrelation"}, false)
	mc := r.fields(cs["manualCorrelation"], "correlationSettings.manualCorrelation", []string{"correlationPairs"}, false)
	for _, kv := range r.pairs(mc["correlationPairs"], "correlationSettings.manualCorrelation.correlationPairs") {
		cr := kv[0].Value
		tpl := r.str(kv[1], "correlationPairs."+cr)
		if tpl == "" {
			continue
		}
		if ref != nil && ref.Template(tpl) == nil {
			r.errorf(kv[0], "error in template manual matching for resource: %s no template in the name of %s (templates: %s)",
				cr, tpl, templateList(ref))
			continue
		}
		cfg.CorrelationPairs[cr] = tpl
	}
	if len(r.problems) > 0 {
		return nil, r.problems
	}
	return cfg, nil
}

func templateList(ref *Reference) string {
	names := make([]string, 0, len(ref.Templates))
	for _, t := range ref.Templates {
		names = append(names, t.Path)
	}
	slices.Sort(names)
	if len(names) > 10 {
		return fmt.Sprintf("%s, ... (%d in all)", joinComma(names[:10]), len(names))
	}
	return joinComma(names)
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ", "
		}
		out += x
	}
	return out
}
