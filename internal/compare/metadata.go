package compare

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// metadata is the decoded entry file before templates are read.
type metadata struct {
	version       int
	parts         []*Part
	templates     []*Template
	functionFiles []string
	// functionFileLines are the functionFiles' lines in the metadata file.
	functionFileLines []int
	omitRaw           map[string][]rawOmitEntry
	omitLines         map[string]int
	defaultOmit       string
}

// readVersion decides between v1 and v2: no apiVersion key means v1.
func readVersion(r *nodeReader, root *yaml.Node) int {
	root = resolveAlias(root)
	if root.Kind != yaml.MappingNode {
		r.errorf(root, "Reference config isn't in correct format: expected a mapping with parts")
		return 0
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if !strings.EqualFold(root.Content[i].Value, "apiVersion") {
			continue
		}
		v := resolveAlias(root.Content[i+1])
		switch strings.ToLower(strings.TrimSpace(v.Value)) {
		case "v1":
			return 1
		case "v2":
			return 2
		}
		r.errorf(v, "unknown reference file apiVersion: '%s' (want v1 or v2)", v.Value)
		return 0
	}
	return 1
}

// decodeMetadata reads the entry file strictly (unknown keys are errors,
// except inside v2 template entries, where they are warnings).
func decodeMetadata(r *nodeReader, root *yaml.Node, version int) *metadata {
	md := &metadata{version: version, omitLines: map[string]int{}}
	top := r.fields(root, "metadata", []string{"apiVersion", "parts", "templateFunctionFiles", "fieldsToOmit"}, false)
	for i, c := range r.seq(top["templateFunctionFiles"], "templateFunctionFiles") {
		where := fmt.Sprintf("templateFunctionFiles[%d]", i)
		if !r.checkInside(c, where) {
			continue // reported here; the loader must not read it
		}
		if f := r.str(c, where); f != "" {
			md.functionFiles = append(md.functionFiles, f)
			md.functionFileLines = append(md.functionFileLines, c.Line)
		}
	}
	if n := top["fieldsToOmit"]; n != nil {
		md.decodeOmit(r, n)
	}
	partKeys := []string{"name", "components"}
	if version == 2 {
		partKeys = []string{"name", "description", "components"}
	}
	for i, pn := range r.seq(top["parts"], "parts") {
		where := fmt.Sprintf("parts[%d]", i)
		pf := r.fields(pn, where, partKeys, false)
		part := &Part{Name: r.str(pf["name"], where+".name"), Description: r.str(pf["description"], where+".description"), Line: pn.Line}
		md.parts = append(md.parts, part)
		for j, cn := range r.seq(pf["components"], where+".components") {
			cwhere := fmt.Sprintf("%s.components[%d]", where, j)
			if version == 1 {
				md.componentV1(r, part, cn, cwhere)
			} else {
				md.componentV2(r, part, cn, j, cwhere)
			}
		}
	}
	return md
}

func (md *metadata) componentV1(r *nodeReader, part *Part, n *yaml.Node, where string) {
	f := r.fields(n, where, []string{"name", "type", "requiredTemplates", "optionalTemplates"}, false)
	c := &Component{Name: r.str(f["name"], where+".name"), Type: r.str(f["type"], where+".type"), Line: n.Line, Part: part}
	part.Components = append(part.Components, c)
	c.Templates = md.templateList(r, c, f["requiredTemplates"], where+".requiredTemplates", false)
	c.Optional = md.templateList(r, c, f["optionalTemplates"], where+".optionalTemplates", false)
	if c.Type != TypeRequired && c.Type != TypeOptional && len(c.Templates) > 0 {
		what := "has no type"
		if c.Type != "" {
			what = fmt.Sprintf("has type %q", c.Type)
		}
		r.warnf(n, "%s: component %q %s; only %q and %q (exact case) report missing required templates, so this component never will",
			where, c.Name, what, TypeRequired, TypeOptional)
	}
}

func (md *metadata) componentV2(r *nodeReader, part *Part, n *yaml.Node, index int, where string) {
	keys := append([]string{"name", "description"}, groupTypes...)
	f := r.fields(n, where, keys, false)
	c := &Component{Name: r.str(f["name"], where+".name"), Description: r.str(f["description"], where+".description"), Line: n.Line, Part: part}
	part.Components = append(part.Components, c)
	var present []string
	for _, g := range groupTypes {
		if _, ok := f[g]; ok {
			present = append(present, g)
		}
	}
	switch len(present) {
	case 0:
		r.errorf(n, "component %s has no templates (give exactly one of %s)", c.Name, strings.Join(groupTypes, ", "))
		return
	case 1:
	default:
		r.errorf(n, "too many keys (%s) in index %d of component %s: give exactly one of %s",
			strings.Join(present, ","), index, c.Name, strings.Join(groupTypes, ", "))
		return
	}
	c.Group = present[0]
	c.Templates = md.templateList(r, c, f[c.Group], where+"."+c.Group, true)
}

// templateList reads template entries. v2 entries are lenient: kube-compare
// ignores unknown keys there, plumb warns about them.
func (md *metadata) templateList(r *nodeReader, c *Component, n *yaml.Node, where string, v2 bool) []*Template {
	var out []*Template
	for i, tn := range r.seq(n, where) {
		twhere := fmt.Sprintf("%s[%d]", where, i)
		f := r.fields(tn, twhere, []string{"path", "description", "config"}, v2)
		t := &Template{Path: r.str(f["path"], twhere+".path"), Description: r.str(f["description"], twhere+".description"),
			Line: tn.Line, Component: c}
		if _, ok := f["path"]; !ok || t.Path == "" {
			r.errorf(tn, "%s: a template entry needs a path", twhere)
			continue
		}
		if !r.checkInside(f["path"], twhere+".path") {
			continue
		}
		if v2 && t.Description == "" {
			t.Description = c.Description
			if t.Description == "" {
				t.Description = c.Part.Description
			}
		}
		configKeys := []string{"ignore-unspecified-fields", "fieldsToOmitRefs"}
		if v2 {
			configKeys = append(configKeys, "perField")
		}
		cf := r.fields(f["config"], twhere+".config", configKeys, v2)
		t.Config.IgnoreUnspecifiedFields = r.boolean(cf["ignore-unspecified-fields"], twhere+".config.ignore-unspecified-fields")
		t.Config.FieldsToOmitRefs = r.strList(cf["fieldsToOmitRefs"], twhere+".config.fieldsToOmitRefs")
		for j, pn := range r.seq(cf["perField"], twhere+".config.perField") {
			pwhere := fmt.Sprintf("%s.config.perField[%d]", twhere, j)
			pf := r.fields(pn, pwhere, []string{"pathToKey", "inlineDiffFunc"}, true)
			t.Config.PerField = append(t.Config.PerField, PerField{
				PathToKey:      r.str(pf["pathToKey"], pwhere+".pathToKey"),
				InlineDiffFunc: r.str(pf["inlineDiffFunc"], pwhere+".inlineDiffFunc"),
				Line:           pn.Line,
			})
		}
		out = append(out, t)
		md.templates = append(md.templates, t)
	}
	return out
}

func (md *metadata) decodeOmit(r *nodeReader, n *yaml.Node) {
	f := r.fields(n, "fieldsToOmit", []string{"defaultOmitRef", "items"}, false)
	md.defaultOmit = r.str(f["defaultOmitRef"], "fieldsToOmit.defaultOmitRef")
	if d := f["defaultOmitRef"]; d != nil {
		md.omitLines["\x00default"] = d.Line
	}
	entryKeys := []string{"pathToKey", "isPrefix"}
	if md.version == 2 {
		entryKeys = append(entryKeys, "include")
	}
	md.omitRaw = map[string][]rawOmitEntry{}
	for _, kv := range r.pairs(f["items"], "fieldsToOmit.items") {
		name := kv[0].Value
		where := "fieldsToOmit.items." + name
		md.omitLines[name] = kv[0].Line
		var entries []rawOmitEntry
		for i, en := range r.seq(kv[1], where) {
			ewhere := fmt.Sprintf("%s[%d]", where, i)
			ef := r.fields(en, ewhere, entryKeys, false)
			e := rawOmitEntry{
				pathToKey: r.str(ef["pathToKey"], ewhere+".pathToKey"),
				isPrefix:  r.boolean(ef["isPrefix"], ewhere+".isPrefix"),
				include:   r.str(ef["include"], ewhere+".include"),
				line:      en.Line,
			}
			entries = append(entries, e)
			if segs, err := parseKeyPath(e.pathToKey); err == nil && slices.ContainsFunc(segs, isNumeric) {
				r.warnf(en, "%s: omission paths cannot index lists; the numeric segment only matches a mapping key of that name", ewhere)
			}
		}
		md.omitRaw[name] = entries
	}
}

func isNumeric(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// checkInside reports a file path of the metadata that leaves the
// reference directory, at the line that names it: the loader would refuse
// to read it anyway, but a problem located at the path itself would name a
// file outside the reference (a pull request's "../../etc/passwd").
func (r *nodeReader) checkInside(n *yaml.Node, where string) bool {
	n = resolveAlias(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.Value == "" {
		return true
	}
	if clean := path.Clean(filepath.ToSlash(n.Value)); !fs.ValidPath(clean) || clean == "." {
		r.errorf(n, "%s: %q is not a file inside the reference directory: paths are relative to it and may not start with / or leave it with ..", where, n.Value)
		return false
	}
	return true
}
