package checks

import (
	"fmt"
	"strings"

	"github.com/plumb-ci/plumb/internal/manifest"
)

// fieldPath is the argument of manifest@v1 and quantity@v1: a field path of
// the object, with two extensions. It may start at $pod, the pod spec of any
// workload kind (so one check covers Deployments, CronJobs and Pods), and
// [*] expands every element of a list, which makes the fact a list whose
// elements each remember their own field. A trailing ? makes a missing
// field null instead of a fact error.
type fieldPath struct {
	raw      string
	optional bool
	pod      bool
	// pieces are the literal paths between wildcards: a.b[*].c has pieces
	// [a.b, c].
	pieces []manifest.Path
}

func parseFieldPath(arg string) (*fieldPath, error) {
	fp := &fieldPath{raw: arg}
	s := strings.TrimSpace(arg)
	if strings.HasSuffix(s, "?") {
		fp.optional = true
		s = strings.TrimSuffix(s, "?")
	}
	if rest, ok := strings.CutPrefix(s, "$pod"); ok {
		if rest != "" && rest[0] != '.' && rest[0] != '[' {
			return nil, fmt.Errorf("path %q: $pod must be followed by '.' or '['", arg)
		}
		fp.pod = true
		s = rest
	} else if strings.HasPrefix(s, "$") {
		return nil, fmt.Errorf("path %q: the only variable a path may start with is $pod", arg)
	}
	for _, piece := range splitWildcards(s) {
		p, err := manifest.ParsePath(piece)
		if err != nil {
			return nil, err
		}
		fp.pieces = append(fp.pieces, p)
	}
	return fp, nil
}

// splitWildcards cuts a path at its [*] steps. A quoted key may itself
// hold "[*]" (an annotation name can): only the [*] outside quotes count.
func splitWildcards(s string) []string {
	var pieces []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '[' || i+1 >= len(s) {
			continue
		}
		switch s[i+1] {
		case '*':
			if i+2 < len(s) && s[i+2] == ']' {
				pieces = append(pieces, s[start:i])
				start = i + 3
				i += 2
			}
		case '"':
			// Skip to the closing quote, honouring backslash escapes.
			for i += 2; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '\'':
			if end := strings.Index(s[i+2:], "']"); end >= 0 {
				i += 2 + end + 1
			} else {
				i = len(s)
			}
		}
	}
	return append(pieces, s[start:])
}

// wildcard reports whether the path expands lists.
func (fp *fieldPath) wildcard() bool { return len(fp.pieces) > 1 }

// match is one value the path reached (or, for an absent optional leaf,
// where it would be).
type match struct {
	value   any
	path    manifest.Path
	present bool
}

// resolve walks the path in an object. errType prefixes fact error types
// (manifest, quantity).
func (fp *fieldPath) resolve(o *manifest.Object, content map[string]any, errType string) ([]match, manifest.Path, *FactError) {
	var base manifest.Path
	var root any = content
	if fp.pod {
		pp, ok := podSpecPath(o.ID.Kind)
		if !ok {
			return nil, nil, factErr(errType+"-not-a-workload", "%s has no pod template, so $pod means nothing for it", o.ID.Kind)
		}
		base = pp
		v, found := manifest.Lookup(content, pp)
		if !found {
			if fp.optional {
				// A workload without a pod spec has none of its fields.
				if fp.wildcard() {
					return []match{}, base, nil
				}
				return []match{{path: base.Child(fp.pieces[0]...)}}, base.Child(fp.pieces[0]...), nil
			}
			return nil, base, factErr(errType+"-value-not-found", "%s has no pod spec at %s", o.ID.Kind, pp)
		}
		root = v
	}
	first := base.Child(fp.pieces[0]...)
	v, found := manifest.Lookup(root, fp.pieces[0])
	if !fp.wildcard() {
		if !found {
			if fp.optional {
				return []match{{path: first}}, first, nil
			}
			return nil, first, factErr(errType+"-value-not-found", "%s has no field %s", o.ID.Kind, first)
		}
		return []match{{value: v, path: first, present: true}}, first, nil
	}
	// With wildcards the fact is a list; the list field is its origin.
	cur := []match{{value: v, path: first, present: found}}
	for i, piece := range fp.pieces[1:] {
		var next []match
		for _, m := range cur {
			if !m.present {
				if fp.optional {
					continue // a missing list contributes no element
				}
				return nil, first, factErr(errType+"-value-not-found", "%s has no field %s", o.ID.Kind, m.path)
			}
			list, ok := m.value.([]any)
			if !ok {
				if m.value == nil && fp.optional {
					continue
				}
				return nil, first, factErr(errType+"-not-a-list", "%s: %s is not a list, so [*] cannot expand it", o.ID.Kind, m.path)
			}
			for j, e := range list {
				p := m.path.Child(manifest.Index(j))
				p = p.Child(piece...)
				ev, ok := manifest.Lookup(e, piece)
				if !ok && i == len(fp.pieces)-2 {
					if !fp.optional {
						return nil, first, factErr(errType+"-value-not-found", "%s has no field %s", o.ID.Kind, p)
					}
					next = append(next, match{path: p})
					continue
				}
				next = append(next, match{value: ev, path: p, present: ok})
			}
		}
		cur = next
	}
	return cur, first, nil
}

// podSpecPath is where a workload kind keeps its pod spec.
func podSpecPath(kind string) (manifest.Path, bool) {
	switch kind {
	case "Pod":
		return manifest.Path{manifest.Key("spec")}, true
	case "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job", "DeploymentConfig":
		return manifest.Path{manifest.Key("spec"), manifest.Key("template"), manifest.Key("spec")}, true
	case "CronJob":
		return manifest.Path{manifest.Key("spec"), manifest.Key("jobTemplate"), manifest.Key("spec"), manifest.Key("template"), manifest.Key("spec")}, true
	case "PodTemplate":
		return manifest.Path{manifest.Key("template"), manifest.Key("spec")}, true
	}
	return nil, false
}
