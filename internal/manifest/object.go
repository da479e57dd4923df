package manifest

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Location is a span in a repository file. Lines and columns are 1-based;
// a zero Line means "the file as a whole".
type Location struct {
	File      string `json:"file"`
	Line      int    `json:"line,omitempty"`
	Column    int    `json:"column,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	EndColumn int    `json:"end_column,omitempty"`
}

// IsZero reports whether the location names no file.
func (l Location) IsZero() bool { return l.File == "" }

// Compare orders locations by file, then line, then column, then end.
func (l Location) Compare(m Location) int {
	if c := strings.Compare(l.File, m.File); c != 0 {
		return c
	}
	for _, d := range [...]int{l.Line - m.Line, l.Column - m.Column, l.EndLine - m.EndLine, l.EndColumn - m.EndColumn} {
		if d != 0 {
			return d
		}
	}
	return 0
}

// ObjectID identifies a rendered object: what Kubernetes uses to name it, plus
// the render target it came from (one object may be rendered by several
// overlays, and each rendering is checked on its own).
type ObjectID struct {
	APIVersion string `json:"api_version,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name,omitempty"`
	Target     string `json:"target,omitempty"`
}

// Group returns the API group of the apiVersion ("" for the core group).
func (id ObjectID) Group() string {
	if i := strings.IndexByte(id.APIVersion, '/'); i >= 0 {
		return id.APIVersion[:i]
	}
	return ""
}

// IsZero reports whether the id names nothing (a finding about a file rather
// than an object).
func (id ObjectID) IsZero() bool { return id == ObjectID{} }

// String prints the id as people read it: Kind namespace/name, with the
// target in brackets when there is one.
func (id ObjectID) String() string {
	var b strings.Builder
	b.WriteString(id.Kind)
	b.WriteByte(' ')
	if id.Namespace != "" {
		b.WriteString(id.Namespace)
		b.WriteByte('/')
	}
	b.WriteString(id.Name)
	if id.Target != "" {
		b.WriteString(" [")
		b.WriteString(id.Target)
		b.WriteByte(']')
	}
	return b.String()
}

// Key is a stable machine form of the id, used in fingerprints and sorting:
// apiVersion|kind|namespace|name|target.
func (id ObjectID) Key() string {
	return id.APIVersion + "|" + id.Kind + "|" + id.Namespace + "|" + id.Name + "|" + id.Target
}

// Compare orders ids by target, kind, namespace, name, apiVersion.
func (id ObjectID) Compare(o ObjectID) int {
	for _, c := range [...]int{
		strings.Compare(id.Target, o.Target),
		strings.Compare(id.Kind, o.Kind),
		strings.Compare(id.Namespace, o.Namespace),
		strings.Compare(id.Name, o.Name),
		strings.Compare(id.APIVersion, o.APIVersion),
	} {
		if c != 0 {
			return c
		}
	}
	return 0
}

// Provenance resolves a field path of a rendered object to the source
// position that supplied its value. When the field is absent it returns the
// nearest present ancestor and exact=false.
type Provenance interface {
	Locate(p Path) (loc Location, exact bool)
}

// Object is one Kubernetes object as the analyzers see it.
//
// Content is the JSON-compatible value tree (map[string]any, []any, string,
// int64, float64, bool, nil): whole numbers are int64, never float64.
type Object struct {
	ID      ObjectID
	Content map[string]any
	// Origin maps field paths to source positions (the document for plain
	// files; kustomize provenance for rendered targets).
	Origin Provenance
	// Doc is the source document the object was read from, when there is one
	// single document (plain files and Templates); nil for kustomize output.
	Doc *Document
	// Node is the object's own YAML node, which keeps the author's key order
	// and comments for printing. Whoever changes Content after reading must
	// set Node to nil (printing then falls back to Content).
	Node *yaml.Node
	// SourceName is the name the object has in the file it was read from,
	// when that is not its name: kustomize's namePrefix and nameSuffix, a
	// patch that renames it, and a generator's content hash change the
	// name between the source and the rendered object. Checks that compare
	// environments compare these names, since every overlay may name the
	// same workload differently. Empty when the name is as written.
	SourceName string
	// SecretFields are fields whose value holds a copy of a secret value
	// of another object of the target (a kustomize replacement or var that
	// copied a Secret's value): secret wherever they are printed, as the
	// fields SecretPaths finds (ObjectSecretPaths).
	SecretFields []Path
}

// WrittenName is the object's name as written in its source: SourceName
// when rendering changed it, else the name itself (plain files, Template
// objects after parameter substitution).
func (o *Object) WrittenName() string {
	if o.SourceName != "" {
		return o.SourceName
	}
	return o.ID.Name
}

// Locate resolves a path through the object's provenance.
func (o *Object) Locate(p Path) (Location, bool) {
	if o.Origin == nil {
		return Location{}, false
	}
	return o.Origin.Locate(p)
}

// PatchProvenance is provenance that knows which patch wrote a field: a
// kustomize strategic merge or JSON 6902 patch that set it, added it to a
// list, or removed it (a null, $patch: delete, a remove operation).
type PatchProvenance interface {
	PatchedAt(p Path) (Location, bool)
}

// PatchedAt returns the line of the patch that set or removed the field
// p, when its provenance knows one (false when p is the base's, was set by
// a transformer, or was never there).
func (o *Object) PatchedAt(p Path) (Location, bool) {
	if r, ok := o.Origin.(PatchProvenance); ok {
		return r.PatchedAt(p)
	}
	return Location{}, false
}

// Get returns the value at path p in the object's content.
func (o *Object) Get(p Path) (any, bool) { return Lookup(o.Content, p) }

// Lookup walks a JSON-compatible value tree along p.
func Lookup(v any, p Path) (any, bool) {
	for _, s := range p {
		switch t := v.(type) {
		case map[string]any:
			if s.IsIndex {
				return nil, false
			}
			var ok bool
			if v, ok = t[s.Key]; !ok {
				return nil, false
			}
		case []any:
			if !s.IsIndex || s.Index >= len(t) {
				return nil, false
			}
			v = t[s.Index]
		default:
			return nil, false
		}
	}
	return v, true
}

// Metadata returns metadata as a map (nil when absent or not a mapping).
func (o *Object) Metadata() map[string]any {
	m, _ := o.Content["metadata"].(map[string]any)
	return m
}

// Labels returns metadata.labels with string values only.
func (o *Object) Labels() map[string]string { return stringMap(o.Metadata()["labels"]) }

// Annotations returns metadata.annotations with string values only.
func (o *Object) Annotations() map[string]string {
	return stringMap(o.Metadata()["annotations"])
}

func stringMap(v any) map[string]string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// IDOf reads the identifying fields of a content tree.
func IDOf(content map[string]any, target string) ObjectID {
	id := ObjectID{Target: target}
	id.APIVersion, _ = content["apiVersion"].(string)
	id.Kind, _ = content["kind"].(string)
	if md, ok := content["metadata"].(map[string]any); ok {
		id.Namespace, _ = md["namespace"].(string)
		id.Name, _ = md["name"].(string)
		if id.Name == "" {
			if g, ok := md["generateName"].(string); ok {
				id.Name = g
			}
		}
	}
	return id
}

// RelatedProvenance is a provenance that knows more than the one place a
// field comes from: a chart's field set from a values file also has the
// template line that printed it.
type RelatedProvenance interface {
	Provenance
	// Related returns the other places that matter for the field at p,
	// with a note on each.
	Related(p Path) []RelatedLocation
}

// RelatedLocation is a secondary place of a field, with why it matters.
type RelatedLocation struct {
	Location
	Message string
}

// PresentPrefix returns the longest prefix of p present in the value tree
// v, and the value there.
func PresentPrefix(v any, p Path) (Path, any) {
	for i, s := range p {
		switch t := v.(type) {
		case map[string]any:
			next, ok := t[s.Key]
			if s.IsIndex || !ok {
				return p[:i], v
			}
			v = next
		case []any:
			if !s.IsIndex || s.Index >= len(t) {
				return p[:i], v
			}
			v = t[s.Index]
		default:
			return p[:i], v
		}
	}
	return p, v
}

// DeepCopy copies a value tree (map[string]any, []any, scalars) so that
// writes to the copy never reach the original.
func DeepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = DeepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = DeepCopy(e)
		}
		return out
	}
	return v
}
