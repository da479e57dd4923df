package checks

import (
	"github.com/plumb-ci/plumb/internal/manifest"
)

var manifestGatherer = &gathererDef{
	name: "manifest", version: 1,
	Summary: "A field of the object: its value, or with [*] a list of values. A missing field is a fact error " +
		"(manifest-value-not-found) unless the path ends in '?', which gives null.",
	Argument: "a field path such as spec.replicas, metadata.labels[\"app.kubernetes.io/name\"]?, " +
		"$pod.hostNetwork? ($pod is the pod spec of any workload kind) or $pod.containers[*].image; empty for the whole object",
	prepare: func(arg string, _ TargetType) (gatherFunc, error) {
		if arg == "" {
			return func(s *subject) gathered {
				return gathered{value: s.target.content(s.obj), at: &origin{obj: s.obj}}
			}, nil
		}
		fp, err := parseFieldPath(arg)
		if err != nil {
			return nil, err
		}
		return func(s *subject) gathered {
			return gatherPath(s, fp, "manifest", func(v any) (any, *FactError) { return v, nil })
		}, nil
	},
}

var quantityGatherer = &gathererDef{
	name: "quantity", version: 1,
	Summary: "A Kubernetes quantity (CPU, memory, storage) as a number in base units: \"500m\" is 0.5, " +
		"\"1Gi\" is 1073741824. Whole results are integers. Paths work as in manifest@v1; with [*] it is a list.",
	Argument: "a field path such as $pod.containers[*].resources.limits.memory? or spec.resources.requests.storage",
	prepare: func(arg string, _ TargetType) (gatherFunc, error) {
		fp, err := parseFieldPath(arg)
		if err != nil {
			return nil, err
		}
		return func(s *subject) gathered {
			return gatherPath(s, fp, "quantity", func(v any) (any, *FactError) {
				if v == nil {
					return nil, nil
				}
				q, err := quantityValue(v)
				if err != nil {
					return nil, factErr("quantity-invalid", "%v", err)
				}
				return q, nil
			})
		}, nil
	},
}

// gatherPath resolves a field path and converts each value reached.
func gatherPath(s *subject, fp *fieldPath, errType string, conv func(any) (any, *FactError)) gathered {
	content := s.target.content(s.obj)
	matches, at, ferr := fp.resolve(s.obj, content, errType)
	g := gathered{at: &origin{obj: s.obj, path: at}}
	if ferr != nil {
		g.err = ferr
		return g
	}
	if !fp.wildcard() {
		m := matches[0]
		v, ferr := conv(m.value)
		if ferr != nil {
			ferr.Message = m.path.String() + ": " + ferr.Message
			g.err = ferr
			return g
		}
		g.value = v
		return g
	}
	list := make([]any, 0, len(matches))
	g.items = make([]item, 0, len(matches))
	for i, m := range matches {
		v, ferr := conv(m.value)
		if ferr != nil {
			ferr.Message = m.path.String() + ": " + ferr.Message
			g.err = ferr
			g.at = &origin{obj: s.obj, path: m.path}
			return g
		}
		list = append(list, v)
		g.items = append(g.items, item{key: i, at: origin{obj: s.obj, path: m.path}})
	}
	g.value = list
	return g
}

// objectsOrigin is the origin of a whole object.
func objectOrigin(o *manifest.Object) origin { return origin{obj: o} }
