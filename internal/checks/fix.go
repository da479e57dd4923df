package checks

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plumb-ci/plumb/internal/finding"
	"github.com/plumb-ci/plumb/internal/manifest"
)

// A check may declare the mechanical fix of what it finds, a plumb
// extension of the Trento format:
//
//	fix:
//	  description: run as a non-root user   # optional
//	  set:
//	    securityContext.runAsNonRoot: true
//
// Each key of set is a field path and its value what the field gets. A
// path is relative to the field the finding points at (a container, for
// checks that read containers@v1); "$pod." starts at the pod spec of the
// workload and "$object." at the object. The fix stage finds where the
// field is written — the plain file, the kustomize base or overlay patch,
// a values file — and review comments suggest the edit there.

var fixKeys = []string{"description", "set"}

// FixDecl is a check's declared fix.
type FixDecl struct {
	Description string
	Sets        []FixSet
}

// FixSet is one field the fix sets.
type FixSet struct {
	// Raw is the path as written; Path the path after its $pod. or
	// $object. prefix, From that prefix ("" for the finding's field).
	Raw   string
	From  string
	Path  manifest.Path
	Value any
}

func (p *parser) fix(f field) {
	fs := p.mapping(f.value, "fix", fixKeys)
	if fs == nil {
		return
	}
	decl := &FixDecl{}
	decl.Description, _ = p.str(fs["description"], "fix.description", false)
	sf, ok := fs["set"]
	if !ok {
		p.errorf(f.value, "fix", "missing required key \"set\": the fields the fix sets and their values")
		return
	}
	if sf.value.Kind != yaml.MappingNode || len(sf.value.Content) == 0 {
		p.errorf(sf.value, "fix.set", "must be a mapping of field paths to values, not %s", describeNode(sf.value))
		return
	}
	for i := 0; i+1 < len(sf.value.Content); i += 2 {
		k, v := sf.value.Content[i], sf.value.Content[i+1]
		at := "fix.set." + k.Value
		set := FixSet{Raw: k.Value}
		rest := k.Value
		for _, prefix := range []string{"$pod", "$object"} {
			if r, ok := strings.CutPrefix(rest, prefix+"."); ok {
				set.From, rest = prefix, r
			}
		}
		if strings.HasPrefix(rest, "$") {
			p.errorf(k, at, "a fix path starts at the finding's field, $pod. or $object., not %q", k.Value)
			continue
		}
		path, err := manifest.ParsePath(rest)
		if err != nil || len(path) == 0 {
			p.errorf(k, at, "not a field path: %v", err)
			continue
		}
		if strings.Contains(rest, "[*]") {
			p.errorf(k, at, "a fix sets one field: [*] is not allowed")
			continue
		}
		if v.ShortTag() == "!!null" {
			p.errorf(v, at, "must not be null: a fix sets a value")
			continue
		}
		set.Path = path
		set.Value = p.value(manifest.Path{manifest.Key("fix"), manifest.Key("set"), manifest.Key(k.Value)})
		decl.Sets = append(decl.Sets, set)
	}
	if len(decl.Sets) > 0 {
		p.check.Fix = decl
	}
}

// findingFix is the fix of a finding the check made about field at of
// object obj: the declared paths made absolute.
func (c *Check) findingFix(obj *manifest.Object, at manifest.Path) *finding.Fix {
	if c.Fix == nil || obj == nil {
		return nil
	}
	fx := &finding.Fix{Description: c.Fix.Description}
	var said []string
	for _, s := range c.Fix.Sets {
		var base manifest.Path
		switch s.From {
		case "$pod":
			pp, ok := podSpecPath(obj.ID.Kind)
			if !ok {
				return nil
			}
			base = pp
		case "":
			if len(at) == 0 {
				return nil // the finding points at no field to start from
			}
			base = at
		}
		fx.Changes = append(fx.Changes, finding.Change{Op: finding.ChangeSet, Path: base.Child(s.Path...), Value: s.Value})
		said = append(said, fmt.Sprintf("%s: %s", s.Path, flowValue(s.Value)))
	}
	if fx.Description == "" {
		fx.Description = "set " + strings.Join(said, ", ")
	}
	return fx
}

// flowValue prints a value as YAML flow text: true, [ALL], {type: X}.
func flowValue(v any) string {
	switch t := v.(type) {
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = flowValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		parts := make([]string, 0, len(t))
		for _, k := range sortedMapKeys(t) {
			parts = append(parts, k+": "+flowValue(t[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

func sortedMapKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
