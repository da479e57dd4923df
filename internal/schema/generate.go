package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

//go:generate go run ./gen -o data/kubernetes.json

// The built-in schema is generated from the OpenAPI v3 documents that the
// Kubernetes API server publishes (api/openapi-spec/v3 in the
// k8s.io/kubernetes module) and committed as data/kubernetes.json:
//
//	go generate ./internal/schema   (go run ./gen -o data/kubernetes.json)
//
// which downloads the module with `go mod download` (or reads -spec DIR).
// TestGeneratedSchemaIsReproducible regenerates it and compares. The file
// keeps what validation needs — each type's kind, properties, required
// properties and element type — and drops descriptions, defaults and the
// patch and list extensions: about 2% of the documents' size.

// SchemaSource names the documents the embedded schema was generated from.
const SchemaSource = "k8s.io/kubernetes v1.37.2 api/openapi-spec/v3"

// Type kinds of the compact schema.
const (
	kindObject      = "object"        // properties, required; unknown keys are errors
	kindFreeObject  = "free-object"   // any keys, but an object
	kindMap         = "map"           // additionalProperties: every value of type elem
	kindArray       = "array"         // items of type elem
	kindString      = "string"        // JSON string
	kindBytes       = "bytes"         // string holding base64 (format: byte)
	kindInteger     = "integer"       // whole number
	kindNumber      = "number"        // any number
	kindBoolean     = "boolean"       // true or false
	kindIntOrString = "int-or-string" // intstr.IntOrString
	kindQuantity    = "quantity"      // resource.Quantity: a number or a quantity string
	kindAny         = "any"           // anything (x-kubernetes-preserve-unknown-fields, JSON)
)

// compactType is one type of the generated file. Types refer to each other
// by index into the file's type list.
type compactType struct {
	Kind string `json:"k"`
	// Name is the OpenAPI definition's name for named types.
	Name     string         `json:"n,omitempty"`
	Props    map[string]int `json:"p,omitempty"`
	Required []string       `json:"r,omitempty"`
	Elem     *int           `json:"e,omitempty"`
	// PreserveUnknown marks objects that keep fields they do not declare.
	PreserveUnknown bool `json:"u,omitempty"`
}

// compactSchema is the generated file.
type compactSchema struct {
	Source string `json:"source"`
	// Kinds maps "group/version/Kind" ("v1/Pod" for the core group) to the
	// kind's type.
	Kinds map[string]int `json:"kinds"`
	Types []compactType  `json:"types"`
}

// openAPISchema is the part of an OpenAPI v3 schema object the generator
// reads.
type openAPISchema struct {
	Ref                  string                    `json:"$ref"`
	AllOf                []openAPISchema           `json:"allOf"`
	OneOf                []openAPISchema           `json:"oneOf"`
	Type                 string                    `json:"type"`
	Format               string                    `json:"format"`
	Properties           map[string]*openAPISchema `json:"properties"`
	Required             []string                  `json:"required"`
	Items                *openAPISchema            `json:"items"`
	AdditionalProperties *openAPISchema            `json:"additionalProperties"`
	PreserveUnknown      bool                      `json:"x-kubernetes-preserve-unknown-fields"`
	GVK                  []struct {
		Group, Version, Kind string
	} `json:"x-kubernetes-group-version-kind"`
}

const refPrefix = "#/components/schemas/"

// Generate reads the OpenAPI v3 documents in specDir and returns the
// compact schema file.
func Generate(specDir string) ([]byte, error) {
	files, err := filepath.Glob(filepath.Join(specDir, "*_openapi.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no *_openapi.json documents", specDir)
	}
	slices.Sort(files)
	defs := map[string]*openAPISchema{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var doc struct {
			Components struct {
				Schemas map[string]*openAPISchema `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for name, s := range doc.Components.Schemas {
			if _, ok := defs[name]; !ok {
				defs[name] = s
			}
		}
	}
	g := &generator{defs: defs, named: map[string]int{}, anon: map[string]int{}}
	return g.run()
}

type generator struct {
	defs  map[string]*openAPISchema
	types []compactType
	named map[string]int
	anon  map[string]int
}

func (g *generator) run() ([]byte, error) {
	kinds := map[string]int{}
	var roots []string
	for name, s := range g.defs {
		for _, gvk := range s.GVK {
			if strings.HasSuffix(gvk.Kind, "List") || gvk.Kind == "WatchEvent" || gvk.Kind == "DeleteOptions" ||
				gvk.Kind == "Status" || gvk.Kind == "APIResourceList" || gvk.Kind == "APIGroup" || gvk.Kind == "APIVersions" {
				continue
			}
			if strings.HasPrefix(name, "io.k8s.apimachinery.pkg.apis.meta.") {
				continue
			}
			roots = append(roots, name)
			break
		}
	}
	slices.Sort(roots)
	// Named types reachable from the kinds get the first indexes, in name
	// order, so that the file is stable.
	reach := map[string]bool{}
	for _, r := range roots {
		g.reach(r, reach)
	}
	names := make([]string, 0, len(reach))
	for n := range reach {
		names = append(names, n)
	}
	slices.Sort(names)
	g.types = make([]compactType, len(names))
	for i, n := range names {
		g.named[n] = i
	}
	for i, n := range names {
		t, err := g.namedType(n)
		if err != nil {
			return nil, err
		}
		g.types[i] = t
	}
	for _, r := range roots {
		for _, gvk := range g.defs[r].GVK {
			gv := gvk.Version
			if gvk.Group != "" {
				gv = gvk.Group + "/" + gvk.Version
			}
			kinds[gv+"/"+gvk.Kind] = g.named[r]
		}
	}
	return encodeCompact(&compactSchema{Source: SchemaSource, Kinds: kinds, Types: g.types})
}

// reach marks the named definitions reachable from name.
func (g *generator) reach(name string, seen map[string]bool) {
	if seen[name] {
		return
	}
	seen[name] = true
	s := g.defs[name]
	if s == nil {
		return
	}
	var visit func(s *openAPISchema)
	visit = func(s *openAPISchema) {
		if s == nil {
			return
		}
		if s.Ref != "" {
			g.reach(strings.TrimPrefix(s.Ref, refPrefix), seen)
		}
		for i := range s.AllOf {
			visit(&s.AllOf[i])
		}
		for _, p := range s.Properties {
			visit(p)
		}
		visit(s.Items)
		visit(s.AdditionalProperties)
	}
	visit(s)
}

func (g *generator) namedType(name string) (compactType, error) {
	s := g.defs[name]
	if s == nil {
		return compactType{}, fmt.Errorf("definition %s is referenced but not defined", name)
	}
	switch name {
	case "io.k8s.apimachinery.pkg.api.resource.Quantity":
		return compactType{Kind: kindQuantity, Name: name}, nil
	}
	t, err := g.shape(s)
	if err != nil {
		return t, fmt.Errorf("%s: %w", name, err)
	}
	t.Name = name
	return t, nil
}

// shape converts one schema object (not a reference) to a compact type.
func (g *generator) shape(s *openAPISchema) (compactType, error) {
	if s.Format == "int-or-string" {
		return compactType{Kind: kindIntOrString}, nil
	}
	if s.PreserveUnknown && len(s.Properties) == 0 {
		return compactType{Kind: kindAny}, nil
	}
	switch s.Type {
	case "":
		if len(s.OneOf) > 0 || len(s.Properties) == 0 {
			return compactType{Kind: kindAny}, nil
		}
		fallthrough
	case "object":
		switch {
		case len(s.Properties) > 0:
			t := compactType{Kind: kindObject, Props: map[string]int{}, PreserveUnknown: s.PreserveUnknown}
			names := make([]string, 0, len(s.Properties))
			for name := range s.Properties {
				names = append(names, name)
			}
			slices.Sort(names) // anonymous types are numbered in this order
			for _, name := range names {
				i, err := g.ref(s.Properties[name])
				if err != nil {
					return t, fmt.Errorf("property %s: %w", name, err)
				}
				t.Props[name] = i
			}
			t.Required = slices.Clone(s.Required)
			slices.Sort(t.Required)
			return t, nil
		case s.AdditionalProperties != nil:
			e, err := g.ref(s.AdditionalProperties)
			if err != nil {
				return compactType{}, fmt.Errorf("additionalProperties: %w", err)
			}
			return compactType{Kind: kindMap, Elem: &e}, nil
		}
		return compactType{Kind: kindFreeObject}, nil
	case "array":
		if s.Items == nil {
			return compactType{}, fmt.Errorf("array without items")
		}
		e, err := g.ref(s.Items)
		if err != nil {
			return compactType{}, fmt.Errorf("items: %w", err)
		}
		return compactType{Kind: kindArray, Elem: &e}, nil
	case "string":
		if s.Format == "byte" {
			return compactType{Kind: kindBytes}, nil
		}
		return compactType{Kind: kindString}, nil
	case "integer":
		return compactType{Kind: kindInteger}, nil
	case "number":
		return compactType{Kind: kindNumber}, nil
	case "boolean":
		return compactType{Kind: kindBoolean}, nil
	}
	return compactType{}, fmt.Errorf("unsupported type %q", s.Type)
}

// ref returns the index of the type a property schema stands for: a named
// definition (directly or through allOf), or an anonymous type shared by
// every property of the same shape.
func (g *generator) ref(s *openAPISchema) (int, error) {
	if s.Ref == "" && len(s.AllOf) == 1 && s.AllOf[0].Ref != "" && len(s.Properties) == 0 {
		s = &s.AllOf[0]
	}
	if s.Ref != "" {
		name := strings.TrimPrefix(s.Ref, refPrefix)
		i, ok := g.named[name]
		if !ok {
			return 0, fmt.Errorf("reference to unknown definition %s", name)
		}
		return i, nil
	}
	t, err := g.shape(s)
	if err != nil {
		return 0, err
	}
	key, err := json.Marshal(t)
	if err != nil {
		return 0, err
	}
	if i, ok := g.anon[string(key)]; ok {
		return i, nil
	}
	g.types = append(g.types, t)
	g.anon[string(key)] = len(g.types) - 1
	return len(g.types) - 1, nil
}

// encodeCompact writes the schema as JSON with one kind and one type per
// line, so that a new Kubernetes version shows as a readable diff.
func encodeCompact(s *compactSchema) ([]byte, error) {
	var b bytes.Buffer
	src, _ := json.Marshal(s.Source)
	fmt.Fprintf(&b, "{\"source\": %s,\n\"kinds\": {\n", src)
	keys := make([]string, 0, len(s.Kinds))
	for k := range s.Kinds {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		kb, _ := json.Marshal(k)
		sep := ","
		if i == len(keys)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s: %d%s\n", kb, s.Kinds[k], sep)
	}
	b.WriteString("},\n\"types\": [\n")
	for i, t := range s.Types {
		tb, err := json.Marshal(t)
		if err != nil {
			return nil, err
		}
		b.Write(tb)
		if i < len(s.Types)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]}\n")
	return b.Bytes(), nil
}
