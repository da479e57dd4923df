package schema

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// builtinJSON is the Kubernetes API schema plumb validates built-in kinds
// against (generate.go says where it comes from).
//
//go:embed data/kubernetes.json
var builtinJSON []byte

// EmbeddedKubernetesVersion is the Kubernetes release whose API schema is
// embedded.
const EmbeddedKubernetesVersion = "1.37"

// apiType is one type of the built-in schema, linked: properties and
// elements point at their types.
type apiType struct {
	kind string
	// name is the OpenAPI definition name of a named type ("" otherwise).
	name  string
	props map[string]*apiField
	// propNames are the property names, sorted (for suggestions).
	propNames       []string
	required        []string
	elem            *apiType
	preserveUnknown bool
}

// apiField is a property of an object type: its type, and the values the
// API accepts when it validates a fixed set the schema does not declare.
type apiField struct {
	typ  *apiType
	enum *enumRule
}

// builtinSchema is the linked built-in schema.
type builtinSchema struct {
	kinds map[string]*apiType // "group/version/Kind"
	// versions lists the versions of each built-in group ("" is core), and
	// kindsOf the kinds of each group/version, both sorted.
	versions map[string][]string
	kindsOf  map[string][]string
	// objectMeta is ObjectMeta's type, which custom resources' metadata is
	// checked against too.
	objectMeta *apiType
}

var (
	builtinOnce sync.Once
	builtin     *builtinSchema
	builtinErr  error
)

// loadBuiltin links the embedded schema once per process.
func loadBuiltin() (*builtinSchema, error) {
	builtinOnce.Do(func() { builtin, builtinErr = linkSchema(builtinJSON, enumTable, requiredNotEnforced) })
	return builtin, builtinErr
}

func linkSchema(data []byte, enums map[string]map[string]*enumRule, required map[string]map[string]string) (*builtinSchema, error) {
	var c compactSchema
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("the embedded Kubernetes schema: %w", err)
	}
	types := make([]*apiType, len(c.Types))
	for i := range c.Types {
		types[i] = &apiType{}
	}
	at := func(i int) (*apiType, error) {
		if i < 0 || i >= len(types) {
			return nil, fmt.Errorf("the embedded Kubernetes schema: type %d out of range", i)
		}
		return types[i], nil
	}
	for i, ct := range c.Types {
		t := types[i]
		t.kind, t.name, t.required, t.preserveUnknown = ct.Kind, ct.Name, ct.Required, ct.PreserveUnknown
		if ct.Elem != nil {
			e, err := at(*ct.Elem)
			if err != nil {
				return nil, err
			}
			t.elem = e
		}
		if len(ct.Props) > 0 {
			t.props = make(map[string]*apiField, len(ct.Props))
			for name, pi := range ct.Props {
				pt, err := at(pi)
				if err != nil {
					return nil, err
				}
				t.props[name] = &apiField{typ: pt}
				t.propNames = append(t.propNames, name)
			}
			slices.Sort(t.propNames)
		}
	}
	byName := map[string]*apiType{}
	for _, t := range types {
		if t.name != "" {
			byName[t.name] = t
		}
	}
	if err := enforceRequired(types, byName, required); err != nil {
		return nil, err
	}
	for def, props := range enums {
		t := byName[def]
		if t == nil {
			return nil, fmt.Errorf("enum table: no definition %s in the embedded schema", def)
		}
		for prop, rule := range props {
			f := t.props[prop]
			if f == nil {
				return nil, fmt.Errorf("enum table: %s has no property %s", def, prop)
			}
			want := f.typ.kind
			if rule.items {
				if f.typ.kind != kindArray {
					return nil, fmt.Errorf("enum table: %s.%s is not a list", def, prop)
				}
				want = f.typ.elem.kind
			}
			if want != kindString {
				return nil, fmt.Errorf("enum table: %s.%s is not a string", def, prop)
			}
			f.enum = rule
		}
	}
	s := &builtinSchema{kinds: map[string]*apiType{}, versions: map[string][]string{}, kindsOf: map[string][]string{},
		objectMeta: byName["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"]}
	for key, i := range c.Kinds {
		t, err := at(i)
		if err != nil {
			return nil, err
		}
		s.kinds[key] = t
		gv, kind := key[:strings.LastIndexByte(key, '/')], key[strings.LastIndexByte(key, '/')+1:]
		group, version := splitGroupVersion(gv)
		if !slices.Contains(s.versions[group], version) {
			s.versions[group] = append(s.versions[group], version)
		}
		s.kindsOf[gv] = append(s.kindsOf[gv], kind)
	}
	for _, v := range s.versions {
		slices.Sort(v)
	}
	for _, k := range s.kindsOf {
		slices.Sort(k)
	}
	return s, nil
}

// splitGroupVersion splits an apiVersion into group ("" for core) and
// version.
func splitGroupVersion(apiVersion string) (group, version string) {
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i], apiVersion[i+1:]
	}
	return "", apiVersion
}

// lookup returns the schema of apiVersion/kind, nil when it is not a
// built-in kind.
func (s *builtinSchema) lookup(apiVersion, kind string) *apiType {
	return s.kinds[apiVersion+"/"+kind]
}

// isBuiltinGroup reports whether group is one of Kubernetes' own API
// groups ("" for core).
func (s *builtinSchema) isBuiltinGroup(group string) bool {
	_, ok := s.versions[group]
	return ok
}
