package render

import (
	"maps"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/api/types"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// A kustomize replacement or var can copy a Secret's value into any field
// of any object (a ConfigMap's data, an annotation). What came from a
// secret field stays secret wherever it is copied: for each replacement
// whose source is a Secret's data, stringData or binaryData, and each var
// that reads one, the built objects the value was copied into record the
// fields holding it in their SecretFields, and every sink masks those as
// it masks the Secret's own values. The value is read from the built
// Secret, and followed into the objects the replacement's targets select
// (a var's into every object, since its $(NAME) may be anywhere); a field
// holds the copy when its string is the value, or contains it (a var
// inside a longer string, a replacement with a delimiter).

// minTaintLen is the shortest copied value followed inside a longer
// string; a shorter one is followed only where a field is exactly it.
const minTaintLen = 4

// taintCopiedSecrets records the copies of Secret values the closure's
// replacements and vars made in objs.
func (r *renderer) taintCopiedSecrets(c *closure, objs []*manifest.Object) {
	for _, n := range c.nodes {
		k := n.k
		var reps []types.Replacement
		for _, rf := range k.K.Replacements {
			if rf.Path != "" {
				reps = append(reps, r.graph.replacementFile(k, rf.Path)...)
			} else {
				reps = append(reps, rf.Replacement)
			}
		}
		for _, rep := range reps {
			if rep.Source == nil || rep.Source.Kind != "Secret" || !secretFieldPath(rep.Source.FieldPath) {
				continue
			}
			for _, v := range secretSourceValues(objs, rep.Source.Name, rep.Source.Namespace, rep.Source.FieldPath) {
				for _, t := range rep.Targets {
					if t == nil || t.Select == nil {
						continue
					}
					for _, o := range objs {
						if selectsObject(t.Select, o) && !rejectedObject(t.Reject, o) {
							taintValue(o, v)
						}
					}
				}
			}
		}
		for _, v := range k.K.Vars {
			if v.ObjRef.Kind != "Secret" || !secretFieldPath(v.FieldRef.FieldPath) {
				continue
			}
			for _, val := range secretSourceValues(objs, v.ObjRef.Name, v.ObjRef.Namespace, v.FieldRef.FieldPath) {
				for _, o := range objs {
					taintValue(o, val)
				}
			}
		}
	}
}

// secretFieldPath reports whether a field path of a Secret names a value
// that is secret (data, stringData, binaryData).
func secretFieldPath(fp string) bool {
	first, _, _ := strings.Cut(fp, ".")
	return first == "data" || first == "stringData" || first == "binaryData"
}

// secretSourceValues reads the values a Secret's field path names in the
// built objects: the Secret of that name (before prefixes, suffixes and
// the content hash), of any namespace when none is given; every value of
// the mapping when the path names one.
func secretSourceValues(objs []*manifest.Object, name, ns, fieldPath string) []string {
	var out []string
	for _, o := range objs {
		if !manifest.IsSecret(o.Content) || (o.ID.Name != name && o.WrittenName() != name) || ns != "" && o.ID.Namespace != ns {
			continue
		}
		v, ok := manifest.Lookup(o.Content, kustomizeFieldPath(fieldPath))
		if !ok {
			continue
		}
		switch t := v.(type) {
		case string:
			out = append(out, t)
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(t)) {
				if s, ok := t[k].(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// kustomizeFieldPath converts a kustomize field path (data.password,
// metadata.annotations.[a.b/c]) into a path.
func kustomizeFieldPath(fp string) manifest.Path {
	var p manifest.Path
	for fp != "" {
		if strings.HasPrefix(fp, "[") {
			end := strings.Index(fp, "]")
			if end < 0 {
				break
			}
			p = append(p, manifest.Key(fp[1:end]))
			fp = strings.TrimPrefix(fp[end+1:], ".")
			continue
		}
		part, rest, _ := strings.Cut(fp, ".")
		p = append(p, manifest.Key(part))
		fp = rest
	}
	return p
}

// selectsObject reports whether a replacement's selector may select a
// built object (by kind, name as built or as written, and namespace;
// labels and annotations are not read: selecting more only masks more).
func selectsObject(s *types.Selector, o *manifest.Object) bool {
	return (s.Kind == "" || s.Kind == o.ID.Kind) && (s.Name == "" || s.Name == o.ID.Name || s.Name == o.WrittenName()) &&
		(s.Namespace == "" || s.Namespace == o.ID.Namespace)
}

func rejectedObject(rejects []*types.Selector, o *manifest.Object) bool {
	for _, s := range rejects {
		if s != nil && selectsObject(s, o) {
			return true
		}
	}
	return false
}

// taintValue records in o the string fields that hold v.
func taintValue(o *manifest.Object, v string) {
	if v == "" || manifest.IsSecret(o.Content) {
		return
	}
	walkStrings(o.Content, nil, func(p manifest.Path, s string) {
		if s == v || len(v) >= minTaintLen && strings.Contains(s, v) {
			for _, have := range o.SecretFields {
				if have.Equal(p) {
					return
				}
			}
			o.SecretFields = append(o.SecretFields, slices.Clone(p))
		}
	})
}

// walkStrings calls f for every string leaf of v with its path (p is a
// buffer the walk extends).
func walkStrings(v any, p manifest.Path, f func(manifest.Path, string)) {
	switch t := v.(type) {
	case string:
		f(p, t)
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			walkStrings(t[k], append(p, manifest.Key(k)), f)
		}
	case []any:
		for i, e := range t {
			walkStrings(e, append(p, manifest.Index(i)), f)
		}
	}
}
