package checks

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// selector picks objects of the render target:
//
//	kind=Deployment|StatefulSet,namespace=$namespace,label:app=web,annotation:team,names=source,field=metadata.name
//
// Terms are comma-separated and all must hold. $namespace and $name stand
// for the target object's namespace and name (object checks only). Two
// terms shape what objects@v1 returns rather than which objects it picks:
// names=source gives each object the name written in its source (see
// manifest.Object.SourceName), and field= (last, it takes the rest of the
// argument) projects each object to one field, as manifest@v1 paths do.
type selector struct {
	raw         string
	kinds       []string
	apiVersion  string
	namespace   string
	name        string
	labels      []selTerm
	annotations []selTerm
	field       *fieldPath
	// sourceNames: returned objects carry their name as written in the
	// source, so that environments that prefix or suffix names compare.
	sourceNames bool
}

type selTerm struct {
	key, value string
	hasValue   bool
}

// parseSelector reads a selector; returnsObjects allows the terms that shape
// returned objects (objects@v1's, not count@v1's).
func parseSelector(arg string, tt TargetType, returnsObjects bool) (*selector, error) {
	s := &selector{raw: arg}
	rest := strings.TrimSpace(arg)
	for rest != "" {
		var term string
		if strings.HasPrefix(rest, "field=") {
			term, rest = rest, ""
		} else {
			term, rest, _ = strings.Cut(rest, ",")
			rest = strings.TrimSpace(rest)
		}
		term = strings.TrimSpace(term)
		if term == "" {
			continue
		}
		if k, ok := strings.CutPrefix(term, "label:"); ok {
			s.labels = append(s.labels, parseSelTerm(k))
			continue
		}
		if k, ok := strings.CutPrefix(term, "annotation:"); ok {
			s.annotations = append(s.annotations, parseSelTerm(k))
			continue
		}
		key, value, ok := strings.Cut(term, "=")
		if !ok {
			return nil, fmt.Errorf("selector term %q: want key=value (kind, apiVersion, namespace, name, names, field), label:key[=value] or annotation:key[=value]", term)
		}
		value = strings.TrimSpace(value)
		switch strings.TrimSpace(key) {
		case "kind":
			for _, k := range strings.Split(value, "|") {
				if k = strings.TrimSpace(k); k != "" {
					s.kinds = append(s.kinds, k)
				}
			}
		case "apiVersion":
			s.apiVersion = value
		case "namespace":
			s.namespace = value
		case "name":
			s.name = value
		case "names":
			if !returnsObjects {
				return nil, fmt.Errorf("selector term %q: names= shapes the returned objects and only objects@v1 takes it", term)
			}
			switch value {
			case "source":
				s.sourceNames = true
			case "rendered":
				s.sourceNames = false
			default:
				return nil, fmt.Errorf("selector term %q: want names=source (the names written in the manifests, before kustomize's namePrefix, nameSuffix and hash) or names=rendered (the default)", term)
			}
		case "field":
			if !returnsObjects {
				return nil, fmt.Errorf("selector term %q: field= projects objects and only objects@v1 takes it", term)
			}
			fp, err := parseFieldPath(value)
			if err != nil {
				return nil, err
			}
			if fp.pod {
				return nil, fmt.Errorf("selector term %q: $pod is not available in field=", term)
			}
			s.field = fp
		default:
			return nil, fmt.Errorf("selector term %q: unknown key %q (want kind, apiVersion, namespace, name, names, field, label:, annotation:)", term, key)
		}
	}
	for _, v := range []string{s.namespace, s.name} {
		if strings.HasPrefix(v, "$") && v != "$namespace" && v != "$name" {
			return nil, fmt.Errorf("selector %q: unknown variable %s (want $namespace or $name)", arg, v)
		}
		if strings.HasPrefix(v, "$") && tt == TargetGroup {
			return nil, fmt.Errorf("selector %q: %s stands for the target object's field and a group check has no target object", arg, v)
		}
	}
	return s, nil
}

func parseSelTerm(s string) selTerm {
	k, v, ok := strings.Cut(s, "=")
	return selTerm{key: strings.TrimSpace(k), value: strings.TrimSpace(v), hasValue: ok}
}

// resolve replaces $namespace and $name with the target object's.
func (s *selector) resolve(t *targetIndex, v string, self *manifest.Object) string {
	if self == nil {
		return v
	}
	switch v {
	case "$namespace":
		return t.namespaceOf(self)
	case "$name":
		return self.ID.Name
	}
	return v
}

// selection is the cached outcome of a selector in one render target.
type selection struct {
	objects []*manifest.Object
	values  []any
	items   []item
}

func (s *selector) sel(t *targetIndex, self *manifest.Object) *selection {
	ns, name := s.resolve(t, s.namespace, self), s.resolve(t, s.name, self)
	key := s.raw + "\x00" + ns + "\x00" + name
	if c, ok := t.cache.Load(key); ok {
		return c.(*selection)
	}
	var cands []*manifest.Object
	if len(s.kinds) == 0 {
		cands = t.objects
	} else {
		for _, k := range s.kinds {
			cands = append(cands, t.byKind[k]...)
		}
	}
	out := &selection{}
	for _, o := range cands {
		if s.apiVersion != "" && o.ID.APIVersion != s.apiVersion ||
			s.namespace != "" && t.namespaceOf(o) != ns ||
			s.name != "" && o.ID.Name != name ||
			!termsMatch(s.labels, o.Labels()) || !termsMatch(s.annotations, o.Annotations()) {
			continue
		}
		out.objects = append(out.objects, o)
	}
	slices.SortStableFunc(out.objects, func(a, b *manifest.Object) int { return a.ID.Compare(b.ID) })
	out.values = make([]any, len(out.objects))
	out.items = make([]item, len(out.objects))
	for i, o := range out.objects {
		content := t.content(o)
		if s.sourceNames {
			content = withWrittenName(content, o)
		}
		out.values[i] = content
		out.items[i] = item{key: i, at: objectOrigin(o)}
		if s.field != nil {
			out.values[i] = nil
			if ms, at, err := s.field.resolve(o, content, "objects"); err == nil {
				out.items[i].at.path = at
				if !s.field.wildcard() {
					out.values[i] = ms[0].value
				} else {
					vs := make([]any, len(ms))
					for j, m := range ms {
						vs[j] = m.value
					}
					out.values[i] = vs
				}
			}
		}
	}
	actual, _ := t.cache.LoadOrStore(key, out)
	return actual.(*selection)
}

// withWrittenName returns content with metadata.name replaced by the name
// the object has in its source; the content itself is left alone (it is
// shared with every other check).
func withWrittenName(content map[string]any, o *manifest.Object) map[string]any {
	md, ok := content["metadata"].(map[string]any)
	if o.SourceName == "" || !ok {
		return content
	}
	out := maps.Clone(content)
	omd := maps.Clone(md)
	omd["name"] = o.SourceName
	out["metadata"] = omd
	return out
}

func termsMatch(terms []selTerm, m map[string]string) bool {
	for _, t := range terms {
		v, ok := m[t.key]
		if !ok || t.hasValue && v != t.value {
			return false
		}
	}
	return true
}

const selectorDoc = "a selector: comma-separated kind=A|B, apiVersion=, namespace= (or $namespace: the target object's), " +
	"name= (or $name), label:key[=value], annotation:key[=value]"

var objectsGatherer = &gathererDef{
	name: "objects", version: 1, group: true, manyObjects: true,
	Summary: "The objects of the same render target that match a selector, sorted by kind, namespace and name " +
		"(Secret values redacted). With names=source each object's metadata.name is the name written in its " +
		"manifest (before kustomize's namePrefix, nameSuffix, renaming patches and generator hash), so that " +
		"environments compare; the selector's name= still matches the rendered name. " +
		"With field=PATH each object is replaced by that field (null when absent).",
	Argument: selectorDoc + "; optionally names=source and a last term field=PATH",
	prepare: func(arg string, tt TargetType) (gatherFunc, error) {
		s, err := parseSelector(arg, tt, true)
		if err != nil {
			return nil, err
		}
		return func(sub *subject) gathered {
			sel := s.sel(sub.target, sub.obj)
			return gathered{value: sel.values, items: sel.items, objects: sel.objects}
		}, nil
	},
}

var countGatherer = &gathererDef{
	name: "count", version: 1, group: true,
	Summary:  "The number of objects of the same render target that match a selector.",
	Argument: selectorDoc,
	prepare: func(arg string, tt TargetType) (gatherFunc, error) {
		s, err := parseSelector(arg, tt, false)
		if err != nil {
			return nil, err
		}
		return func(sub *subject) gathered {
			sel := s.sel(sub.target, sub.obj)
			return gathered{value: int64(len(sel.objects)), objects: sel.objects}
		}, nil
	},
}
